import { z } from './zod';
import { CURRENCIES, DISPUTE_STATUSES, DISPUTE_TYPES } from '../constants';
import { M } from '../messages';
import { EmailSchema } from './auth';
import { ListQuery } from './campaigns';
import { IdSchema, text } from './common';

/** An amount in major units, > 0 with at most 2 decimals (a number or a numeric string). */
const PayoutAmount = z.union([z.number(), text()], { error: M.payoutAmountInvalid }).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : v.trim() === '' ? Number.NaN : Number(v.trim());
  if (!Number.isFinite(n) || n <= 0 || n > 1e10 || Math.round(n * 100) !== Math.round(n * 100 * 1e6) / 1e6) {
    ctx.addIssue({ code: 'custom', message: M.payoutAmountInvalid });
    return z.NEVER;
  }
  return n;
});

/**
 * A dispute holding a campaign's payouts, as the owner and admins see it (never its author):
 * about all of them (`payoutId` null: no payout can be requested or approved) or one pending
 * payout (it cannot be approved), since when, and whether an admin has started reviewing it.
 */
export const PayoutHoldSchema = z.object({
  payoutId: z.string().nullable(),
  type: z.enum(DISPUTE_TYPES),
  reason: z.string(),
  status: z.enum(['open', 'under_review']),
  since: z.date(),
});
export type PayoutHoldDto = z.infer<typeof PayoutHoldSchema>;

export const BalanceSchema = z.object({
  currency: z.enum(CURRENCIES),
  raised: z.number(),
  refunded: z.number(),
  paidOut: z.number(),
  pending: z.number(),
  /** Under an open chargeback: held until the bank's dispute ends, never paid out meanwhile. */
  held: z.number(),
  /** Returned to donors by lost chargebacks, with the providers' dispute fees. */
  chargedBack: z.number(),
  available: z.number(),
  /** The platform's share of a payout (0.05 for 5 %). */
  feeRate: z.number(),
  /** The open or under-review disputes holding the campaign's payouts, oldest first (empty when none). */
  holds: z.array(PayoutHoldSchema),
});
export type BalanceDto = z.infer<typeof BalanceSchema>;

export const PayoutRequestInput = z.object({
  recipientPaypalEmail: EmailSchema,
  /** Defaults to everything available. */
  amount: PayoutAmount.optional(),
});
export type PayoutRequestInput = z.input<typeof PayoutRequestInput>;

export const PAYOUT_STATUSES = ['pending', 'paid', 'rejected'] as const;

export const PayoutSchema = z.object({
  _id: z.string(),
  campaignId: z.string(),
  recipientPaypalEmail: z.string(),
  gross: z.number(),
  platformFee: z.number(),
  net: z.number(),
  currency: z.enum(CURRENCIES),
  status: z.enum(PAYOUT_STATUSES),
  payoutBatchId: z.string().nullable(),
  rejectReason: z.string().nullable(),
  decidedAt: z.date().nullable(),
  createdAt: z.date(),
});
export type PayoutDto = z.infer<typeof PayoutSchema>;

/** A payout as the admin table shows it. */
export const AdminPayoutSchema = PayoutSchema.extend({
  campaign: z.object({ _id: z.string(), title: z.string() }),
  /** An open or under-review dispute is about it (or about its campaign's payouts): it cannot be approved. */
  disputed: z.boolean(),
});
export type AdminPayoutDto = z.infer<typeof AdminPayoutSchema>;

export const AdminPayoutsQuery = ListQuery.pick({ limit: true, cursor: true }).extend({
  status: z.enum(PAYOUT_STATUSES, { error: M.payoutStatusInvalid }).optional(),
});
export const ApproveInput = z.object({ payoutBatchId: text().trim().max(200).optional() });
export const RejectInput = z.object({ reason: text().trim().max(500, M.reasonTooLong).optional() });

export const DisputeInput = z.object({
  campaignId: text({ error: M.campaignRequired }).trim().min(1, M.campaignRequired).max(100),
  type: z.enum(DISPUTE_TYPES, { error: M.disputeTypeRequired }).optional().default('other'),
  reason: text({ error: M.disputeReasonRequired }).trim().min(1, M.disputeReasonRequired).max(200, M.disputeReasonTooLong),
  details: text().trim().max(5000, M.disputeDetailsTooLong).optional().default(''),
  donationId: IdSchema.nullish(),
  payoutId: IdSchema.nullish(),
});
export type DisputeInput = z.input<typeof DisputeInput>;

export const DisputeSchema = z.object({
  _id: z.string(),
  campaignId: z.string(),
  campaign: z.object({ _id: z.string(), title: z.string() }),
  donationId: z.string().nullable(),
  payoutId: z.string().nullable(),
  type: z.enum(DISPUTE_TYPES),
  reason: z.string(),
  details: z.string(),
  status: z.enum(DISPUTE_STATUSES),
  resolutionNotes: z.string().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type DisputeDto = z.infer<typeof DisputeSchema>;

/** A dispute as the admin reads it: with its author. */
export const AdminDisputeSchema = DisputeSchema.extend({
  author: z.object({ _id: z.string(), name: z.string().nullable(), username: z.string().nullable(), email: z.string() }),
});
export type AdminDisputeDto = z.infer<typeof AdminDisputeSchema>;

export const DisputesQuery = ListQuery.pick({ limit: true, cursor: true });
export const AdminDisputesQuery = DisputesQuery.extend({
  status: z.enum(DISPUTE_STATUSES, { error: M.disputeStatusInvalid }).optional(),
});
export const DisputeStatusInput = z.object({
  status: z.enum(['under_review', 'resolved', 'rejected'], { error: M.disputeStatusInvalid }),
  resolutionNotes: text().trim().max(5000, M.disputeDetailsTooLong).optional().default(''),
});
export const PayoutIdParams = z.object({ id: IdSchema });
