import { campaignPayoutsInput, fundsInput } from '../../../shared/first-queries';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { DEFAULT_REJECTION_REASON, type Currency } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { CURRENCY_SYMBOL, formatMoney, toMajor } from '../../../shared/money';
import type { CampaignDto } from '../../../shared/schemas/campaigns';
import type { BalanceDto, PayoutDto, PayoutHoldDto } from '../../../shared/schemas/payouts';
import { useSession } from '../../auth/useSession';
import { Field, FieldError } from '../../components/Field';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { nextPageParam, PagedTable } from '../../components/PagedTable';
import { formatDate, formatDateTime } from '../../lib/dates';
import { errorMessage, httpStatus } from '../../lib/errors';
import { lazySchema, validateLazy, type FieldErrors } from '../../lib/forms';
import { newIdempotencyKey } from '../../lib/idempotency';
import { trpc } from '../../trpc';
import { PayoutStatusBadge } from '../donations/status';

const CONNECTION_LOST = 'The connection was lost before an answer came. Press Request payout again to retry: it will not be requested twice.';

/** Which field a server message is about (the rest are shown as an alert above the button). */
const FIELD_OF: Record<string, 'amount' | 'email'> = {
  [M.payoutAmountInvalid]: 'amount',
  [M.payoutExceedsBalance]: 'amount',
  [M.emailRequired]: 'email',
  [M.emailInvalid]: 'email',
};

/** '12.5' -> 1250 cents; null unless a positive amount with at most 2 decimals. */
function centsOf(text: string): number | null {
  const t = text.trim();
  if (!/^\d+(\.\d{0,2})?$/.test(t)) return null;
  const [whole, frac = ''] = t.split('.');
  const cents = Number(whole) * 100 + Number(frac.padEnd(2, '0'));
  return cents > 0 && Number.isSafeInteger(cents) ? cents : null;
}

/** The platform's fee on `cents`, as the server computes it: rounded half up to the cent, in integer basis points. */
function feeOf(cents: number, feeRate: number): number {
  const bps = Math.round(feeRate * 10_000);
  return Math.floor((cents * bps + 5000) / 10_000);
}

/**
 * A campaign's Funds, for its owner and admins: raised, refunded, paid out, pending, what
 * chargebacks hold or took (only when not zero, each with a sentence saying what it is) and
 * available; the disputes holding its payouts, if any (each with its reason, and that an admin
 * reviews it); the owner's "Request payout" form (a PayPal email and an amount, everything
 * available by default, with the fee and the net shown before sending; in its place a line
 * saying why while a dispute holds all of the campaign's payouts); the payout history.
 * Renders nothing for anyone else.
 */
/** The owner's (and admins') Funds panel; `nested` where it sits under a heading of its own list (/myCampaigns). */
export function FundsPanel({ campaign, nested = false }: { campaign: Pick<CampaignDto, '_id' | 'ownerId'>; nested?: boolean }) {
  const { user, isAdmin } = useSession();
  const isOwner = user !== null && user._id === campaign.ownerId._id;
  if (!isOwner && !isAdmin) return null;
  return <Funds campaignId={campaign._id} canRequest={isOwner} nested={nested} />;
}

function Funds({ campaignId, canRequest, nested }: { campaignId: string; canRequest: boolean; nested: boolean }) {
  const balance = trpc.payouts.balance.useQuery(fundsInput(campaignId));
  // ids of its own, so several panels may be on one page
  const headingId = useId();
  const Heading = nested ? 'h3' : 'h2';
  return (
    <section className="card funds-panel" aria-labelledby={headingId}>
      <Heading id={headingId}>Funds</Heading>
      {balance.isPending ? (
        <Loading />
      ) : balance.isError ? (
        <Notice kind="error">{errorMessage(balance.error, M.requestFailed)}</Notice>
      ) : (
        <>
          <Holds holds={balance.data.holds} />
          <div className="funds-grid">
            <BalanceFigures b={balance.data} />
            {canRequest && <PayoutForm campaignId={campaignId} balance={balance.data} />}
          </div>
        </>
      )}
      <PayoutHistory campaignId={campaignId} isHeld={heldBy(balance.data?.holds ?? [])} />
    </section>
  );
}

/** Whether a pending payout is held: by a dispute about all of the campaign's payouts, or about that one. */
function heldBy(holds: PayoutHoldDto[]): (payoutId: string) => boolean {
  const all = holds.some((h) => h.payoutId === null);
  const one = new Set(holds.map((h) => h.payoutId));
  return (payoutId) => all || one.has(payoutId);
}

