import { z } from './zod';
import { CURRENCIES } from '../constants';
import { M } from '../messages';
import { ListQuery } from './campaigns';
import { EmailSchema } from './auth';
import { text } from './common';
import { PUBLIC_MESSAGE_MAX, PUBLIC_NAME_MAX } from '../public-note';

/** The smallest and largest gift, in major units. */
export const DONATION_MIN = 1;
export const DONATION_MAX = 100_000;
/** The amounts the Donate panel offers first (major units). */
export const DONATION_PRESETS = [10, 25, 50, 100] as const;

/** Test cards of the built-in sandbox provider (spaces are allowed when typed). */
export const TEST_CARDS = {
  succeeds: '4242424242424242',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
} as const;

/** An amount in major units: a number (or numeric string) >= 1.00 and <= 100,000.00 with at most 2 decimals. */
export const DonationAmountSchema = z.union([z.number(), text()], { error: M.donationAmountInvalid }).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : v.trim() === '' ? Number.NaN : Number(v.trim());
  if (!Number.isFinite(n) || Math.round(n * 100) !== Math.round(n * 100 * 1e6) / 1e6) {
    ctx.addIssue({ code: 'custom', message: M.donationAmountInvalid });
    return z.NEVER;
  }
  if (n < DONATION_MIN) {
    ctx.addIssue({ code: 'custom', message: M.donationTooSmall });
    return z.NEVER;
  }
  if (n > DONATION_MAX) {
    ctx.addIssue({ code: 'custom', message: M.donationTooLarge });
    return z.NEVER;
  }
  return n;
});

/** A card number as typed: digits with optional spaces or dashes, kept as digits only. */
const CardSchema = text()
  .max(40, M.cardInvalid)
  .transform((v) => v.replace(/[\s-]/g, ''))
  .refine((v) => /^\d{12,19}$/.test(v), M.cardInvalid);

/**
 * The Idempotency-Key of a money write, one rule for the server and the API document
 * (http/openapi.ts reads these): 8 to 255 letters, digits, `-` or `_` (a random UUID is a good
 * one). No other character is taken, so a client's key never looks like one the server makes.
 */
export const IDEMPOTENCY_KEY = { min: 8, max: 255, pattern: /^[A-Za-z0-9_-]+$/ } as const;

export const IdempotencyKeySchema = text({ error: M.idempotencyKeyRequired })
  .trim()
  .min(IDEMPOTENCY_KEY.min, M.idempotencyKeyInvalid)
  .max(IDEMPOTENCY_KEY.max, M.idempotencyKeyInvalid)
  .regex(IDEMPOTENCY_KEY.pattern, M.idempotencyKeyInvalid);

export { PUBLIC_MESSAGE_MAX, PUBLIC_NAME_MAX };

/** An optional public text: trimmed, at most `max` characters; blank means none (null). */
const PublicNoteText = (max: number, tooLong: string) =>
  text({ error: tooLong })
    .trim()
    .max(max, tooLong)
    .nullish()
    .transform((v) => (v ? v : null))
    .optional();

export const DonateFields = z.object({
  amount: DonationAmountSchema,
  monthly: z.boolean({ error: M.monthlyInvalid }).optional().default(false),
  /** Required when signed out (where the receipt goes); ignored when signed in. */
  email: EmailSchema.optional(),
  /** The test card number (sandbox provider only). */
  card: CardSchema.optional(),
  /**
   * The name shown with this gift in the campaign's Recent donors (at most 60 characters; blank
   * or absent: the gift shows as Anonymous). With a public name the amount is shown too.
   */
  publicName: PublicNoteText(PUBLIC_NAME_MAX, M.publicNameTooLong),
  /** A short public message shown with the gift in Recent donors (at most 280 characters; blank or absent: none). */
  publicMessage: PublicNoteText(PUBLIC_MESSAGE_MAX, M.publicMessageTooLong),
});
/** The REST body (the key travels in the Idempotency-Key header). */
export type DonateFields = z.input<typeof DonateFields>;

