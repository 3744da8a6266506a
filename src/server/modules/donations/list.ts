import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { requireOwnerOrAdmin } from '../../lib/access';
import { toMajor } from '../../../shared/money';
import type { CampaignDonationDto, CampaignDonationsQuery, SupportedQuery } from '../../../shared/schemas/donations';
import type { CampaignDto } from '../../../shared/schemas/campaigns';
import { campaignDonors, donations, supports, users } from '../../db/schema';
import type { Actor } from '../../deps';
import { afterCursor, pageOf, readCursor } from '../../lib/listing';
import { requireUser } from '../auth/service';
import type { DonationsContext } from './context';
import type { Out } from './dto';

/** The lists of donations: a campaign's (for its owner and admins), and the campaigns I gave to or support. */
export function donationLists(ctx: DonationsContext) {
  const { db, visible, campaigns: campaignsService } = ctx;

  return {
    /** A campaign's donations that moved money (succeeded or refunded), newest first: its owner and admins only. */
    async ofCampaign(actor: Actor, campaignId: string, query: Out<typeof CampaignDonationsQuery>) {
      requireUser(actor);
      const campaign = await visible(actor, campaignId);
      requireOwnerOrAdmin(actor, campaign.ownerId);
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
          await campaignsService.byIds(
            actor,
            page.map((r) => r.campaignId),
          )
        ).map((c) => [c._id, c] as const),
      );
      return { items: page.flatMap((r) => found.get(r.campaignId) ?? []), nextCursor };
    },
  };
}

export type DonationLists = ReturnType<typeof donationLists>;
