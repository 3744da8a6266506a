import { and, eq } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import { donations, subscriptions } from '../../db/schema';
import { PaymentProviderError, type PaymentLookup } from '../../payments/port';
import type { DonationsContext } from './context';
import type { DonationRow } from './dto';
import type { DonationSettlement } from './settle';
import type { Facts } from './statements';

/** Starting a donation's payment with the provider, and resuming one whose process died on the way. */
export function paymentStarts(ctx: DonationsContext, settle: DonationSettlement) {
  const { db, config, log, provider, statements, receiptLink, campaignTitle, starting } = ctx;
  const { applyEvent, lookupEvent } = settle;

  /**
   * Starts the provider's payment for a new pending donation; a refusal marks it failed. `facts`
   * (a one-off donation's, from its insert) are what the booking's messages need.
   */
  async function startPayment(
    d: DonationRow,
    p: { card?: string; email: string; campaignTitle: string; receiptLink?: string },
    facts?: Facts,
  ): Promise<DonationRow> {
    const entry: { facts?: Facts; settled?: DonationRow } = { facts };
    starting.set(d.id, entry);
    try {
      const started = await provider.startPayment({
        donationId: d.id,
        amount: d.amount,
        currency: d.currency,
        card: p.card,
        saveForLater: d.recurring,
        email: p.email,
        campaignTitle: p.campaignTitle,
        successUrl: p.receiptLink ?? receiptLink(d),
        cancelUrl: `${config.appUrl}/campaigns/${d.campaignId}`,
        idempotencyKey: `donation:${d.id}`,
      });
      // settled by the provider's event while it was asked: no longer pending, so storing the
      // reference would write nothing, and the row is the one the event's statement answered
      if (entry.settled) return entry.settled;
      return await statements.started(d.id, started.providerRef, started.kind === 'redirect' ? started.checkoutUrl : null);
    } catch (err) {
      const message = err instanceof PaymentProviderError ? err.message : M.paymentFailed;
      if (!(err instanceof PaymentProviderError)) log.error({ err, donationId: d.id }, 'payment provider failed to start a payment');
      await db
        .update(donations)
        .set({ status: 'failed', failureMessage: message, updatedAt: new Date() })
        .where(and(eq(donations.id, d.id), eq(donations.status, 'pending')));
      if (d.subscriptionId) {
        await db
          .update(subscriptions)
          .set({ status: 'cancelled', cancelledAt: new Date(), updatedAt: new Date() })
          .where(and(eq(subscriptions.id, d.subscriptionId), eq(subscriptions.status, 'active')));
      }
    } finally {
      starting.delete(d.id);
    }
    const [after] = await db.select().from(donations).where(eq(donations.id, d.id));
    return after;
  }

  /**
   * A pending donation met again by a retry of the request that made it, while no request of this
   * process is starting its payment: its process may have died before the provider was asked, or
   * before the provider's event was applied. The provider is asked: a payment it settled is
   * applied as its event would have been, one it never saw is started again (under the same
   * provider key, `donation:<id>`, so the provider makes one payment of both), one still under
   * way is left to its event.
   */
  async function resume(d: DonationRow, p: { card?: string; email: string }): Promise<DonationRow> {
    if (d.status !== 'pending' || starting.has(d.id) || d.provider !== provider.name) return d;
    let found: PaymentLookup;
    try {
      found = await provider.lookupPayment({ donationId: d.id, providerRef: d.providerRef, createdAt: d.createdAt });
    } catch (err) {
      log.warn({ err, donationId: d.id }, 'could not ask the payment provider about a pending donation');
      return d;
    }
    if (found.status === 'unknown') {
      const { title } = await campaignTitle(d.campaignId);
      return startPayment(d, { card: p.card, email: p.email, campaignTitle: title });
    }
    const event = lookupEvent(d, found, false);
    if (event) await applyEvent(event);
    const [after] = await db.select().from(donations).where(eq(donations.id, d.id));
    return after;
  }

  return { startPayment, resume };
}

export type PaymentStarts = ReturnType<typeof paymentStarts>;
