import { z } from './zod';
import { CURRENCIES, STATS_PERIODS, type StatsPeriod } from '../constants';
import { M } from '../messages';

export { STATS_PERIODS, type StatsPeriod };

/** `days=30|90|365` (30 when left out): a number on the tRPC door, a string in a query string. */
export const StatsDays = z.coerce
  .number({ error: M.statsDaysInvalid })
  .refine((n): n is StatsPeriod => (STATS_PERIODS as readonly number[]).includes(n), { message: M.statsDaysInvalid });

export const CampaignStatsQuery = z.object({ days: StatsDays.optional().default(30) });
export type CampaignStatsQuery = z.input<typeof CampaignStatsQuery>;

/** One UTC day of the period. Amounts are major units of the campaign's currency. */
export const StatsDaySchema = z.object({
  /** The UTC day, YYYY-MM-DD. */
  date: z.string(),
  /** Donations that succeeded that day (each monthly charge is one). */
  gifts: z.number().int(),
  /** What those donations brought in. */
  donated: z.number(),
  /** What went back to donors that day: refunds (the app's or the provider's) and lost chargebacks. */
  refunded: z.number(),
  /** donated - refunded. */
  net: z.number(),
  /** Raised up to the end of that day: every day's net since the campaign began (the last day's is `raised`). */
  raised: z.number(),
  /** Supporters confirmed that day (guests count once their email link is followed). */
  newSupporters: z.number().int(),
  /** Confirmed supporters at the end of that day (of those who still support). */
  supporters: z.number().int(),
});
export type StatsDayDto = z.infer<typeof StatsDaySchema>;

export const ACTIVITY_KINDS = ['donation', 'refund', 'supporter'] as const;

/** One line of the recent activity: a donation, a refund, or a confirmed supporter. */
export const StatsActivitySchema = z.object({
  kind: z.enum(ACTIVITY_KINDS),
  at: z.date(),
  /** The donor's or supporter's display name, or "Guest". */
  who: z.string(),
  /** The donation's or refund's amount (major units); null for a supporter. */
  amount: z.number().nullable(),
  /** A monthly donation's charge. */
  monthly: z.boolean(),
});
export type StatsActivityDto = z.infer<typeof StatsActivitySchema>;

/** The creator's dashboard of one campaign: its figures now, each UTC day of the period, and the latest activity. */
export const CampaignStatsSchema = z.object({
  campaignId: z.string(),
  currency: z.enum(CURRENCIES),
  days: z.number().int(),
  /** The period's first and last UTC day (YYYY-MM-DD); days are UTC days. */
  from: z.string(),
  to: z.string(),
  timeZone: z.literal('UTC'),
  /** Given and not returned (what the campaign's page shows): donations less refunds and lost chargebacks. */
  raised: z.number(),
  /** People (accounts or guest emails) with at least one standing donation. */
  donors: z.number().int(),
  /** Confirmed supporters. */
  supporters: z.number().int(),
  /** People with an active monthly donation. */
  monthlyDonors: z.number().int(),
  /** Donations that stand (succeeded, not refunded in full). */
  gifts: z.number().int(),
  /** What a standing donation is on average, net of partial refunds, rounded to the cent (0 when none). */
  averageGift: z.number(),
  /** What a payout can take now: the campaign's ledger balance less pending payouts (the Funds panel's Available). */
  available: z.number(),
  series: z.array(StatsDaySchema),
  /** The latest donations, refunds and confirmed supporters, newest first (at most 10). */
  recent: z.array(StatsActivitySchema),
});
export type CampaignStatsDto = z.infer<typeof CampaignStatsSchema>;
