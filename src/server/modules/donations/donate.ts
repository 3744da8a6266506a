import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import { toMinor } from '../../../shared/money';
import {
  DONATION_MAX,
  DONATION_MIN,
  DONATION_PRESETS,
  TEST_CARDS,
  type DonateFields,
  type DonationDto,
  type PaymentInfoDto,
} from '../../../shared/schemas/donations';
import { equalHex } from '../../auth/crypto';
import { donations, subscriptions } from '../../db/schema';
import type { Actor } from '../../deps';
import { badRequest, conflict, forbidden, isUniqueViolation, notFound, unauthorized, type AppError } from '../../lib/errors';
import { recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { clientKey } from '../../lib/idempotency';
import { isPast } from '../../lib/campaign-access';
import { assertReleased, audiencesSeen } from '../../lib/access';
import type { DonationsContext } from './context';
import { donationRequestHash, periodOf, refuseUnlessTakingDonations, type DonationRow, type Out } from './dto';
import type { PaymentStarts } from './start';
import type { Facts } from './statements';

/** Donating: what the Donate panel needs to know, and the donation request itself (one-off or monthly). */
export function donationRequests(ctx: DonationsContext, starts: PaymentStarts) {
  const { db, deps, provider, statements, visible, receiptLink, answer } = ctx;
  const { startPayment, resume } = starts;

  /**
   * A monthly donation: its subscription and its first month, together, then the first payment.
   * The same key with the same request answers the first answer again.
   */
  async function donateMonthly(
    actor: Actor,
    campaign: { id: string; currency: DonationRow['currency']; title: string },
    p: {
      amount: number;
      card?: string;
      idempotencyKey: string;
      requestHash: string;
      existing: () => Promise<DonationRow | null>;
      publicName: string | null;
      publicMessage: string | null;
    },
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
            publicName: p.publicName,
            publicMessage: p.publicMessage,
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

  return {
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
        platformFeePercent: ctx.deps.config.platformFeeBps / 100,
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
        assertReleased(campaign);
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
      // the public note is not part of the request's hash: it moves no money, and a retry that
      // changed only the note answers the first donation (with the first note)
      const publicName = input.publicName ?? null;
      const publicMessage = input.publicMessage ?? null;
      if (input.monthly)
        return answer(
          await donateMonthly(actor, await campaignTakingDonations(), { amount, card, idempotencyKey: key, requestHash, existing, publicName, publicMessage }),
        );

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
        audiences: audiencesSeen(actor),
        donorId: user?.id ?? null,
        donorEmail: guestEmail,
        amount,
        provider: provider.name,
        idempotencyKey: key,
        requestHash,
        publicName,
        publicMessage,
      });
      if (!inserted) throw notFound(M.campaignNotFound);
      assertReleased(inserted);
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
  };
}
