import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import { toMajor, toMinor } from '../../../shared/money';
import { isAdmin } from '../../../shared/roles';
import {
  DONATION_MAX,
  DONATION_MIN,
  DONATION_PRESETS,
  TEST_CARDS,
  type CampaignDonationDto,
  type CampaignDonationsQuery,
  type DonateFields,
  type DonationDto,
  type PaymentInfoDto,
  type PaymentProblemDto,
  type PaymentProblemsQuery,
  type ReceiptDto,
  type SandboxSimulateInput,
  type RefundInput,
  type SubscriptionDto,
  type SubscriptionsQuery,
  type SupportedQuery,
} from '../../../shared/schemas/donations';
import type { CampaignDto } from '../../../shared/schemas/campaigns';
import { createHmac, randomUUID } from 'node:crypto';
import { sha256Hex, equalHex } from '../../auth/crypto';
import type { Tx } from '../../db/client';
import { campaignDonors, campaigns, supports, donations, ledgerEntries, ledgerGroups, paymentEvents, payouts, subscriptions, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { AppError, badRequest, conflict, forbidden, isUniqueViolation, notFound, unauthorized } from '../../lib/errors';
import { recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { campaignMoney } from '../../lib/balances';
import { clientKey, serverKey } from '../../lib/idempotency';
import { isPast, visibleCampaign } from '../../lib/campaign-access';
import { canSeeAdult } from '../../lib/items';
import { csvDocument, csvFilename } from '../../lib/csv';
import { afterCursor, pageOf, readCursor } from '../../lib/listing';
import { donationTemplates } from '../../mail/donation-templates';
import type { MailMessage } from '../../mail/mailer';
import { isSandbox } from '../../payments/sandbox';
import {
  PaymentProviderError,
  WebhookPayloadError,
  WebhookSignatureError,
  type ChargeResult,
  type PaymentEvent,
  type PaymentLookup,
  type PaymentProvider,
} from '../../payments/port';
import { requireAdmin, requireUser } from '../auth/service';
import type { CampaignsService } from '../campaigns/service';
import { createReversals, donorKeyOf, keepProblem, mismatch } from './reversals';
import { donationStatements, type Facts } from './statements';

type Out<T extends z.ZodType> = z.output<T>;
type DonationRow = typeof donations.$inferSelect;
type SubscriptionRow = typeof subscriptions.$inferSelect;

/** Days until a failed monthly charge is tried again: 2 after the first two failures, 5 from the third on. */
export function retryDelayDays(failedAttempts: number): number {
  return failedAttempts >= 3 ? 5 : 2;
}
/** The failed charges in a row after which a monthly donation is cancelled. */
export const MAX_FAILED_CHARGES = 6;
/** The most batches of due monthly donations (or pending ones) one run reads (a bound, far above any backlog). */
const MAX_CHARGE_BATCHES = 10_000;
/** A payment the provider still calls under way this long after the donation was made is given up (a checkout page lasts a day). */
const GIVE_UP_PENDING_MS = 2 * 24 * 60 * 60 * 1000;
/** The reconciliation reads pending donations made in this window (older ones were asked about by earlier runs). */
const RECONCILE_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/** The same day of the next month (the 31st becomes the month's last day). */
export function addMonth(d: Date): Date {
  const next = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
  const last = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  next.setUTCDate(Math.min(d.getUTCDate(), last));
  return next;
}

/**
 * The digest of a donation request (who, campaign, amount in minor units, monthly, card): the same
 * Idempotency-Key with another request is refused.
 */
export function donationRequestHash(r: { donor: string; campaignId: string; amount: number; monthly: boolean; card?: string }): string {
  return sha256Hex(JSON.stringify([r.donor, r.campaignId, r.amount, r.monthly, r.card ?? null]));
}

/** '2026-11': the month a charge pays for. */
export function periodOf(d: Date): string {
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** A campaign that takes no donations: 403 when it only takes supporters, 409 once its date has passed (as the API document says). */
function refuseUnlessTakingDonations(c: { actionMode: string; past: boolean }): void {
  if (c.actionMode === 'support') throw forbidden(M.donationsNotAccepted);
  if (c.past) throw conflict(M.campaignPast);
}

function toDonationDto(d: DonationRow, receiptUrl: string): DonationDto {
  return {
    receiptUrl,
    _id: d.id,
    campaignId: d.campaignId,
    amount: toMajor(d.amount),
    currency: d.currency,
    status: d.status,
    monthly: d.recurring,
    createdAt: d.createdAt,
    ...(d.checkoutUrl && d.status === 'pending' ? { checkoutUrl: d.checkoutUrl } : {}),
  };
}

/**
 * The secret of a donation's receipt link: an HMAC of its id under the app's receipt key, so a
 * guest (who has no account to sign in with) can read their receipt from the email, and nothing
 * about the link is stored.
 */
export function receiptToken(key: Buffer, donationId: string): string {
  return createHmac('sha256', key).update(`receipt:${donationId}`).digest('base64url').slice(0, 32);
}

export function createDonationsService(deps: Deps, opts: { provider: PaymentProvider; receiptKey: Buffer; campaigns: CampaignsService }) {
  const { db, config, mailer, log } = deps;
  const { provider, receiptKey } = opts;
  const tokenOf = (id: string) => receiptToken(receiptKey, id);

  const visible = (actor: Actor, id: string) => visibleCampaign(db, actor, id);
  const statements = donationStatements(db);

  /** The address a donor's messages go to. */
  async function donorEmail(d: { donorId: string | null; donorEmail: string | null }): Promise<string | null> {
    if (d.donorEmail) return d.donorEmail;
    if (!d.donorId) return null;
    const [u] = await db.select({ email: users.email }).from(users).where(eq(users.id, d.donorId));
    return u?.email ?? null;
  }

  /** The receipt page; a guest's link carries the receipt secret. */
  const receiptLink = (d: { id: string; donorId: string | null }) => `${config.appUrl}/donations/${d.id}${d.donorId ? '' : `?token=${tokenOf(d.id)}`}`;

  const reversals = createReversals(deps, { provider, receiptLink });

  /** The answer to a donation request: the donation, or a 402 with the provider's reason when it failed. */
  function answer(d: DonationRow, link = receiptLink(d)): DonationDto {
    if (d.status === 'failed') throw new AppError('PAYMENT_REQUIRED', d.failureMessage ?? M.cardDeclined);
    return toDonationDto(d, link.slice(config.appUrl.length));
  }

  /** Email that must not fail the money change it reports (it is in the outbox either way). */
  async function sendQuietly(msg: Parameters<typeof mailer.send>[0]) {
    try {
      await mailer.send(msg);
    } catch (err) {
      log.error({ err, kind: msg.kind }, 'could not record an email');
    }
  }

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

  /** After a failed charge of a monthly donation's later month: try again later, or give up after MAX_FAILED_CHARGES. */
  async function chargeFailed(tx: Tx, sub: SubscriptionRow, now: Date): Promise<'retry' | 'cancelled'> {
    const failed = sub.failedAttempts + 1;
    if (failed >= MAX_FAILED_CHARGES) {
      await tx
        .update(subscriptions)
        .set({ failedAttempts: failed, status: 'cancelled', cancelledAt: now, nextRetryAt: null, updatedAt: now })
        .where(eq(subscriptions.id, sub.id));
      return 'cancelled';
    }
    await tx
      .update(subscriptions)
      .set({ failedAttempts: failed, nextRetryAt: new Date(now.getTime() + retryDelayDays(failed) * DAY_MS), updatedAt: now })
      .where(eq(subscriptions.id, sub.id));
    return 'retry';
  }

  async function campaignTitle(id: string): Promise<{ title: string; ownerId: string }> {
    const [c] = await db.select({ title: campaigns.title, ownerId: campaigns.ownerId }).from(campaigns).where(eq(campaigns.id, id));
    return c;
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
   * The one-off payments this process is starting (startPayment), by donation: what their
   * messages need, known from the request's own insert, and what the provider's event made of
   * the donation when it arrives while the provider is being asked (the sandbox delivers its
   * signed event in process before it answers): the request answers with that row instead of
   * reading it again. An entry lives only while its provider call does.
   */
  const starting = new Map<string, { facts?: Facts; settled?: DonationRow }>();

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

  /** What a monthly donation that stops sends: after its charges failed, or when its campaign has taken place (`ended`). */
  async function announceCancelled(sub: SubscriptionRow, why: 'failed' | 'ended' = 'failed') {
    const c = await campaignTitle(sub.campaignId);
    const to = await donorEmail({ donorId: sub.donorId, donorEmail: null });
    if (to)
      await sendQuietly(
        donationTemplates[why === 'ended' ? 'monthlyEnded' : 'monthlyCancelled'](to, {
          amount: toMajor(sub.amount),
          currency: sub.currency,
          campaignTitle: c.title,
          link: `${config.appUrl}/my?tab=supported`,
        }),
      );
  }

  /**
   * Applies a provider event: the only way a payment becomes succeeded or failed, or money comes
   * back from a campaign on the provider's side (reversals.ts). An event seen before, or about a
   * donation that is unknown or no longer pending, changes nothing; one whose amount or currency
   * is not its donation's books nothing and is kept for admins.
   */
  async function applyEvent(event: PaymentEvent): Promise<void> {
    if (event.type !== 'payment.succeeded' && event.type !== 'payment.failed') return reversals.apply(event);
    // the common case, a one-off payment that succeeded, in one statement; what it leaves alone
    // (seen before, unknown, final, monthly, failed, mismatched) is decided below
    if (event.type === 'payment.succeeded' && isUuid(event.donationId) && (await bookOneOff(event))) return;
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
        const [d] = await tx
          .update(donations)
          .set({
            status: 'succeeded',
            // the paid payment's reference, which refunds and chargebacks name (see BOOK_ONE_OFF)
            providerRef: event.providerRef,
            succeededAt: now,
            checkoutUrl: null,
            updatedAt: now,
          })
          .where(and(eq(donations.id, event.donationId), eq(donations.status, 'pending'), eq(donations.provider, provider.name)))
          .returning();
        if (!d) return null;
        await tx
          .update(paymentEvents)
          .set({ donationId: d.id })
          .where(and(eq(paymentEvents.provider, provider.name), eq(paymentEvents.eventId, event.eventId)));
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
      const [d] = await tx
        .update(donations)
        .set({
          status: 'failed',
          failureMessage: event.message.slice(0, 300),
          providerRef: sql`coalesce(${donations.providerRef}, ${event.providerRef})`,
          checkoutUrl: null,
          updatedAt: now,
        })
        .where(and(eq(donations.id, event.donationId), eq(donations.status, 'pending'), eq(donations.provider, provider.name)))
        .returning();
      if (!d) return null;
      await tx
        .update(paymentEvents)
        .set({ donationId: d.id })
        .where(and(eq(paymentEvents.provider, provider.name), eq(paymentEvents.eventId, event.eventId)));
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
      return;
    }
    const waiting = result && starting.get(result.d.id);
    if (waiting) waiting.settled = result.d;
    if (result?.kind === 'succeeded') await announceSuccess(result.d);
    if (result?.kind === 'cancelled') await announceCancelled(result.sub);
  }

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

  async function pendingPayouts(tx: Tx, campaignId: string, currency: string): Promise<number> {
    const [r] = await tx
      .select({ n: sql<string>`coalesce(sum(${payouts.gross}), 0)` })
      .from(payouts)
      .where(and(eq(payouts.campaignId, campaignId), eq(payouts.status, 'pending'), sql`${payouts.currency} = ${currency}`));
    return Number(r.n);
  }

  /**
   * A monthly donation: its subscription and its first month, together, then the first payment.
   * The same key with the same request answers the first answer again.
   */
  async function donateMonthly(
    actor: Actor,
    campaign: { id: string; currency: DonationRow['currency']; title: string },
    p: { amount: number; card?: string; idempotencyKey: string; requestHash: string; existing: () => Promise<DonationRow | null> },
  ): Promise<DonationRow> {
    const user = actor.user!;
    const replay = await p.existing();
    if (replay) return replay;
    await deps.limiter.payment(actor);
    const now = new Date();
    let created: DonationRow;
    try {
      created = await db.transaction(async (tx) => {
        const [sub] = await tx
          .insert(subscriptions)
          .values({ campaignId: campaign.id, donorId: user.id, amount: p.amount, currency: campaign.currency, provider: provider.name, nextChargeAt: now })
          .returning({ id: subscriptions.id });
        await recordChange(tx, {
          modelName: 'Subscription',
          action: 'create',
          key: sub.id,
          fields: ['amount', 'currency', 'campaignId'],
          actorId: user.id,
        });
        const [d] = await tx
          .insert(donations)
          .values({
            campaignId: campaign.id,
            donorId: user.id,
            amount: p.amount,
            currency: campaign.currency,
            provider: provider.name,
            idempotencyKey: p.idempotencyKey,
            requestHash: p.requestHash,
            recurring: true,
            subscriptionId: sub.id,
            period: periodOf(now),
          })
          .returning();
        return d;
      });
    } catch (err) {
      // the same key raced in from another request: answer as that one does
      if (isUniqueViolation(err, 'donations_idempotency_key')) {
        const d = await p.existing();
        if (d) return d;
      }
      throw err;
    }
    return startPayment(created, { card: p.card, email: user.email, campaignTitle: campaign.title });
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

  const service = {
    /** What the Donate panel needs to know about the payment provider. */
    info(): PaymentInfoDto {
      return {
        provider: provider.name,
        testMode: provider.testMode,
        cardInApp: provider.collectsCardInApp,
        testCards: provider.name === 'sandbox' ? { ...TEST_CARDS } : null,
        presets: [...DONATION_PRESETS],
        min: DONATION_MIN,
        max: DONATION_MAX,
      };
    },

    /**
     * A donation to a campaign that takes them. The same idempotency key with the same request
     * answers the first answer again; with another request it is a 409. The payment is started
     * after the pending donation is stored, and the provider's event decides how it ends.
     */
    async donate(actor: Actor, campaignId: string, input: Out<typeof DonateFields>, idempotencyKey: string): Promise<DonationDto> {
      const user = actor.user;
      const guestEmail = user ? null : (input.email?.toLowerCase() ?? null);
      // what the request itself gets wrong, in the order it is answered (after the campaign's refusals)
      let refusal: AppError | null = null;
      let card: string | undefined;
      if (input.monthly && !user) refusal = unauthorized(M.monthlyNeedsAccount);
      // paying signed in needs a verified email (a guest's email gets the receipt): throwaway accounts try no cards
      else if (user && !user.emailVerifiedAt) refusal = forbidden(M.verifyBeforeDonating);
      else if (!user && !guestEmail) refusal = badRequest(M.guestEmailRequired);
      else if (provider.collectsCardInApp) {
        const problem = input.card ? provider.checkCard?.(input.card) : M.cardRequired;
        if (problem) refusal = badRequest(problem);
        else card = input.card;
      }
      /** The campaign's own refusals, answered before anything else: 404 unknown or hidden, 403 when it takes no donations, 409 once its date has passed. */
      const campaignTakingDonations = async () => {
        const campaign = await visible(actor, campaignId);
        refuseUnlessTakingDonations({ actionMode: campaign.actionMode, past: isPast(campaign.executionDate) });
        return campaign;
      };
      if (refusal) {
        await campaignTakingDonations();
        throw refusal;
      }
      if (!isUuid(campaignId)) throw notFound(M.campaignNotFound);
      // the id as PostgreSQL writes it, so that a retry's hash does not depend on the URL's case
      const id = campaignId.toLowerCase();
      const amount = toMinor(input.amount);
      const requestHash = donationRequestHash({ donor: user ? `u:${user.id}` : `e:${guestEmail}`, campaignId: id, amount, monthly: input.monthly, card });
      // the key as stored: kept for this donor (or guest), apart from every other's and the server's own
      const key = clientKey(user ? { userId: user.id } : { guestEmail: guestEmail! }, idempotencyKey);

      const existing = async () => {
        const [d] = await db.select().from(donations).where(eq(donations.idempotencyKey, key));
        if (!d) return null;
        if (!equalHex(d.requestHash, requestHash)) throw conflict(M.idempotencyKeyReused);
        // a retry of a request whose process died before the payment went through completes it
        return resume(d, { card, email: guestEmail ?? user!.email });
      };
      if (input.monthly)
        return answer(await donateMonthly(actor, await campaignTakingDonations(), { amount, card, idempotencyKey: key, requestHash, existing }));

      // a one-off donation is one statement with the read of its campaign (statements.ts), which
      // leaves a key already taken alone: then the answer is that donation's (or the 409 when the
      // request differs)
      try {
        await deps.limiter.payment(actor);
      } catch (err) {
        // the campaign's refusals first; a retry of a donation made before the budget ran out still gets its answer
        await campaignTakingDonations();
        const replay = await existing();
        if (replay) return answer(replay);
        throw err;
      }
      const donationId = randomUUID();
      const inserted = await statements.insertPending({
        id: donationId,
        providerRef: provider.paymentRefFor?.(donationId) ?? null,
        asyncCommit: provider.inProcess === true,
        campaignId: id,
        adult: canSeeAdult(actor),
        donorId: user?.id ?? null,
        donorEmail: guestEmail,
        amount,
        provider: provider.name,
        idempotencyKey: key,
        requestHash,
      });
      if (!inserted) throw notFound(M.campaignNotFound);
      refuseUnlessTakingDonations(inserted);
      if (!inserted.donation) {
        const replay = await existing();
        if (!replay) throw new Error('a donation idempotency key is taken, but no donation holds it');
        return answer(replay);
      }
      // the receipt link (an HMAC for a guest's) once: the provider's return page, the receipt email and the answer carry it
      const link = receiptLink(inserted.donation);
      const facts: Facts = {
        donation: inserted.donation,
        campaignTitle: inserted.title,
        ownerEmail: inserted.ownerEmail,
        accountEmail: user?.email ?? null,
        receiptLink: link,
      };
      const after = await startPayment(inserted.donation, { card, email: guestEmail ?? user!.email, campaignTitle: inserted.title, receiptLink: link }, facts);
      return answer(after, link);
    },

    /**
     * A webhook request from the provider named in its path: checked against the provider's
     * signature, then applied once. Unknown, repeated and already-final payments are
     * acknowledged without change.
     */
    async receiveWebhook(providerName: string, rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<{ received: true }> {
      if (providerName !== provider.name) throw notFound(M.paymentProviderUnknown);
      let event: PaymentEvent | null;
      try {
        event = await provider.parseWebhook(rawBody, headers);
      } catch (err) {
        // refused with one line each: a provider retries a 5xx for days, a 400 it does not
        if (err instanceof WebhookSignatureError) {
          log.warn({ provider: providerName, reason: err.message }, 'payment webhook refused: bad signature');
          throw badRequest(M.invalidWebhookSignature);
        }
        if (err instanceof WebhookPayloadError) {
          log.warn({ provider: providerName, reason: err.message }, 'payment webhook refused: malformed event');
          throw badRequest(M.invalidWebhookPayload);
        }
        throw err;
      }
      if (event) await applyEvent(event);
      return { received: true };
    },

    /** Provider events that booked nothing because they did not fit their donation, newest first: admins only. */
    async paymentProblems(actor: Actor, query: Out<typeof PaymentProblemsQuery>): Promise<{ items: PaymentProblemDto[]; nextCursor: string | null }> {
      requireAdmin(actor);
      const cursor = readCursor(query.cursor);
      const rows = await db
        .select()
        .from(paymentEvents)
        .where(
          and(
            sql`${paymentEvents.problem} is not null`,
            cursor ? sql`(${paymentEvents.receivedAt}, ${paymentEvents.eventId}) < (${cursor.t}::timestamptz, ${cursor.id})` : undefined,
          ),
        )
        .orderBy(desc(paymentEvents.receivedAt), desc(paymentEvents.eventId))
        .limit(query.limit + 1);
      const { page, nextCursor } = pageOf(rows, query.limit, (r) => ({ createdAt: r.receivedAt, id: r.eventId }));
      return {
        items: page.map((r) => ({
          provider: r.provider,
          eventId: r.eventId,
          type: r.type,
          donationId: r.donationId,
          problem: r.problem ?? '',
          amount: r.amount === null ? null : toMajor(r.amount),
          currency: r.currency,
          receivedAt: r.receivedAt,
        })),
        nextCursor,
      };
    },

    /**
     * An admin has the built-in sandbox's processor refund a succeeded donation (in part with
     * `amount`) or open, win or lose a chargeback on it, as a real processor does on its own side;
     * the signed event it sends back is applied like any provider's. Answers the receipt after.
     */
    async simulate(actor: Actor, id: string, input: Out<typeof SandboxSimulateInput>): Promise<ReceiptDto> {
      requireAdmin(actor);
      if (!isSandbox(provider)) throw notFound(M.sandboxOnly);
      if (!isUuid(id)) throw notFound(M.donationNotFound);
      const [d] = await db.select().from(donations).where(eq(donations.id, id));
      if (!d || d.provider !== provider.name) throw notFound(M.donationNotFound);
      if (!d.providerRef || (d.status !== 'succeeded' && d.status !== 'refunded')) throw conflict(M.refundNotPossible);
      const part = input.amount === undefined ? undefined : toMinor(input.amount);
      await provider.simulate({
        action: input.action,
        donationId: d.id,
        providerRef: d.providerRef,
        currency: d.currency,
        // a chargeback is for what still stands of the donation
        amount: input.action === 'refund' ? d.amount : (part ?? d.amount - d.refundedAmount),
        refundedTotal: input.action === 'refund' ? d.refundedAmount + (part ?? d.amount - d.refundedAmount) : undefined,
      });
      return service.receipt(actor, id);
    },

    /** The receipt: for the donor, the campaign's owner, admins, and whoever holds the guest's receipt link. */
    async receipt(actor: Actor, id: string, token?: string): Promise<ReceiptDto> {
      if (!isUuid(id)) throw notFound(M.donationNotFound);
      const [row] = await db
        .select({ d: donations, title: campaigns.title, ownerId: campaigns.ownerId })
        .from(donations)
        .innerJoin(campaigns, eq(campaigns.id, donations.campaignId))
        .where(eq(donations.id, id));
      if (!row) throw notFound(M.donationNotFound);
      const { d } = row;
      const owner = actor.user?.id === row.ownerId || isAdmin(actor.user);
      const donor = (actor.user && d.donorId === actor.user.id) || (!!token && !d.donorId && equalHex(token, tokenOf(d.id)));
      if (!owner && !donor) throw notFound(M.donationNotFound);
      return {
        _id: d.id,
        amount: toMajor(d.amount),
        currency: d.currency,
        status: d.status,
        campaign: { _id: d.campaignId, title: row.title },
        date: d.succeededAt ?? d.createdAt,
        monthly: d.recurring,
        failureMessage: d.status === 'failed' ? d.failureMessage : null,
        refund: d.refundedAmount > 0 ? { amount: toMajor(d.refundedAmount), date: d.refundedAt ?? d.updatedAt } : null,
        chargeback: d.chargeback,
        canRefund: owner && d.status === 'succeeded' && d.chargeback !== 'open',
      };
    },

    /**
     * A full refund by the campaign's owner or an admin, once: a ledger group reversing the
     * donation's, written with the status change. The campaign row is locked while the available
     * balance (what it holds less pending payouts) is checked, as payout requests do.
     */
    async refund(actor: Actor, id: string, input: Out<typeof RefundInput>, idempotencyKey?: string): Promise<ReceiptDto> {
      const { user } = requireUser(actor);
      if (!isUuid(id)) throw notFound(M.donationNotFound);
      const [peek] = await db
        .select({ campaignId: donations.campaignId, ownerId: campaigns.ownerId, donorId: donations.donorId })
        .from(donations)
        .innerJoin(campaigns, eq(campaigns.id, donations.campaignId))
        .where(eq(donations.id, id));
      const owner = peek && (peek.ownerId === user.id || isAdmin(user));
      if (!peek || (!owner && peek.donorId !== user.id)) throw notFound(M.donationNotFound);
      if (!owner) throw forbidden(M.notOwner);
      const refunded = await db.transaction(async (tx) => {
        const [c] = await tx.select({ id: campaigns.id }).from(campaigns).where(eq(campaigns.id, peek.campaignId)).for('no key update');
        const [d] = await tx.select().from(donations).where(eq(donations.id, id)).for('update');
        if (!c || !d) throw notFound(M.donationNotFound);
        if (d.status === 'refunded' && idempotencyKey && d.refundKey === idempotencyKey) return null;
        if (d.status !== 'succeeded') throw conflict(M.refundNotPossible);
        if (d.chargeback === 'open') throw conflict(M.refundUnderChargeback);
        // what still stands of it (the provider may have refunded part of it already)
        const rest = d.amount - d.refundedAmount;
        const available = (await campaignMoney(tx, d.campaignId, d.currency)).balance - (await pendingPayouts(tx, d.campaignId, d.currency));
        if (available < rest) throw conflict(M.refundExceedsBalance);
        try {
          await provider.refund({
            donationId: d.id,
            providerRef: d.providerRef ?? '',
            amount: rest,
            currency: d.currency,
            idempotencyKey: `refund:${d.id}`,
          });
        } catch (err) {
          if (err instanceof PaymentProviderError) throw conflict(err.message);
          throw err;
        }
        const [original] = await tx
          .select({ id: ledgerGroups.id })
          .from(ledgerGroups)
          .where(and(eq(ledgerGroups.donationId, d.id), eq(ledgerGroups.kind, 'donation')));
        const [g] = await tx.insert(ledgerGroups).values({ kind: 'refund', donationId: d.id, reversesGroupId: original.id }).returning({ id: ledgerGroups.id });
        await tx.insert(ledgerEntries).values([
          { groupId: g.id, accountType: 'campaign', accountId: d.campaignId, amount: -rest, currency: d.currency },
          { groupId: g.id, accountType: 'provider', accountId: d.provider, amount: rest, currency: d.currency },
        ]);
        const now = new Date();
        const [after] = await tx
          .update(donations)
          .set({
            status: 'refunded',
            refundedAmount: d.amount,
            refundedAt: now,
            refundReason: input.reason || null,
            refundedBy: user.id,
            refundKey: idempotencyKey ?? null,
            updatedAt: now,
          })
          .where(eq(donations.id, d.id))
          .returning();
        await tx
          .update(campaignDonors)
          .set({ gifts: sql`${campaignDonors.gifts} - 1`, donated: sql`greatest(${campaignDonors.donated} - ${rest}, 0)` })
          .where(and(eq(campaignDonors.campaignId, d.campaignId), eq(campaignDonors.donorKey, donorKeyOf(d))));
        await recordChange(tx, {
          modelName: 'Donation',
          action: 'update',
          key: d.id,
          fields: ['status', 'refundReason'],
          actorId: user.id,
          subjectUserId: d.donorId,
        });
        return after;
      });
      if (refunded) {
        const to = await donorEmail(refunded);
        const c = await campaignTitle(refunded.campaignId);
        if (to) {
          await sendQuietly(
            donationTemplates.refunded(to, {
              amount: toMajor(refunded.amount),
              currency: refunded.currency,
              campaignTitle: c.title,
              reason: refunded.refundReason,
              link: receiptLink(refunded),
            }),
          );
        }
      }
      return service.receipt(actor, id);
    },

    /** A campaign's donations that moved money (succeeded or refunded), newest first: its owner and admins only. */
    async ofCampaign(actor: Actor, campaignId: string, query: Out<typeof CampaignDonationsQuery>) {
      const { user } = requireUser(actor);
      const campaign = await visible(actor, campaignId);
      if (campaign.ownerId !== user.id && !isAdmin(user)) throw forbidden(M.notOwner);
      const cursor = readCursor(query.cursor);
      const rows = await db
        .select({ d: donations, name: users.name, username: users.username })
        .from(donations)
        .leftJoin(users, eq(users.id, donations.donorId))
        .where(
          and(
            eq(donations.campaignId, campaign.id),
            inArray(donations.status, ['succeeded', 'refunded']),
            cursor ? afterCursor(donations.createdAt, donations.id, cursor) : undefined,
          ),
        )
        .orderBy(desc(donations.createdAt), desc(donations.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = pageOf(rows, query.limit, (r) => r.d);
      const items: CampaignDonationDto[] = page.map((r) => ({
        _id: r.d.id,
        donor: r.d.donorId ? r.name || r.username || 'Member' : 'Guest',
        amount: toMajor(r.d.amount),
        currency: r.d.currency,
        status: r.d.status,
        monthly: r.d.recurring,
        date: r.d.succeededAt ?? r.d.createdAt,
        refunded: toMajor(r.d.refundedAmount),
        chargeback: r.d.chargeback,
      }));
      return { items, nextCursor, campaign };
    },

    /** Every donation of `ofCampaign` as CSV (a header row, amounts with 2 decimals). */
    async csvOfCampaign(actor: Actor, campaignId: string): Promise<{ filename: string; csv: string }> {
      const lines: string[][] = [];
      let cursor: string | undefined;
      let title = 'campaign';
      for (;;) {
        const page = await service.ofCampaign(actor, campaignId, { limit: 100, cursor, format: 'csv' });
        title = page.campaign.title;
        for (const r of page.items) {
          lines.push([r.date.toISOString(), r.donor, r.amount.toFixed(2), r.currency, r.status, r.monthly ? 'yes' : 'no', r._id]);
        }
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      return { filename: csvFilename('donations', title), csv: csvDocument(['date', 'donor', 'amount', 'currency', 'status', 'monthly', 'id'], lines) };
    },

    /**
     * The campaigns I gave to, the one I gave to last first, each with what I gave (`donated`,
     * net of refunds). Campaigns now hidden from me are left out of the page (it may be
     * shorter); the cursor follows the rows read.
     */
    async supported(actor: Actor, query: Out<typeof SupportedQuery>): Promise<{ items: CampaignDto[]; nextCursor: string | null }> {
      const { user } = requireUser(actor);
      const cursor = readCursor(query.cursor);
      // what I gave to (standing gifts) and what I support (confirmed), by my latest of either
      const mine = db.$with('mine').as(
        db
          .select({ campaignId: sql<string>`x.campaign_id`.as('campaign_id'), at: sql<Date>`max(x.at)`.as('at') })
          .from(
            sql`(select ${campaignDonors.campaignId} as campaign_id, ${campaignDonors.lastGiftAt} as at from ${campaignDonors}
                   where ${campaignDonors.userId} = ${user.id} and ${campaignDonors.gifts} > 0
                 union all
                 select ${supports.campaignId}, ${supports.confirmedAt} from ${supports}
                   where ${supports.userId} = ${user.id} and ${supports.confirmedAt} is not null) x`,
          )
          .groupBy(sql`x.campaign_id`),
      );
      const rows = await db
        .with(mine)
        .select({ campaignId: mine.campaignId, at: mine.at })
        .from(mine)
        .where(cursor ? sql`(${mine.at}, ${mine.campaignId}) < (${cursor.t}::timestamptz, ${cursor.id}::uuid)` : undefined)
        .orderBy(desc(mine.at), desc(mine.campaignId))
        .limit(query.limit + 1);
      const { page, nextCursor } = pageOf(rows, query.limit, (r) => ({ createdAt: new Date(r.at), id: r.campaignId }));
      const found = new Map(
        (
          await opts.campaigns.byIds(
            actor,
            page.map((r) => r.campaignId),
          )
        ).map((c) => [c._id, c] as const),
      );
      return { items: page.flatMap((r) => found.get(r.campaignId) ?? []), nextCursor };
    },

    /** My monthly donations, newest first. */
    async mySubscriptions(actor: Actor, query: Out<typeof SubscriptionsQuery>): Promise<{ items: SubscriptionDto[]; nextCursor: string | null }> {
      const { user } = requireUser(actor);
      const cursor = readCursor(query.cursor);
      const rows = await db
        .select({ s: subscriptions, title: campaigns.title })
        .from(subscriptions)
        .innerJoin(campaigns, eq(campaigns.id, subscriptions.campaignId))
        .where(and(eq(subscriptions.donorId, user.id), cursor ? afterCursor(subscriptions.createdAt, subscriptions.id, cursor) : undefined))
        .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = pageOf(rows, query.limit, (r) => r.s);
      return {
        items: page.map(({ s, title }) => ({
          _id: s.id,
          campaign: { _id: s.campaignId, title },
          amount: toMajor(s.amount),
          currency: s.currency,
          status: s.status,
          nextChargeAt: s.status === 'active' ? (s.nextRetryAt ?? s.nextChargeAt) : null,
          createdAt: s.createdAt,
          cancelledAt: s.cancelledAt,
        })),
        nextCursor,
      };
    },

    /** The donor cancels a monthly donation (again is fine); anyone else gets 404. */
    async cancelSubscription(actor: Actor, id: string): Promise<SubscriptionDto> {
      const { user } = requireUser(actor);
      if (!isUuid(id)) throw notFound(M.subscriptionNotFound);
      const now = new Date();
      const changed = await db.transaction(async (tx) => {
        const [s] = await tx
          .update(subscriptions)
          .set({ status: 'cancelled', cancelledAt: now, nextRetryAt: null, updatedAt: now })
          .where(and(eq(subscriptions.id, id), eq(subscriptions.donorId, user.id), eq(subscriptions.status, 'active')))
          .returning({ id: subscriptions.id });
        if (s) await recordChange(tx, { modelName: 'Subscription', action: 'update', key: id, fields: ['status'], actorId: user.id });
        return !!s;
      });
      const [row] = await db
        .select({ s: subscriptions, title: campaigns.title })
        .from(subscriptions)
        .innerJoin(campaigns, eq(campaigns.id, subscriptions.campaignId))
        .where(and(eq(subscriptions.id, id), eq(subscriptions.donorId, user.id)));
      if (!row) throw notFound(M.subscriptionNotFound);
      if (changed) log.info({ subscriptionId: id }, 'monthly donation cancelled by the donor');
      const { s, title } = row;
      return {
        _id: s.id,
        campaign: { _id: s.campaignId, title },
        amount: toMajor(s.amount),
        currency: s.currency,
        status: s.status,
        nextChargeAt: null,
        createdAt: s.createdAt,
        cancelledAt: s.cancelledAt,
      };
    },

    /**
     * The reconciliation job: every donation of this provider still pending `config.reconcileAfterMs`
     * after it was made (its process died, or the provider's event never came) is asked of the
     * provider and resolved as its event would have been; one the provider never saw, or still
     * calls under way after GIVE_UP_PENDING_MS, is marked failed with a reason (a monthly charge
     * then retries as after a decline). Read in batches of `batch`, oldest first (a keyset: one
     * that stays pending is not read again in this run); donations older than RECONCILE_WINDOW_MS
     * are left alone (every earlier run has asked about them).
     */
    async reconcilePending(now = new Date(), batch = 100): Promise<{ asked: number; succeeded: number; failed: number }> {
      const counts = { asked: 0, succeeded: 0, failed: 0 };
      const before = new Date(now.getTime() - config.reconcileAfterMs);
      const since = new Date(now.getTime() - RECONCILE_WINDOW_MS);
      let after: { createdAt: Date; id: string } | null = null;
      for (let round = 0; round < MAX_CHARGE_BATCHES; round++) {
        const rows: DonationRow[] = await db
          .select()
          .from(donations)
          .where(
            and(
              eq(donations.status, 'pending'),
              eq(donations.provider, provider.name),
              sql`${donations.createdAt} < ${before.toISOString()}::timestamptz`,
              sql`${donations.createdAt} >= ${since.toISOString()}::timestamptz`,
              after ? sql`(${donations.createdAt}, ${donations.id}) > (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)` : undefined,
            ),
          )
          .orderBy(donations.createdAt, donations.id)
          .limit(batch);
        for (const d of rows) {
          if (starting.has(d.id)) continue;
          counts.asked += 1;
          let found: PaymentLookup;
          try {
            found = await provider.lookupPayment({ donationId: d.id, providerRef: d.providerRef, createdAt: d.createdAt });
          } catch (err) {
            log.warn({ err, donationId: d.id }, 'could not ask the payment provider about a pending donation');
            continue;
          }
          const event = lookupEvent(d, found, now.getTime() - d.createdAt.getTime() > GIVE_UP_PENDING_MS);
          if (!event) continue;
          await applyEvent(event);
          const [settled] = await db.select({ status: donations.status }).from(donations).where(eq(donations.id, d.id));
          if (settled?.status === 'succeeded') counts.succeeded += 1;
          else if (settled?.status === 'failed') counts.failed += 1;
        }
        if (rows.length < batch) break;
        const last = rows[rows.length - 1];
        after = { createdAt: last.createdAt, id: last.id };
      }
      if (counts.asked) log.info({ ...counts }, 'pending donations reconciled with the payment provider');
      return counts;
    },

    /**
     * Charges every monthly donation that is due at `now`, each through the provider's saved
     * payment method, reading the due ones in batches of `batch` in due order (a keyset, so a row
     * that cannot be charged now is passed over, never read again in this run, and delays
     * nothing behind it). A month is charged at most once: a subscription whose month already has
     * a standing charge (pending, or succeeded) is not due, and a unique index allows one standing
     * donation per subscription and month; the charge's idempotency key is the server's own
     * (`server:subscription:<id>:<yyyy-mm>:<attempt>`, lib/idempotency.ts), which no client key can
     * be. A failed charge is tried again after 2 days, after 5 from the third failure on, and the
     * 6th failure cancels it with an email. The scheduled-jobs runner calls this; two runners at
     * once skip each other's rows.
     */
    async chargeDue(now = new Date(), batch = 100): Promise<{ charged: number; succeeded: number; failed: number; cancelled: number }> {
      const counts = { charged: 0, succeeded: 0, failed: 0, cancelled: 0 };
      const dueAt = sql<Date>`coalesce(${subscriptions.nextRetryAt}, ${subscriptions.nextChargeAt})`;
      let after: { due: Date; id: string } | null = null;
      for (let round = 0; round < MAX_CHARGE_BATCHES; round++) {
        const due: { id: string; due: Date }[] = await db
          .select({ id: subscriptions.id, due: sql<Date>`${dueAt}`.mapWith(subscriptions.nextChargeAt) })
          .from(subscriptions)
          .where(
            and(
              eq(subscriptions.status, 'active'),
              sql`${dueAt} <= ${now.toISOString()}::timestamptz`,
              sql`${subscriptions.paymentMethodRef} is not null`,
              // a month with a standing charge is not due again (the index donations_subscription_period_key)
              sql`not exists (select 1 from ${donations} d where d.subscription_id = ${subscriptions.id}
                    and d.period = to_char(${subscriptions.nextChargeAt} at time zone 'UTC', 'YYYY-MM') and d.failure_message is null)`,
              after ? sql`(${dueAt}, ${subscriptions.id}) > (${after.due.toISOString()}::timestamptz, ${after.id}::uuid)` : undefined,
            ),
          )
          .orderBy(dueAt, subscriptions.id)
          .limit(batch);
        await chargeEach(due.map((r) => r.id));
        if (due.length < batch) break;
        after = due[due.length - 1];
      }
      return counts;

      async function chargeEach(ids: string[]) {
        for (const id of ids) {
          // claim the month: the pending donation row is the claim (its unique index keeps a second runner out)
          const claimed = await db.transaction(async (tx) => {
            const [sub] = await tx.select().from(subscriptions).where(eq(subscriptions.id, id)).for('update', { skipLocked: true });
            if (sub?.status !== 'active' || !sub.paymentMethodRef) return null;
            if ((sub.nextRetryAt ?? sub.nextChargeAt).getTime() > now.getTime()) return null;
            const period = periodOf(sub.nextChargeAt);
            const [standing] = await tx
              .select({ id: donations.id })
              .from(donations)
              .where(and(eq(donations.subscriptionId, sub.id), eq(donations.period, period), ne(donations.status, 'failed')));
            if (standing) return null;
            // a campaign whose date has passed takes no more months: the monthly donation ends, and the donor is told
            const [c] = await tx.select({ executionDate: campaigns.executionDate }).from(campaigns).where(eq(campaigns.id, sub.campaignId));
            if (isPast(c?.executionDate ?? null, now.getTime())) {
              await tx
                .update(subscriptions)
                .set({ status: 'cancelled', cancelledAt: now, nextRetryAt: null, updatedAt: now })
                .where(eq(subscriptions.id, sub.id));
              return { ended: true as const, sub };
            }
            const [d] = await tx
              .insert(donations)
              .values({
                campaignId: sub.campaignId,
                donorId: sub.donorId,
                amount: sub.amount,
                currency: sub.currency,
                provider: sub.provider,
                idempotencyKey: serverKey(`subscription:${sub.id}:${period}:${sub.failedAttempts + 1}`),
                requestHash: sha256Hex(`subscription:${sub.id}`),
                recurring: true,
                subscriptionId: sub.id,
                period,
              })
              .onConflictDoNothing()
              .returning();
            return d ? { ended: false as const, d, sub } : null;
          });
          if (!claimed) continue;
          if (claimed.ended) {
            counts.cancelled += 1;
            await announceCancelled(claimed.sub, 'ended');
            continue;
          }
          counts.charged += 1;
          const email = (await donorEmail(claimed.d)) ?? '';
          let result: ChargeResult;
          try {
            result = await provider.chargeSaved({
              donationId: claimed.d.id,
              paymentMethodRef: claimed.sub.paymentMethodRef!,
              amount: claimed.d.amount,
              currency: claimed.d.currency,
              email,
              idempotencyKey: claimed.d.idempotencyKey,
            });
          } catch (err) {
            log.error({ err, subscriptionId: id }, 'charging a monthly donation failed');
            result = { kind: 'failed' as const, providerRef: null, message: err instanceof PaymentProviderError ? err.message : M.paymentFailed };
          }
          if (result.kind === 'failed') {
            const outcome = await db.transaction(async (tx) => {
              const [d] = await tx
                .update(donations)
                .set({ status: 'failed', failureMessage: result.message, providerRef: result.providerRef, updatedAt: new Date() })
                .where(and(eq(donations.id, claimed.d.id), eq(donations.status, 'pending')))
                .returning({ id: donations.id });
              if (!d) return null;
              const [sub] = await tx.select().from(subscriptions).where(eq(subscriptions.id, id)).for('update');
              return sub?.status === 'active' ? { sub, outcome: await chargeFailed(tx, sub, now) } : null;
            });
            counts.failed += 1;
            if (outcome?.outcome === 'cancelled') {
              counts.cancelled += 1;
              await announceCancelled(outcome.sub);
            }
          } else {
            const [d] = await db.select({ status: donations.status }).from(donations).where(eq(donations.id, claimed.d.id));
            if (d?.status === 'succeeded') counts.succeeded += 1;
            else if (d?.status === 'pending') {
              await db
                .update(donations)
                .set({ providerRef: result.providerRef })
                .where(and(eq(donations.id, claimed.d.id), sql`${donations.providerRef} is null`));
            }
          }
        }
      }
    },
  };
  return service;
}

export type DonationsService = ReturnType<typeof createDonationsService>;
