import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { formatMoney, toMajor } from '../../../shared/money';
import type { ReceiptDto } from '../../../shared/schemas/donations';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { StatusBadge } from '../../components/PagedTable';
import { useSession } from '../../auth/useSession';
import { usePageTitle } from '../../hooks/usePageTitle';
import { formatDateTime } from '../../lib/dates';
import { errorMessage, httpStatus } from '../../lib/errors';
import { trpc } from '../../trpc';
import { RaiseDisputeButton } from '../disputes/RaiseDisputeButton';
import { RefundDialog } from './RefundDialog';
import { cents, SandboxActions, sandboxApplies, simulationOutcome, standingCents } from './SandboxActions';
import { DonationStatusBadge } from './status';

/** How often a pending payment (a provider still confirming it) is asked about again. */
const PENDING_POLL_MS = 3000;

/**
 * /donations/{id} (?token= for a guest's link): the receipt of one donation, for its donor, the
 * campaign's owner and admins. The owner (or an admin) can refund what stands of a donation (not
 * while a chargeback is open); a refund in part and a chargeback are shown in plain words. Admins
 * see the sandbox's processor actions while the built-in sandbox takes the payments.
 */
export default function ReceiptPage() {
  const { id = '' } = useParams();
  const [params] = useSearchParams();
  const token = params.get('token') ?? undefined;
  usePageTitle('Receipt');
  const receipt = trpc.donations.receipt.useQuery(
    { id, token },
    { enabled: id !== '', refetchInterval: (q) => (q.state.data?.status === 'pending' ? PENDING_POLL_MS : false) },
  );

  if (receipt.isPending) return <Loading />;
  if (receipt.isError) {
    return (
      <section className="page page-narrow">
        {httpStatus(receipt.error) === 404 ? <h1>{M.donationNotFound}</h1> : <Notice kind="error">{errorMessage(receipt.error, M.requestFailed)}</Notice>}
        <p>
          <Link to="/campaigns">{M.backToCampaigns}</Link>
        </p>
      </section>
    );
  }
  return <Receipt r={receipt.data} input={{ id, token }} />;
}

/** The chargeback's state in plain words, for whoever reads the receipt. */
const CHARGEBACK: Record<NonNullable<ReceiptDto['chargeback']>, { label: string; text: string }> = {
  open: { label: 'Open', text: 'Disputed by the donor’s bank: the amount is held until the dispute ends.' },
  won: { label: 'Won', text: 'The donor’s bank disputed this payment and the dispute was decided for the campaign: the amount stands.' },
  lost: { label: 'Lost', text: 'The donor’s bank disputed this payment and the dispute was lost: the amount went back to the donor.' },
};

