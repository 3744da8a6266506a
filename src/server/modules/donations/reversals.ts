import { and, eq, sql } from 'drizzle-orm';
import { toMajor } from '../../../shared/money';
import type { Currency } from '../../../shared/constants';
import type { Tx } from '../../db/client';
import { campaignDonors, campaigns, donations, ledgerEntries, ledgerGroups, paymentEvents, users } from '../../db/schema';
import type { Deps } from '../../deps';
import { isUuid } from '../../lib/ids';
import { donationTemplates } from '../../mail/donation-templates';
import type { MailMessage } from '../../mail/mailer';
import type { PaymentEvent, PaymentProvider } from '../../payments/port';

type DonationRow = typeof donations.$inferSelect;

/** The provider's events that take money back from a campaign (or give it back after a chargeback). */
export type ReversalEvent = Extract<PaymentEvent, { type: 'payment.refunded' | 'chargeback.opened' | 'chargeback.closed' }>;

/** A donor's row in campaign_donors: `u:<account>` or `e:<guest email>`. */
export const donorKeyOf = (d: { donorId: string | null; donorEmail: string | null }) => (d.donorId ? `u:${d.donorId}` : `e:${d.donorEmail}`);

const money = (minor: number, currency: string) => `${toMajor(minor).toFixed(2)} ${currency}`;

/** Why an event that names an amount cannot be its donation's (null when it can). */
export function mismatch(d: DonationRow, e: { amount: number; currency: string }): string | null {
  if (e.currency !== d.currency) return `The event is in ${e.currency}; the donation is ${money(d.amount, d.currency)}.`;
  if (e.amount !== d.amount) return `The event is for ${money(e.amount, e.currency)}; the donation is ${money(d.amount, d.currency)}.`;
  return null;
}

/**
 * An event that books nothing because it does not fit its donation: kept with why (and the
 * amount and currency it named), for admins to look into (`problems`), in the caller's
 * transaction (the event's row was written by it).
 */
export async function keepProblem(
  tx: Tx,
  provider: string,
  event: { eventId: string; amount?: number; refundedTotal?: number; currency?: string },
  donationId: string,
  problem: string,
): Promise<void> {
  await tx
    .update(paymentEvents)
    .set({ problem, donationId, amount: event.amount ?? event.refundedTotal ?? null, currency: event.currency ?? null })
    .where(and(eq(paymentEvents.provider, provider), eq(paymentEvents.eventId, event.eventId)));
}

/** One ledger group and its entries (each sums to zero per currency; the database checks it at commit). */
async function group(
  tx: Tx,
  g: typeof ledgerGroups.$inferInsert,
  entries: { accountType: (typeof ledgerEntries.$inferInsert)['accountType']; accountId: string | null; amount: number }[],
  currency: Currency,
): Promise<void> {
  const [row] = await tx.insert(ledgerGroups).values(g).returning({ id: ledgerGroups.id });
  await tx.insert(ledgerEntries).values(entries.filter((e) => e.amount !== 0).map((e) => ({ ...e, groupId: row.id, currency })));
}

/** What a booked reversal tells the owner and the donor, after its commit. */
type Told =
  | { kind: 'refund'; d: DonationRow; refunded: number; full: boolean }
  | { kind: 'chargeback'; d: DonationRow; stage: 'opened' | 'won' | 'lost'; amount: number; fee: number };

/**
 * Money the provider takes back from a campaign on its own side, booked as the ledger's reversing
 * entries in the same transaction as the donation's change:
 * - a refund (in full or in part, made in the provider's dashboard, or the app's own reported
 *   back): a `refund` group reversing the donation's (campaign -x, provider +x) for what was not
 *   booked yet, so the same refund reported twice moves nothing;
 * - a chargeback opened: a `chargeback` group moves the amount from the campaign to `held`, where
 *   no payout can reach it; won: `chargeback_release` moves it back; lost: `chargeback_loss`
 *   returns it to the provider and takes the provider's dispute fee from the campaign, and the
 *   donation counts as refunded by that amount.
 * An event whose currency, or amount, does not fit its donation books nothing and is kept for
 * admins (keepProblem). The owner and the donor are told by email.
 */
