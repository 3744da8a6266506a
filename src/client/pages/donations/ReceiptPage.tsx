import { useRef, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { formatMoney } from '../../../shared/money';
import type { ReceiptDto } from '../../../shared/schemas/donations';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { useSession } from '../../auth/useSession';
import { usePageTitle } from '../../hooks/usePageTitle';
import { formatDateTime } from '../../lib/dates';
import { errorMessage, httpStatus } from '../../lib/errors';
import { trpc } from '../../trpc';
import { RaiseDisputeButton } from '../disputes/RaiseDisputeButton';
import { RefundDialog } from './RefundDialog';
import { DonationStatusBadge } from './status';

/** How often a pending payment (a provider still confirming it) is asked about again. */
const PENDING_POLL_MS = 3000;

/**
 * /donations/{id} (?token= for a guest's link): the receipt of one donation, for its donor, the
 * campaign's owner and admins. The owner (or an admin) can refund a donation that stands.
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

function Receipt({ r, input }: { r: ReceiptDto; input: { id: string; token?: string } }) {
  const utils = trpc.useUtils();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [refunding, setRefunding] = useState(false);
  const [refunded, setRefunded] = useState(false);
  const { isSignedIn } = useSession();
  const amount = formatMoney(r.amount, r.currency);
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
                {formatMoney(r.refund.amount, r.currency)} on {formatDateTime(r.refund.date)}
              </dd>
            </div>
          )}
          <div>
            <dt>Reference</dt>
            <dd className="receipt-ref">{r._id}</dd>
          </div>
        </dl>
        {r.status === 'pending' && <p className="muted">The payment is being confirmed; this page updates by itself.</p>}
        {r.failureMessage && <p className="notice notice-error">{r.failureMessage}</p>}
        <Notice kind="success">{refunded ? `Refunded ${amount}.` : null}</Notice>
        {((r.canRefund && !refunded) || isSignedIn) && (
          <div className="button-row">
            {r.canRefund && !refunded && (
              <button type="button" className="button button-danger" onClick={() => setRefunding(true)}>
                Refund
              </button>
            )}
            {isSignedIn && <RaiseDisputeButton campaignId={r.campaign._id} donationId={r._id} />}
          </div>
        )}
        <p className="receipt-back">
          <Link to={`/campaigns/${encodeURIComponent(r.campaign._id)}`}>Back to the campaign</Link>
        </p>
      </div>
      {refunding && (
        <RefundDialog
          donation={{ _id: r._id, amount: r.amount, currency: r.currency }}
          onClose={() => setRefunding(false)}
          onRefunded={(after) => {
            utils.donations.receipt.setData(input, after);
            // the Refund button goes in the same render that closes the dialog: the focus goes to the heading
            setRefunded(true);
            setRefunding(false);
          }}
          fallbackFocus={() => headingRef.current}
        />
      )}
    </section>
  );
}