function Receipt({ r, input }: { r: ReceiptDto; input: { id: string; token?: string } }) {
  const utils = trpc.useUtils();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const sandboxHeadingRef = useRef<HTMLHeadingElement>(null);
  const [refunding, setRefunding] = useState(false);
  const [refunded, setRefunded] = useState<string | null>(null);
  const [simulated, setSimulated] = useState<{ text: ReactNode; n: number } | null>(null);
  const { isSignedIn, isAdmin } = useSession();
  const info = trpc.donations.info.useQuery(undefined, { staleTime: 10 * 60_000, enabled: isAdmin });
  const sandbox = isAdmin && info.data?.provider === 'sandbox' && info.data.testMode;
  const amount = formatMoney(r.amount, r.currency);
  /** What a refund by the owner returns now: what still stands of the donation. */
  const stands = formatMoney(toMajor(standingCents(r)), r.currency);
  const partlyRefunded = r.refund !== null && cents(r.refund.amount) < cents(r.amount);

  // a simulation can take away the button that was pressed (or the whole section): the focus goes to
  // the section's heading, else the page's. The new receipt may render after the message, so this
  // runs again when it does.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `r` is what takes the button away
  useEffect(() => {
    if (!simulated) return;
    const lost = !document.activeElement || document.activeElement === document.body;
    if (lost) (sandboxHeadingRef.current ?? headingRef.current)?.focus();
  }, [simulated, r]);

  return (
    <section className="page page-narrow receipt-page">
      <div className="card receipt">
        <h1 ref={headingRef} tabIndex={-1}>
          Receipt
        </h1>
        <p className="receipt-lead">
          {r.monthly ? 'Monthly donation' : 'Donation'} to <Link to={`/campaigns/${encodeURIComponent(r.campaign._id)}`}>{r.campaign.title}</Link>
        </p>
        <dl className="facts receipt-facts">
          <div>
            <dt>Amount</dt>
            <dd>{amount}</dd>
          </div>
          <div>
            <dt>Status</dt>
            <dd>
              <DonationStatusBadge status={r.status} />
            </dd>
          </div>
          <div>
            <dt>Date</dt>
            <dd>{formatDateTime(r.date)}</dd>
          </div>
          <div>
            <dt>Kind</dt>
            <dd>{r.monthly ? 'Monthly' : 'One-time'}</dd>
          </div>
          {r.refund && (
            <div>
              <dt>Refunded</dt>
              <dd>
                {partlyRefunded ? `${formatMoney(r.refund.amount, r.currency)} of ${amount}` : formatMoney(r.refund.amount, r.currency)} on{' '}
                {formatDateTime(r.refund.date)}
              </dd>
            </div>
          )}
          {r.chargeback && (
            <div>
              <dt>Chargeback</dt>
              <dd>
                <StatusBadge className={`chargeback-${r.chargeback}`} label={CHARGEBACK[r.chargeback].label} />
              </dd>
            </div>
          )}
          <div>
            <dt>Reference</dt>
            <dd className="receipt-ref">{r._id}</dd>
          </div>
        </dl>
        {partlyRefunded && r.status === 'succeeded' && r.chargeback !== 'open' && (
          <p className="muted">Part of this donation was refunded; the rest, {stands}, stands.</p>
        )}
        {r.chargeback && <p className={`receipt-chargeback receipt-chargeback-${r.chargeback}`}>{CHARGEBACK[r.chargeback].text}</p>}
        {r.status === 'pending' && <p className="muted">The payment is being confirmed; this page updates by itself.</p>}
        {r.failureMessage && <p className="notice notice-error">{r.failureMessage}</p>}
        <Notice kind="success">{refunded ? `Refunded ${refunded}.` : null}</Notice>
        <Notice kind="success">{simulated?.text}</Notice>
        {r.canRefund && !refunded && (
          <div className="button-row">
            <button type="button" className="button button-danger" onClick={() => setRefunding(true)}>
              Refund
            </button>
          </div>
        )}
        <p className="receipt-back">
          <Link to={`/campaigns/${encodeURIComponent(r.campaign._id)}`}>Back to the campaign</Link>
        </p>
        {/* the receipt comes first; a dispute is there when needed, not the page's main action (#33) */}
        {isSignedIn && (
          <div className="receipt-dispute">
            <span className="muted">Something wrong with this donation?</span>{' '}
            <RaiseDisputeButton className="button-quiet" campaignId={r.campaign._id} donationId={r._id} />
          </div>
        )}
      </div>
      {sandbox && sandboxApplies(r) && (
        <SandboxActions
          receipt={r}
          headingRef={sandboxHeadingRef}
          onDone={(after, before) => {
            utils.donations.receipt.setData(input, after);
            const text = simulationOutcome(before, after) ?? (
              <>
                The processor’s event booked nothing: it did not fit this donation. It is listed in the admin console’s{' '}
                <Link to="/admin?tab=payments">Payments</Link> tab.
              </>
            );
            setSimulated((s) => ({ text, n: (s?.n ?? 0) + 1 }));
          }}
        />
      )}
      {refunding && (
        <RefundDialog
          donation={{ _id: r._id, amount: toMajor(standingCents(r)), currency: r.currency }}
          onClose={() => setRefunding(false)}
          onRefunded={(after) => {
            utils.donations.receipt.setData(input, after);
            // the Refund button goes in the same render that closes the dialog: the focus goes to the heading
            setRefunded(stands);
            setRefunding(false);
          }}
          fallbackFocus={() => headingRef.current}
        />
      )}
    </section>
  );
}
