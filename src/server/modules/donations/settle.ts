import { and, eq, sql } from 'drizzle-orm';
import { alias, type PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { M } from '../../../shared/messages';
import { toMajor } from '../../../shared/money';
import type { Tx } from '../../db/client';
import { campaignDonors, campaigns, donations, ledgerEntries, ledgerGroups, paymentEvents, subscriptions, users } from '../../db/schema';
import { isUuid } from '../../lib/ids';
import { donationTemplates } from '../../mail/donation-templates';
import type { MailMessage } from '../../mail/mailer';
import type { PaymentEvent, PaymentLookup } from '../../payments/port';
import type { DonationsContext } from './context';
import { addMonth, periodOf, type DonationRow } from './dto';
import { donorKeyOf, keepProblem, mismatch } from './reversals';
import type { Facts } from './statements';

/** A provider's event that ends a payment: succeeded or failed. */
export type PaymentOutcomeEvent = Extract<PaymentEvent, { type: 'payment.succeeded' | 'payment.failed' }>;

/**
 * Settling payments: the provider's events applied to donations, the one way a payment becomes
 * succeeded or failed. A payment that succeeded is booked in one of two forms: a pending one-off
 * donation's in one statement with its messages (statements.ts, `bookOneOff`), everything else
 * (a monthly donation's month, and whatever that statement leaves alone) in the general
 * transaction (`applyInTransaction`). booking-forms.test.ts holds the two forms equal: the same
 * events book the same donation rows, payment events, ledger groups and entries, campaign
 * totals, donor rows and emails either way.
 */
export function donationSettlement(ctx: DonationsContext) {
  const { db, config, mailer, log, provider, statements, reversals, receiptLink, chargeFailed, announceCancelled, starting } = ctx;

  /** Books a succeeded payment: one ledger group (provider -x, campaign +x) and the donor's totals, in the caller's transaction. */
  async function book(tx: Tx, d: DonationRow): Promise<void> {
    const [g] = await tx.insert(ledgerGroups).values({ kind: 'donation', donationId: d.id }).returning({ id: ledgerGroups.id });
    await tx.insert(ledgerEntries).values([
      { groupId: g.id, accountType: 'provider', accountId: d.provider, amount: -d.amount, currency: d.currency },
      { groupId: g.id, accountType: 'campaign', accountId: d.campaignId, amount: d.amount, currency: d.currency },
    ]);
    await tx
      .insert(campaignDonors)
      .values({ campaignId: d.campaignId, donorKey: donorKeyOf(d), userId: d.donorId, currency: d.currency, gifts: 1, donated: d.amount })
      .onConflictDoUpdate({
        target: [campaignDonors.campaignId, campaignDonors.donorKey],
        set: { gifts: sql`${campaignDonors.gifts} + 1`, donated: sql`${campaignDonors.donated} + ${d.amount}`, lastGiftAt: sql`now()` },
      });
  }

  /** The messages a booked donation sends: the receipt to the donor (when there is an address), the news to the owner. */
  function successMessages(f: Facts): MailMessage[] {
    const d = f.donation;
    const to = d.donorEmail ?? f.accountEmail;
    const amount = { amount: toMajor(d.amount), currency: d.currency };
    const messages = [
      donationTemplates.newDonation(f.ownerEmail, { ...amount, campaignTitle: f.campaignTitle, link: `${config.appUrl}/campaigns/${d.campaignId}` }),
    ];
    if (to)
      messages.unshift(
        donationTemplates.receipt(to, { ...amount, campaignTitle: f.campaignTitle, monthly: d.recurring, link: f.receiptLink ?? receiptLink(d) }),
      );
    return messages;
  }

  /** The messages of a donation booked by the general path (a monthly donation's month), recorded after its commit. */
  async function announceSuccess(d: DonationRow) {
    // one read for both addresses
    const donor = alias(users, 'donor');
    const [r] = await db
      .select({ campaignTitle: campaigns.title, ownerEmail: users.email, accountEmail: donor.email })
      .from(campaigns)
      .innerJoin(users, eq(users.id, campaigns.ownerId))
      .leftJoin(donor, d.donorId ? eq(donor.id, d.donorId) : sql`false`)
      .where(eq(campaigns.id, d.campaignId));
    if (!r) return;
    try {
      await mailer.sendAll(successMessages({ donation: d, ...r }));
    } catch (err) {
      log.error({ err, kind: 'donation' }, 'could not record an email');
    }
  }

  /**
   * A pending one-off donation's `payment.succeeded`, booked in one statement with its messages
   * (statements.ts); false when that statement booked nothing (seen before, unknown, final, a
   * monthly donation's), which the general path then decides.
   */
  async function bookOneOff(event: Extract<PaymentEvent, { type: 'payment.succeeded' }>): Promise<boolean> {
    const waiting = starting.get(event.donationId);
    const facts = waiting?.facts ?? (await statements.forBooking(event.donationId, provider.name));
    if (!facts) return false;
    const messages = successMessages(facts);
    const booked = await statements.bookOneOff(
      {
        provider: provider.name,
        eventId: event.eventId,
        providerRef: event.providerRef,
        donationId: event.donationId,
        amount: event.amount,
        currency: event.currency,
      },
      { messages, status: mailer.outboxStatus },
    );
    if (!booked) return false;
    if (waiting) waiting.settled = booked.donation;
    // each message with its row (SQL promises no order of RETURNING)
    const rows = booked.outbox.flatMap((r) => {
      const msg = messages.find((m) => m.to === r.to && m.kind === r.kind);
      return msg ? [{ id: r.id, msg }] : [];
    });
    mailer.recorded(rows);
    return true;
  }

  /**
   * Applies a provider event: the only way a payment becomes succeeded or failed, or money comes
   * back from a campaign on the provider's side (reversals.ts). An event seen before, or about a
   * donation that is unknown or no longer pending, changes nothing; one whose amount or currency
   * is not its donation's books nothing and is kept for admins. True when it changed a donation.
   */
  async function applyEvent(event: PaymentEvent): Promise<boolean> {
    if (event.type !== 'payment.succeeded' && event.type !== 'payment.failed') return reversals.apply(event);
    // the common case, a one-off payment that succeeded, in one statement; what it leaves alone
    // (seen before, unknown, final, monthly, failed, mismatched) is decided below
    if (event.type === 'payment.succeeded' && isUuid(event.donationId) && (await bookOneOff(event))) return true;
    return applyInTransaction(event);
  }

  /**
   * A pending donation of this provider settled as `set` says, and the event recorded against it;
   * null when it was not pending (an event arriving after another settled it).
   */
  async function settlePending(tx: Tx, event: PaymentOutcomeEvent, set: PgUpdateSetSource<typeof donations>): Promise<DonationRow | null> {
    const [d] = await tx
      .update(donations)
      .set(set)
      .where(and(eq(donations.id, event.donationId), eq(donations.status, 'pending'), eq(donations.provider, provider.name)))
      .returning();
    if (!d) return null;
    await tx
      .update(paymentEvents)
      .set({ donationId: d.id })
      .where(and(eq(paymentEvents.provider, provider.name), eq(paymentEvents.eventId, event.eventId)));
    return d;
  }

  /**
   * The general path of a payment's event, in one transaction: a succeeded payment is booked
   * (`book`) with its monthly donation's next month, a failed one marked with its reason (a
   * monthly charge then retries or gives up); the messages are recorded after the commit. True
   * when it settled a donation; false for an event seen before, an unknown or already settled
   * donation, or one that does not match its donation (kept for admins).
   */
  async function applyInTransaction(event: PaymentOutcomeEvent): Promise<boolean> {
    const result = await db.transaction(async (tx) => {
      const seen = await tx
        .insert(paymentEvents)
        .values({ provider: provider.name, eventId: event.eventId, type: event.type })
        .onConflictDoNothing()
        .returning({ id: paymentEvents.eventId });
      if (!seen.length || !isUuid(event.donationId)) return null;
      const now = new Date();
      if (event.type === 'payment.succeeded') {
        const [pending] = await tx
          .select()
          .from(donations)
          .where(and(eq(donations.id, event.donationId), eq(donations.status, 'pending'), eq(donations.provider, provider.name)))
          .for('update');
        if (!pending) return null;
        const problem = mismatch(pending, event);
        if (problem) {
          await keepProblem(tx, provider.name, event, pending.id, problem);
          return { kind: 'mismatch' as const, d: pending, problem };
        }
        const d = await settlePending(tx, event, {
          status: 'succeeded',
          // the paid payment's reference, which refunds and chargebacks name (see BOOK_ONE_OFF)
          providerRef: event.providerRef,
          succeededAt: now,
          checkoutUrl: null,
          updatedAt: now,
        });
        if (!d) return null;
        await book(tx, d);
        if (d.subscriptionId) {
          const [sub] = await tx.select().from(subscriptions).where(eq(subscriptions.id, d.subscriptionId)).for('update');
          if (sub) {
            await tx
              .update(subscriptions)
              .set({
                paymentMethodRef: event.paymentMethodRef ?? sub.paymentMethodRef,
                failedAttempts: 0,
                nextRetryAt: null,
                // the month this charge paid for is done: the next one is due a month after it
                nextChargeAt: d.period === periodOf(sub.nextChargeAt) ? addMonth(sub.nextChargeAt) : sub.nextChargeAt,
                updatedAt: now,
              })
              .where(eq(subscriptions.id, sub.id));
          }
        }
        return { kind: 'succeeded' as const, d };
      }
      const d = await settlePending(tx, event, {
        status: 'failed',
        failureMessage: event.message.slice(0, 300),
        providerRef: sql`coalesce(${donations.providerRef}, ${event.providerRef})`,
        checkoutUrl: null,
        updatedAt: now,
      });
      if (!d) return null;
      if (d.subscriptionId) {
        const [sub] = await tx.select().from(subscriptions).where(eq(subscriptions.id, d.subscriptionId)).for('update');
        if (sub?.status === 'active') {
          if (!sub.paymentMethodRef) {
            // the first payment failed: the monthly donation never started
            await tx.update(subscriptions).set({ status: 'cancelled', cancelledAt: now, updatedAt: now }).where(eq(subscriptions.id, sub.id));
          } else if ((await chargeFailed(tx, sub, now)) === 'cancelled') {
            return { kind: 'cancelled' as const, d, sub };
          }
        }
      }
      return { kind: 'failed' as const, d };
    });
    if (result?.kind === 'mismatch') {
      log.warn({ eventId: event.eventId, donationId: result.d.id, problem: result.problem }, 'a payment event does not match its donation: nothing booked');
      return false;
    }
    const waiting = result && starting.get(result.d.id);
    if (waiting) waiting.settled = result.d;
    if (result?.kind === 'succeeded') await announceSuccess(result.d);
    if (result?.kind === 'cancelled') await announceCancelled(result.sub);
    return result !== null;
  }

  /** The event the provider's answer about a payment stands for (the reconciliation's own event id, once per donation). */
  function lookupEvent(d: DonationRow, found: PaymentLookup, giveUp: boolean): PaymentEvent | null {
    const eventId = `reconcile:${d.id}`;
    if (found.status === 'succeeded') return { eventId, type: 'payment.succeeded', donationId: d.id, ...found };
    if (found.status === 'failed') return { eventId, type: 'payment.failed', donationId: d.id, providerRef: found.providerRef, message: found.message };
    if (found.status === 'unknown' || giveUp)
      return { eventId, type: 'payment.failed', donationId: d.id, providerRef: d.providerRef, message: M.paymentNotCompleted };
    return null;
  }

  return { book, successMessages, announceSuccess, bookOneOff, applyEvent, applyInTransaction, lookupEvent };
}

export type DonationSettlement = ReturnType<typeof donationSettlement>;