/** The disputes holding the campaign's payouts: what they hold, the reason given, since when, and that an admin reviews them. */
function Holds({ holds }: { holds: PayoutHoldDto[] }) {
  const headingId = useId();
  if (holds.length === 0) return null;
  return (
    <section className="funds-holds" aria-labelledby={headingId}>
      <h3 id={headingId}>Payouts on hold</h3>
      <ul>
        {holds.map((h) => (
          <li key={`${h.payoutId ?? 'all'}-${new Date(h.since).getTime()}`}>
            <p>
              {h.payoutId === null
                ? 'A dispute was raised about this campaign’s payouts: no payout can be requested or approved until it is settled.'
                : 'A dispute was raised about one of your pending payouts (marked “On hold” below): it cannot be approved until the dispute is settled.'}
            </p>
            <p>
              <span className="funds-hold-label">Reason given:</span> {h.reason}
            </p>
            <p className="muted">
              Raised {formatDate(new Date(h.since))}. {h.status === 'under_review' ? 'An admin is reviewing it.' : 'An admin will review it.'}
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Rows shown only when their amount is not zero, each with a sentence saying what it is. */
const EXPLAINED: { key: 'held' | 'chargedBack'; label: string; note: string }[] = [
  {
    key: 'held',
    label: 'Held: chargebacks',
    note: 'A donor’s bank disputed a payment; the amount is held until the dispute ends and cannot be paid out.',
  },
  {
    key: 'chargedBack',
    label: 'Charged back',
    note: 'Returned to donors after their banks’ disputes were lost, with the payment processor’s dispute fees.',
  },
];

function BalanceFigures({ b }: { b: BalanceDto }) {
  const rows: [string, number][] = [
    ['Raised', b.raised],
    ['Refunded', b.refunded],
    ['Paid out', b.paidOut],
    ['Pending', b.pending],
  ];
  return (
    <dl className="facts funds-facts">
      {rows.map(([label, v]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{formatMoney(v, b.currency)}</dd>
        </div>
      ))}
      {EXPLAINED.filter((r) => b[r.key] !== 0).map((r) => (
        <div key={r.key} className="funds-explained">
          <dt>{r.label}</dt>
          <dd>{formatMoney(b[r.key], b.currency)}</dd>
          <dd className="funds-note">{r.note}</dd>
        </div>
      ))}
      <div className={b.available < 0 ? 'funds-available funds-explained' : 'funds-available'}>
        <dt>Available</dt>
        <dd>{formatMoney(b.available, b.currency)}</dd>
        {b.available < 0 && (
          <dd className="funds-note">
            The payment processor took back more than the campaign held: new donations make up the difference before a payout can be requested.
          </dd>
        )}
      </div>
    </dl>
  );
}

// loaded when the form is first used: zod and the schemas stay out of the dashboard's first paint
const payoutSchema = lazySchema(() => import('../../../shared/schemas/payouts').then((m) => m.PayoutRequestInput));

function PayoutForm({ campaignId, balance }: { campaignId: string; balance: BalanceDto }) {
  const utils = trpc.useUtils();
  const ids = useId();
  const [email, setEmail] = useState('');
  /** null: everything available (follows the balance). */
  const [amount, setAmount] = useState<string | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [done, setDone] = useState<PayoutDto | null>(null);
  const [focusFor, setFocusFor] = useState<FieldErrors | null>(null);
  const attempt = useRef<{ key: string; sent: string } | null>(null);
  const checking = useRef(false);
  const formRef = useRef<HTMLFormElement>(null);
  const submitRef = useRef<HTMLButtonElement>(null);
  const request = trpc.payouts.request.useMutation();
  const currency: Currency = balance.currency;
  const amountText = amount ?? balance.available.toFixed(2);
  const cents = centsOf(amountText);
  const fee = cents === null ? null : feeOf(cents, balance.feeRate);

  useEffect(() => {
    if (!focusFor || request.isPending) return;
    const name = focusFor.email ? 'email' : focusFor.amount ? 'amount' : null;
    const target = name ? formRef.current?.querySelector<HTMLInputElement>(`[name="${name}"]`) : null;
    if (target) target.focus();
    else if (!formRef.current?.contains(document.activeElement)) submitRef.current?.focus();
    setFocusFor(null);
  }, [focusFor, request.isPending]);

  if (balance.holds.some((h) => h.payoutId === null) && !done) {
    return <p className="muted funds-nothing">You can request a payout again once an admin has settled the dispute.</p>;
  }
  if (balance.available <= 0 && !done) {
    return <p className="muted funds-nothing">{M.nothingToPayOut}.</p>;
  }

  function fail(next: FieldErrors) {
    setErrors(next);
    setFocusFor(next);
  }

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (request.isPending || checking.current) return;
    setDone(null);
    checking.current = true;
    const v = await validateLazy(payoutSchema, { recipientPaypalEmail: email, amount: amountText });
    checking.current = false;
    if (!v) return fail({ form: M.requestFailed });
    const found: FieldErrors = {};
    if (v.errors.recipientPaypalEmail) found.email = v.errors.recipientPaypalEmail;
    if (v.errors.amount || cents === null) found.amount = v.errors.amount ?? M.payoutAmountInvalid;
    else if (cents > Math.round(balance.available * 100)) found.amount = M.payoutExceedsBalance;
    if (!v.ok || cents === null || Object.keys(found).length) return fail(found);
    const fields = { campaignId, recipientPaypalEmail: v.data.recipientPaypalEmail, amount: toMajor(cents) };
    const sent = JSON.stringify(fields);
    const key = attempt.current?.sent === sent ? attempt.current.key : newIdempotencyKey();
    attempt.current = { key, sent };
    setErrors({});
    request.mutate(
      { ...fields, idempotencyKey: key },
      {
        onSuccess(payout) {
          attempt.current = null;
          setDone(payout);
          setAmount(null);
          void utils.payouts.balance.invalidate({ campaignId });
          void utils.payouts.ofCampaign.invalidate({ campaignId });
        },
        onError(err) {
          if (httpStatus(err) !== undefined) attempt.current = null;
          // a refusal may come from a dispute raised since the balance was read: show its hold
          if (httpStatus(err) === 409) void utils.payouts.balance.invalidate({ campaignId });
          const field = httpStatus(err) !== undefined ? FIELD_OF[err.message] : undefined;
          if (field) fail({ [field]: err.message });
          else fail({ form: httpStatus(err) === undefined ? CONNECTION_LOST : errorMessage(err, M.requestFailed) });
        },
      },
    );
  }

  const amountErrorId = `${ids}-amount-error`;
  const previewId = `${ids}-preview`;
  return (
    <form
      ref={formRef}
      className="form payout-form"
      onSubmit={(e) => void onSubmit(e)}
      onFocus={payoutSchema.prefetch}
      onPointerDown={payoutSchema.prefetch}
      noValidate
      aria-labelledby={`${ids}-title`}
    >
      <h3 id={`${ids}-title`}>Request payout</h3>
      <Field
        label="PayPal email"
        type="email"
        name="email"
        autoComplete="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={errors.email}
      />
      <div className="field">
        <div className="field-label">
          <label htmlFor={`${ids}-amount`}>Amount</label>
          <span id={`${ids}-amount-hint`} className="field-hint">
            up to {formatMoney(balance.available, currency)}
          </span>
        </div>
        <div className="input-prefix">
          <span aria-hidden="true">{CURRENCY_SYMBOL[currency]}</span>
          <input
            id={`${ids}-amount`}
            name="amount"
            type="text"
            inputMode="decimal"
            autoComplete="off"
            value={amountText}
            aria-invalid={errors.amount ? true : undefined}
            aria-describedby={[`${ids}-amount-hint`, previewId, errors.amount ? amountErrorId : ''].filter(Boolean).join(' ')}
            onChange={(e) => setAmount(e.target.value)}
          />
        </div>
        <FieldError id={amountErrorId} error={errors.amount} />
      </div>
      <dl id={previewId} className="facts payout-preview" aria-label="Before you request">
        <div>
          <dt>Platform fee</dt>
          <dd>{fee === null ? '–' : formatMoney(toMajor(fee), currency)}</dd>
        </div>
        <div>
          <dt>You receive</dt>
          <dd>{fee === null || cents === null ? '–' : formatMoney(toMajor(cents - fee), currency)}</dd>
        </div>
      </dl>
      <Notice kind="error">{errors.form}</Notice>
      <Notice kind="success">
        {done
          ? `Payout of ${formatMoney(done.gross, done.currency)} requested (${formatMoney(done.net, done.currency)} after the fee). It is pending until an admin approves it.`
          : null}
      </Notice>
      <div className="form-actions">
        <button ref={submitRef} type="submit" className="button" disabled={request.isPending}>
          {request.isPending ? 'Requesting…' : 'Request payout'}
        </button>
      </div>
    </form>
  );
}

function PayoutHistory({ campaignId, isHeld }: { campaignId: string; isHeld: (payoutId: string) => boolean }) {
  /** Why a payout is where it is: the rejection's reason, when it was paid, or that a dispute holds it. */
  const noteOf = (p: PayoutDto) =>
    p.status === 'rejected'
      ? (p.rejectReason ?? DEFAULT_REJECTION_REASON)
      : p.status === 'paid' && p.decidedAt
        ? `Paid ${formatDateTime(p.decidedAt)}`
        : p.status === 'pending' && isHeld(p._id)
          ? 'On hold: disputed'
          : '';
  const list = trpc.payouts.ofCampaign.useInfiniteQuery(campaignPayoutsInput(campaignId), { getNextPageParam: nextPageParam });
  const headingId = useId();
  return (
    <div className="payout-history">
      <h3 id={headingId}>Payouts</h3>
      <PagedTable
        list={list}
        empty={<p className="muted">No payouts yet.</p>}
        labelledBy={headingId}
        className="payouts-table"
        cardHeading={4}
        rowKey={(p) => p._id}
        columns={[
          { label: 'Requested', head: true, headLabel: true, className: 'date-cell', cell: (p) => formatDateTime(p.createdAt) },
          { label: 'Status', cell: (p) => <PayoutStatusBadge status={p.status} /> },
          { label: 'Gross', num: true, cell: (p) => formatMoney(p.gross, p.currency) },
          { label: 'Fee', num: true, cell: (p) => formatMoney(p.platformFee, p.currency) },
          { label: 'Net', num: true, cell: (p) => formatMoney(p.net, p.currency) },
          { label: 'Note', wide: true, className: 'payout-note', cell: (p) => noteOf(p), skip: (p) => !noteOf(p) },
        ]}
      />
    </div>
  );
}