/** The tRPC input: the same fields plus the key. */
export const DonateInput = DonateFields.extend({ campaignId: text().trim().min(1).max(100), idempotencyKey: IdempotencyKeySchema });
export type DonateInput = z.input<typeof DonateInput>;

export const DONATION_STATUSES = ['pending', 'succeeded', 'failed', 'refunded'] as const;

export const DonationSchema = z.object({
  _id: z.string(),
  campaignId: z.string(),
  amount: z.number(),
  currency: z.enum(CURRENCIES),
  status: z.enum(DONATION_STATUSES),
  monthly: z.boolean(),
  createdAt: z.date(),
  /** The receipt page (for a guest, with the secret that opens it). */
  receiptUrl: z.string(),
  /** Where the payer finishes paying (a real provider's checkout page); absent for the sandbox. */
  checkoutUrl: z.string().optional(),
});
export type DonationDto = z.infer<typeof DonationSchema>;

/** What the payment page needs to know before asking for a card. */
export const PaymentInfoSchema = z.object({
  provider: z.string(),
  testMode: z.boolean(),
  /** True when the card is typed in the app (the sandbox); false when the provider's page takes it. */
  cardInApp: z.boolean(),
  testCards: z.object({ succeeds: z.string(), declined: z.string(), insufficientFunds: z.string() }).nullable(),
  presets: z.array(z.number()),
  min: z.number(),
  max: z.number(),
  /** The platform's fee on each payout, in percent (PLATFORM_FEE_PERCENT): the Fees page says it. */
  platformFeePercent: z.number(),
});
export type PaymentInfoDto = z.infer<typeof PaymentInfoSchema>;

export const ReceiptSchema = z.object({
  _id: z.string(),
  amount: z.number(),
  currency: z.enum(CURRENCIES),
  status: z.enum(DONATION_STATUSES),
  campaign: z.object({ _id: z.string(), title: z.string() }),
  date: z.date(),
  monthly: z.boolean(),
  /** The failure the payer was told, for a failed payment. */
  failureMessage: z.string().nullable(),
  /** What has gone back to the donor (in full or in part: the provider may refund part of it), and when. */
  refund: z.object({ amount: z.number(), date: z.date() }).nullable(),
  /** A chargeback by the donor's bank: `open` while the money is held, then `won` or `lost`; null when none. */
  chargeback: z.enum(['open', 'won', 'lost']).nullable(),
  /** Whether the viewer may refund it (the campaign's owner or an admin, while it stands and no chargeback is open). */
  canRefund: z.boolean(),
});
export type ReceiptDto = z.infer<typeof ReceiptSchema>;

export const ReceiptQuery = z.object({ token: text().trim().max(200).optional() });

export const RefundInput = z.object({ reason: text().trim().max(500, M.refundReasonTooLong).optional() });
export type RefundInput = z.input<typeof RefundInput>;

/** A campaign's donations for its owner: page by cursor, or everything as CSV. */
export const CampaignDonationsQuery = ListQuery.pick({ limit: true, cursor: true }).extend({
  format: z.enum(['json', 'csv'], { error: M.formatInvalid }).optional().default('json'),
});
export type CampaignDonationsQuery = z.input<typeof CampaignDonationsQuery>;

export const CampaignDonationSchema = z.object({
  _id: z.string(),
  /** The donor's display name, or "Guest". */
  donor: z.string(),
  amount: z.number(),
  currency: z.enum(CURRENCIES),
  status: z.enum(DONATION_STATUSES),
  monthly: z.boolean(),
  date: z.date(),
  /** What has gone back to the donor so far (the provider may refund part of a donation). */
  refunded: z.number(),
  /** A chargeback by the donor's bank (`open` while its amount is held), or null. */
  chargeback: z.enum(['open', 'won', 'lost']).nullable(),
});
export type CampaignDonationDto = z.infer<typeof CampaignDonationSchema>;
export const CampaignDonationListSchema = z.object({ items: z.array(CampaignDonationSchema), nextCursor: z.string().nullable() });

