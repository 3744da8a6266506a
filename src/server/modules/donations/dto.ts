import { createHmac } from 'node:crypto';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import { toMajor } from '../../../shared/money';
import type { DonationDto, SubscriptionDto } from '../../../shared/schemas/donations';
import { sha256Hex } from '../../auth/crypto';
import type { donations, subscriptions } from '../../db/schema';
import { conflict, forbidden } from '../../lib/errors';

/** The rows the donation calls read, how they answer them, and the rules of money and months they share. */

export type Out<T extends z.ZodType> = z.output<T>;
export type DonationRow = typeof donations.$inferSelect;
export type SubscriptionRow = typeof subscriptions.$inferSelect;

/** Days until a failed monthly charge is tried again: 2 after the first two failures, 5 from the third on. */
export function retryDelayDays(failedAttempts: number): number {
  return failedAttempts >= 3 ? 5 : 2;
}
/** The failed charges in a row after which a monthly donation is cancelled. */
export const MAX_FAILED_CHARGES = 6;
/** The most batches of due monthly donations (or pending ones) one run reads (a bound, far above any backlog). */
export const MAX_CHARGE_BATCHES = 10_000;
/** A payment the provider still calls under way this long after the donation was made is given up (a checkout page lasts a day). */
export const GIVE_UP_PENDING_MS = 2 * 24 * 60 * 60 * 1000;
/** The reconciliation reads pending donations made in this window (older ones were asked about by earlier runs). */
export const RECONCILE_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

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

export const DAY_MS = 24 * 60 * 60 * 1000;

/** A campaign that takes no donations: 403 when it only takes supporters, 409 once its date has passed (as the API document says). */
export function refuseUnlessTakingDonations(c: { actionMode: string; past: boolean }): void {
  if (c.actionMode === 'support') throw forbidden(M.donationsNotAccepted);
  if (c.past) throw conflict(M.campaignPast);
}

export function toDonationDto(d: DonationRow, receiptUrl: string): DonationDto {
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

/** A monthly donation as its donor sees it; `nextChargeAt` as the caller reads it (none once cancelled). */
export function toSubscriptionDto({ s, title }: { s: SubscriptionRow; title: string }, nextChargeAt: Date | null): SubscriptionDto {
  return {
    _id: s.id,
    campaign: { _id: s.campaignId, title },
    amount: toMajor(s.amount),
    currency: s.currency,
    status: s.status,
    nextChargeAt,
    createdAt: s.createdAt,
    cancelledAt: s.cancelledAt,
  };
}
