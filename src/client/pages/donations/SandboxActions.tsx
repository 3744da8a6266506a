import { useId, useRef, useState, type FormEvent, type Ref } from 'react';
import { M } from '../../../shared/messages';
import { CURRENCY_SYMBOL, formatMoney, toMajor } from '../../../shared/money';
import type { ReceiptDto, SandboxSimulation } from '../../../shared/schemas/donations';
import { FieldError } from '../../components/Field';
import { Notice } from '../../components/Notice';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';

/** A receipt's amount in cents, and what still stands of it (neither refunded nor returned). */
export const cents = (major: number) => Math.round(major * 100);
export const standingCents = (r: Pick<ReceiptDto, 'amount' | 'refund'>) => cents(r.amount) - cents(r.refund?.amount ?? 0);

/** '12.5' -> 1250; null unless a number with at most 2 decimals. */
function centsOf(text: string): number | null {
  const t = text.trim();
  if (!/^\d+(\.\d{0,2})?$/.test(t)) return null;
  const [whole, frac = ''] = t.split('.');
  const n = Number(whole) * 100 + Number(frac.padEnd(2, '0'));
  return Number.isSafeInteger(n) ? n : null;
}

/** Whether an admin may make the sandbox act on this receipt: a payment that stands, or a chargeback still open. */
export const sandboxApplies = (r: ReceiptDto) => r.status === 'succeeded' || r.chargeback === 'open';

/** What the processor did, as the page says it after the receipt came back (before and after the simulation). */
export function simulationOutcome(before: ReceiptDto, after: ReceiptDto): string | null {
  const refunded = cents(after.refund?.amount ?? 0) - cents(before.refund?.amount ?? 0);
  if (after.chargeback !== before.chargeback) {
    if (after.chargeback === 'open') return 'The processor opened a chargeback: the amount is held until it ends.';
    if (after.chargeback === 'won') return 'The chargeback was won: the amount is back in the campaign.';
    if (after.chargeback === 'lost') return 'The chargeback was lost: the amount went back to the donor, and the processor took its dispute fee.';
  }
  if (refunded > 0) return `The processor refunded ${formatMoney(toMajor(refunded), after.currency)}.`;
  return null;
}

/**
 * "Sandbox: what the card processor does", for admins while the built-in sandbox takes the
 * payments: the processor refunds the donation (all that stands, or the amount typed), or opens a
 * chargeback; an open one is won or lost. Each sends the sandbox's signed event, booked like a real
 * processor's; the page then shows the receipt that comes back.
 */
export function SandboxActions({
  receipt: r,
  headingRef,
  onDone,
}: {
  receipt: ReceiptDto;
  headingRef: Ref<HTMLHeadingElement>;
  /** The receipt after the simulation, and as it was when the admin asked for it. */
  onDone(after: ReceiptDto, before: ReceiptDto): void;
}) {
  const ids = useId();
  const utils = trpc.useUtils();
  const [amount, setAmount] = useState('');
  const [amountError, setAmountError] = useState<string | undefined>();
  const amountRef = useRef<HTMLInputElement>(null);
  /** The receipt as it was when the admin pressed (a refetch meanwhile must not hide what changed). */
  const beforeRef = useRef(r);
  const simulate = trpc.donations.simulate.useMutation({
    onSuccess(after) {
      setAmount('');
      void utils.donations.receipt.invalidate({ id: after._id });
      void utils.payouts.balance.invalidate({ campaignId: after.campaign._id });
      void utils.donations.ofCampaign.invalidate({ campaignId: after.campaign._id });
      void utils.donations.paymentProblems.invalidate();
      void utils.campaigns.invalidate();
      void utils.users.campaigns.invalidate();
      onDone(after, beforeRef.current);
    },
  });
  const stands = standingCents(r);
  const canRefund = r.status === 'succeeded' && r.chargeback !== 'open' && stands > 0;

  function run(action: SandboxSimulation, amountMajor?: number) {
    if (simulate.isPending) return;
    beforeRef.current = r;
    simulate.mutate({ id: r._id, action, ...(amountMajor === undefined ? {} : { amount: amountMajor }) });
  }

  function onRefund(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    let part: number | undefined;
    if (amount.trim() !== '') {
      const n = centsOf(amount);
      const error =
        n === null
          ? M.donationAmountInvalid
          : n < 100
            ? 'Enter at least 1.00, or leave it empty to refund everything that stands.'
            : n > stands
              ? `At most ${formatMoney(toMajor(stands), r.currency)} of this donation stands.`
              : undefined;
      setAmountError(error);
      if (error || n === null) {
        amountRef.current?.focus();
        return;
      }
      part = toMajor(n);
    } else setAmountError(undefined);
    run('refund', part);
  }

  const hintId = `${ids}-hint`;
  const errorId = `${ids}-error`;
  return (
    <section className="card receipt-sandbox" aria-labelledby={`${ids}-title`} aria-busy={simulate.isPending || undefined}>
      <h2 id={`${ids}-title`} ref={headingRef} tabIndex={-1}>
        Sandbox: what the card processor does
      </h2>
      <p className="muted">Test mode: the built-in processor sends the event a real one would, and it is booked the same way. Only admins see this.</p>
      {canRefund && (
        <form className="sandbox-refund" onSubmit={onRefund} noValidate aria-label="Refund from the processor">
          <div className="field">
            <div className="field-label">
              <label htmlFor={`${ids}-amount`}>Amount to refund</label>
              <span id={hintId} className="field-hint">
                optional: empty refunds all that stands, {formatMoney(toMajor(stands), r.currency)}
              </span>
            </div>
            <div className="input-prefix">
              <span aria-hidden="true">{CURRENCY_SYMBOL[r.currency]}</span>
              <input
                ref={amountRef}
                id={`${ids}-amount`}
                name="amount"
                type="text"
                inputMode="decimal"
                autoComplete="off"
                value={amount}
                aria-invalid={amountError ? true : undefined}
                aria-describedby={amountError ? `${hintId} ${errorId}` : hintId}
                onChange={(e) => setAmount(e.target.value)}
              />
            </div>
            <FieldError id={errorId} error={amountError} />
          </div>
          <div>
            <button type="submit" className="button button-secondary">
              Refund from the processor
            </button>
          </div>
        </form>
      )}
      {(r.chargeback === null || r.chargeback === 'open') && (
        <div className="button-row">
          {r.chargeback === null && r.status === 'succeeded' && (
            <button type="button" className="button button-secondary" onClick={() => run('chargeback')}>
              Open a chargeback
            </button>
          )}
          {r.chargeback === 'open' && (
            <>
              <button type="button" className="button button-secondary" onClick={() => run('chargeback_won')}>
                Chargeback won
              </button>
              <button type="button" className="button button-secondary" onClick={() => run('chargeback_lost')}>
                Chargeback lost
              </button>
            </>
          )}
        </div>
      )}
      {simulate.isPending && <p className="muted">Sending the processor’s event…</p>}
      <Notice kind="error">{simulate.isError ? errorMessage(simulate.error, M.requestFailed) : null}</Notice>
    </section>
  );
}