export const SubscriptionSchema = z.object({
  _id: z.string(),
  campaign: z.object({ _id: z.string(), title: z.string() }),
  amount: z.number(),
  currency: z.enum(CURRENCIES),
  status: z.enum(['active', 'cancelled']),
  nextChargeAt: z.date().nullable(),
  createdAt: z.date(),
  cancelledAt: z.date().nullable(),
});
export type SubscriptionDto = z.infer<typeof SubscriptionSchema>;
export const SubscriptionListSchema = z.object({ items: z.array(SubscriptionSchema), nextCursor: z.string().nullable() });
export const SubscriptionsQuery = ListQuery.pick({ limit: true, cursor: true });

export const SupportedQuery = ListQuery.pick({ limit: true, cursor: true });

/** What an admin can make the built-in sandbox's processor do to a succeeded payment. */
export const SANDBOX_SIMULATIONS = ['refund', 'chargeback', 'chargeback_won', 'chargeback_lost'] as const;
export type SandboxSimulation = (typeof SANDBOX_SIMULATIONS)[number];

/**
 * A sandbox simulation: a refund from the processor's side (`amount`: that part only, default
 * everything that stands), or a chargeback opened, won or lost.
 */
export const SandboxSimulateInput = z.object({
  action: z.enum(SANDBOX_SIMULATIONS, { error: M.sandboxActionInvalid }),
  amount: DonationAmountSchema.optional(),
});
export type SandboxSimulateInput = z.input<typeof SandboxSimulateInput>;

/** A provider event that booked nothing because it did not fit its donation, for admins. */
export const PaymentProblemSchema = z.object({
  provider: z.string(),
  eventId: z.string(),
  type: z.string(),
  donationId: z.string().nullable(),
  problem: z.string(),
  /** The amount the event named (major units) and its currency, when it named one. */
  amount: z.number().nullable(),
  currency: z.string().nullable(),
  receivedAt: z.date(),
});
export type PaymentProblemDto = z.infer<typeof PaymentProblemSchema>;
export const PaymentProblemsQuery = ListQuery.pick({ limit: true, cursor: true });
export const PaymentProblemListSchema = z.object({ items: z.array(PaymentProblemSchema), nextCursor: z.string().nullable() });

/** A gift in a campaign's public Recent donors. */
export const RecentDonorSchema = z.object({
  _id: z.string(),
  /** The donor's chosen public name, or "Anonymous". */
  name: z.string(),
  /** True when the donor chose no public name (then no amount is shown either). */
  anonymous: z.boolean(),
  /** The amount (major units), shown only when the donor gave a public name; null otherwise. */
  amount: z.number().nullable(),
  currency: z.enum(CURRENCIES),
  /** The donor's public message, or null. */
  message: z.string().nullable(),
  date: z.date(),
});
export type RecentDonorDto = z.infer<typeof RecentDonorSchema>;
export const RecentDonorListSchema = z.object({ items: z.array(RecentDonorSchema) });
export type RecentDonorListDto = z.infer<typeof RecentDonorListSchema>;

/** How many recent donors to show: default 10; more than 50 reads as 50. */
export const RecentDonorsQuery = z.object({
  limit: z.coerce
    .number({ error: M.limitInvalid })
    .int(M.limitInvalid)
    .min(1, M.limitInvalid)
    .transform((n) => Math.min(n, 50))
    .optional()
    .default(10),
});
export type RecentDonorsQuery = z.input<typeof RecentDonorsQuery>;

/** The owner hides a gift from Recent donors (or shows it again). */
export const DonationHiddenInput = z.object({ hidden: z.boolean({ error: M.hiddenInvalid }) });
export type DonationHiddenInput = z.input<typeof DonationHiddenInput>;
export const DonationHiddenSchema = z.object({ _id: z.string(), hidden: z.boolean() });