export function createReversals(deps: Deps, opts: { provider: PaymentProvider; receiptLink: (d: DonationRow) => string }) {
  const { db, config, mailer, log } = deps;
  const { provider } = opts;

  /** Why this event cannot be applied to this donation (null when it can). */
  function problemOf(d: DonationRow, e: ReversalEvent): string | null {
    if (e.currency !== d.currency) return `The event is in ${e.currency}; the donation is ${money(d.amount, d.currency)}.`;
    if (d.status === 'pending' || d.status === 'failed') return `The event is about a payment that did not succeed (the donation is ${d.status}).`;
    if (e.type === 'payment.refunded' && e.refundedTotal > d.amount)
      return `The event refunds ${money(e.refundedTotal, e.currency)} in all; the donation is ${money(d.amount, d.currency)}.`;
    if (e.type !== 'payment.refunded' && d.chargeback === null && e.amount > d.amount - d.refundedAmount)
      return `The chargeback is for ${money(e.amount, e.currency)}; ${money(d.amount - d.refundedAmount, d.currency)} of the donation stands.`;
    return null;
  }

  /** The donor's row follows what stands of their gift: `returned` less, and one gift less once nothing stands. */
  async function lessForDonor(tx: Tx, d: DonationRow, returned: number, nothingStands: boolean) {
    await tx
      .update(campaignDonors)
      .set({
        donated: sql`greatest(${campaignDonors.donated} - ${returned}, 0)`,
        ...(nothingStands ? { gifts: sql`greatest(${campaignDonors.gifts} - 1, 0)` } : {}),
      })
      .where(and(eq(campaignDonors.campaignId, d.campaignId), eq(campaignDonors.donorKey, donorKeyOf(d))));
  }

  /** What the donation has under an open chargeback (the `held` entries of its groups). */
  async function heldFor(tx: Tx, d: DonationRow): Promise<number> {
    const [r] = await tx
      .select({ n: sql<string>`coalesce(sum(${ledgerEntries.amount}), 0)` })
      .from(ledgerEntries)
      .innerJoin(ledgerGroups, eq(ledgerGroups.id, ledgerEntries.groupId))
      .where(and(eq(ledgerGroups.donationId, d.id), eq(ledgerEntries.accountType, 'held')));
    return Number(r.n);
  }

  async function hold(tx: Tx, d: DonationRow, e: Extract<ReversalEvent, { type: 'chargeback.opened' | 'chargeback.closed' }>, now: Date) {
    await group(
      tx,
      { kind: 'chargeback', donationId: d.id },
      [
        { accountType: 'campaign', accountId: d.campaignId, amount: -e.amount },
        { accountType: 'held', accountId: d.campaignId, amount: e.amount },
      ],
      d.currency,
    );
    const [after] = await tx
      .update(donations)
      .set({ chargeback: 'open', chargebackRef: e.chargebackRef, updatedAt: now })
      .where(eq(donations.id, d.id))
      .returning();
    return after;
  }

  async function book(tx: Tx, d: DonationRow, e: ReversalEvent): Promise<Told | null> {
    const now = new Date();
    if (e.type === 'payment.refunded') {
      const more = e.refundedTotal - d.refundedAmount;
      // booked already: the app's own refund, or the same refund reported again
      if (more <= 0) return null;
      const [original] = await tx
        .select({ id: ledgerGroups.id })
        .from(ledgerGroups)
        .where(and(eq(ledgerGroups.donationId, d.id), eq(ledgerGroups.kind, 'donation')));
      await group(
        tx,
        { kind: 'refund', donationId: d.id, reversesGroupId: original.id },
        [
          { accountType: 'campaign', accountId: d.campaignId, amount: -more },
          { accountType: 'provider', accountId: d.provider, amount: more },
        ],
        d.currency,
      );
      const full = e.refundedTotal === d.amount;
      const [after] = await tx
        .update(donations)
        .set({
          refundedAmount: e.refundedTotal,
          ...(full ? { status: 'refunded' as const, refundedAt: now, refundReason: d.refundReason ?? 'Refunded through the payment provider' } : {}),
          updatedAt: now,
        })
        .where(eq(donations.id, d.id))
        .returning();
      await lessForDonor(tx, d, more, full);
      return { kind: 'refund', d: after, refunded: more, full };
    }
    if (d.chargeback === 'won' || d.chargeback === 'lost') return null;
    if (e.type === 'chargeback.opened') {
      if (d.chargeback === 'open') return null;
      return { kind: 'chargeback', d: await hold(tx, d, e, now), stage: 'opened', amount: e.amount, fee: 0 };
    }
    // closed: a close that arrives before its opening holds the amount first
    let current = d;
    if (current.chargeback === null) current = await hold(tx, current, e, now);
    const held = await heldFor(tx, current);
    if (e.outcome === 'won') {
      await group(
        tx,
        { kind: 'chargeback_release', donationId: d.id },
        [
          { accountType: 'held', accountId: d.campaignId, amount: -held },
          { accountType: 'campaign', accountId: d.campaignId, amount: held },
        ],
        d.currency,
      );
      const [after] = await tx.update(donations).set({ chargeback: 'won', updatedAt: now }).where(eq(donations.id, d.id)).returning();
      return { kind: 'chargeback', d: after, stage: 'won', amount: held, fee: 0 };
    }
    await group(
      tx,
      { kind: 'chargeback_loss', donationId: d.id },
      [
        { accountType: 'held', accountId: d.campaignId, amount: -held },
        { accountType: 'provider', accountId: d.provider, amount: held },
        { accountType: 'campaign', accountId: d.campaignId, amount: -e.fee },
        { accountType: 'provider', accountId: d.provider, amount: e.fee },
      ],
      d.currency,
    );
    const refundedAmount = Math.min(d.amount, current.refundedAmount + held);
    const full = refundedAmount === d.amount;
    const [after] = await tx
      .update(donations)
      .set({
        chargeback: 'lost',
        refundedAmount,
        ...(full ? { status: 'refunded' as const, refundedAt: now, refundReason: 'Returned to the donor after a chargeback' } : {}),
        updatedAt: now,
      })
      .where(eq(donations.id, d.id))
      .returning();
    await lessForDonor(tx, d, held, full);
    return { kind: 'chargeback', d: after, stage: 'lost', amount: held, fee: e.fee };
  }

  /** The owner's and the donor's messages about a booked reversal. */
  async function tell(t: Told): Promise<void> {
    const [r] = await db
      .select({ title: campaigns.title, ownerEmail: users.email })
      .from(campaigns)
      .innerJoin(users, eq(users.id, campaigns.ownerId))
      .where(eq(campaigns.id, t.d.campaignId));
    if (!r) return;
    let donor = t.d.donorEmail;
    if (!donor && t.d.donorId) {
      const [u] = await db.select({ email: users.email }).from(users).where(eq(users.id, t.d.donorId));
      donor = u?.email ?? null;
    }
    const gift = { amount: toMajor(t.d.amount), currency: t.d.currency, campaignTitle: r.title };
    const campaignLink = `${config.appUrl}/campaigns/${t.d.campaignId}`;
    const messages: MailMessage[] = [];
    if (t.kind === 'refund') {
      messages.push(donationTemplates.ownerRefund(r.ownerEmail, { ...gift, refunded: toMajor(t.refunded), link: campaignLink }));
      if (donor) messages.push(donationTemplates.providerRefund(donor, { ...gift, refunded: toMajor(t.refunded), full: t.full, link: opts.receiptLink(t.d) }));
    } else {
      const news = { ...gift, amount: toMajor(t.amount), stage: t.stage, fee: toMajor(t.fee) };
      messages.push(donationTemplates.chargeback(r.ownerEmail, { ...news, audience: 'owner', link: campaignLink }));
      if (donor) messages.push(donationTemplates.chargeback(donor, { ...news, audience: 'donor', link: opts.receiptLink(t.d) }));
    }
    try {
      await mailer.sendAll(messages);
    } catch (err) {
      log.error({ err, kind: 'reversal' }, 'could not record an email');
    }
  }

  return {
    /** Books a refund or chargeback event once; true when it changed a donation. */
    async apply(e: ReversalEvent): Promise<boolean> {
      const result = await db.transaction(async (tx) => {
        const seen = await tx
          .insert(paymentEvents)
          .values({ provider: provider.name, eventId: e.eventId, type: e.type })
          .onConflictDoNothing()
          .returning({ id: paymentEvents.eventId });
        if (!seen.length) return null;
        // the donation: by its id when the event carries it, else by the provider's payment
        const which = e.donationId && isUuid(e.donationId) ? eq(donations.id, e.donationId) : eq(donations.providerRef, e.providerRef);
        const [d] = await tx
          .select()
          .from(donations)
          .where(and(which, eq(donations.provider, provider.name)))
          .for('update');
        // a payment the app does not know: acknowledged, nothing to book
        if (!d) return null;
        await tx
          .update(paymentEvents)
          .set({ donationId: d.id })
          .where(and(eq(paymentEvents.provider, provider.name), eq(paymentEvents.eventId, e.eventId)));
        const problem = problemOf(d, e);
        if (problem) {
          await keepProblem(tx, provider.name, e, d.id, problem);
          return { kind: 'problem' as const, problem, d };
        }
        return { kind: 'booked' as const, told: await book(tx, d, e) };
      });
      if (!result) return false;
      if (result.kind === 'problem') {
        log.warn(
          { eventId: e.eventId, type: e.type, donationId: result.d.id, problem: result.problem },
          'a payment event does not match its donation: nothing booked',
        );
        return false;
      }
      if (result.told) await tell(result.told);
      return true;
    },
  };
}

export type Reversals = ReturnType<typeof createReversals>;
