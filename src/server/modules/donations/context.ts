import { eq } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import { toMajor } from '../../../shared/money';
import type { DonationDto } from '../../../shared/schemas/donations';
import type { Tx } from '../../db/client';
import { campaigns, subscriptions, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { AppError } from '../../lib/errors';
import { visibleCampaign } from '../../lib/campaign-access';
import { donationTemplates } from '../../mail/donation-templates';
import type { PaymentProvider } from '../../payments/port';
import type { CampaignsService } from '../campaigns/service';
import { DAY_MS, MAX_FAILED_CHARGES, receiptToken, retryDelayDays, toDonationDto, type DonationRow, type SubscriptionRow } from './dto';
import { createReversals } from './reversals';
import { donationStatements, type Facts } from './statements';

export type DonationsOptions = { provider: PaymentProvider; receiptKey: Buffer; campaigns: CampaignsService };

/**
 * What the donation operations share: the payment provider, the prepared statements
 * (statements.ts), the receipt links, the donor's address, the emails that must not fail a money
 * change, and the payments this process is starting. Each operation is a file of its own
 * (donate, settle, webhook, receipts, refund, list, export, subscriptions, reconcile, monthly,
 * problems).
 */
export function createDonationsContext(deps: Deps, opts: DonationsOptions) {
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
   * The one-off payments this process is starting (startPayment), by donation: what their
   * messages need, known from the request's own insert, and what the provider's event made of
   * the donation when it arrives while the provider is being asked (the sandbox delivers its
   * signed event in process before it answers): the request answers with that row instead of
   * reading it again. An entry lives only while its provider call does.
   */
  const starting = new Map<string, { facts?: Facts; settled?: DonationRow }>();

  return {
    deps,
    db,
    config,
    mailer,
    log,
    provider,
    campaigns: opts.campaigns,
    tokenOf,
    visible,
    statements,
    donorEmail,
    receiptLink,
    reversals,
    answer,
    sendQuietly,
    chargeFailed,
    campaignTitle,
    announceCancelled,
    starting,
  };
}

export type DonationsContext = ReturnType<typeof createDonationsContext>;
