import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { campaignTotals } from '../db/schema';

/** A campaign's money in one currency, in minor units, from its running totals (kept from the ledger). */
export interface CampaignMoney {
  /** Every succeeded donation. */
  raised: number;
  /** Refunded to donors (by the owner, an admin, or on the provider's side). */
  refunded: number;
  paidOut: number;
  /** Under an open chargeback: out of the campaign's balance until the dispute ends. */
  held: number;
  /** Returned to donors by lost chargebacks. */
  chargedBack: number;
  /** The providers' fees for lost chargebacks. */
  disputeFees: number;
  /** What the campaign holds: raised less everything above (the sum of its ledger account). */
  balance: number;
}

/**
 * The one formula of a campaign's balance: the sum of its ledger account, read from the shards of
 * campaign_totals. Money under a chargeback is not in it, so no payout or refund can reach it.
 * (What the public sees as raised, campaigns' totalRaised, is raised - refunded - charged back:
 * campaigns/list-queries.ts.)
 */
export async function campaignMoney(db: DbOrTx, campaignId: string, currency: string): Promise<CampaignMoney> {
  const [t] = await db
    .select({
      raised: sql<string>`coalesce(sum(${campaignTotals.raised}), 0)`,
      refunded: sql<string>`coalesce(sum(${campaignTotals.refunded}), 0)`,
      paidOut: sql<string>`coalesce(sum(${campaignTotals.paidOut}), 0)`,
      held: sql<string>`coalesce(sum(${campaignTotals.held}), 0)`,
      chargedBack: sql<string>`coalesce(sum(${campaignTotals.chargedBack}), 0)`,
      disputeFees: sql<string>`coalesce(sum(${campaignTotals.disputeFees}), 0)`,
    })
    .from(campaignTotals)
    .where(and(eq(campaignTotals.campaignId, campaignId), sql`${campaignTotals.currency} = ${currency}`));
  const m = {
    raised: Number(t.raised),
    refunded: Number(t.refunded),
    paidOut: Number(t.paidOut),
    held: Number(t.held),
    chargedBack: Number(t.chargedBack),
    disputeFees: Number(t.disputeFees),
  };
  return { ...m, balance: m.raised - m.refunded - m.paidOut - m.held - m.chargedBack - m.disputeFees };
}
