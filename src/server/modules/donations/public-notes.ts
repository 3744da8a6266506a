import { and, desc, eq, isNull } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import { toMajor } from '../../../shared/money';
import type { DonationHiddenInput, RecentDonorDto, RecentDonorsQuery } from '../../../shared/schemas/donations';
import { donations } from '../../db/schema';
import type { Actor } from '../../deps';
import { requireOwner } from '../../lib/access';
import { notFound } from '../../lib/errors';
import { recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import type { DonationsContext } from './context';
import type { Out } from './dto';

/**
 * The public side of donations: a campaign's Recent donors (whoever sees the campaign), and its
 * owner hiding a gift from that list. A gift shows the donor's chosen public name (or
 * "Anonymous"), its amount only when the donor chose a public name (docs/decisions.md), the
 * public message, and when it was made; never the donor's account or email. No money moves here.
 */
export function donationPublicNotes(ctx: DonationsContext) {
  const { db, visible } = ctx;

  return {
    /** The latest succeeded gifts not hidden by the owner, newest first. 404 when the campaign is unknown or hidden from the caller. */
    async recentDonors(actor: Actor, campaignId: string, query: Out<typeof RecentDonorsQuery>): Promise<{ items: RecentDonorDto[] }> {
      const campaign = await visible(actor, campaignId);
      // donations_campaign_created_idx reads the campaign's gifts newest first
      const rows = await db
        .select({
          id: donations.id,
          amount: donations.amount,
          currency: donations.currency,
          publicName: donations.publicName,
          publicMessage: donations.publicMessage,
          createdAt: donations.createdAt,
          succeededAt: donations.succeededAt,
        })
        .from(donations)
        .where(and(eq(donations.campaignId, campaign.id), eq(donations.status, 'succeeded'), isNull(donations.hiddenAt)))
        .orderBy(desc(donations.createdAt), desc(donations.id))
        .limit(query.limit);
      return {
        items: rows.map((r) => ({
          _id: r.id,
          name: r.publicName ?? M.anonymousDonor,
          anonymous: r.publicName === null,
          amount: r.publicName === null ? null : toMajor(r.amount),
          currency: r.currency,
          message: r.publicMessage,
          date: r.succeededAt ?? r.createdAt,
        })),
      };
    },

    /**
     * The campaign's owner hides a gift from Recent donors, or shows it again. 404 when the
     * campaign is not seen by the caller or the donation is not one of its gifts; 403 for anyone
     * else who sees the campaign (admins included: the list is the owner's to curate).
     */
    async setDonationHidden(actor: Actor, campaignId: string, donationId: string, input: Out<typeof DonationHiddenInput>) {
      const campaign = await visible(actor, campaignId);
      const user = requireOwner(actor, campaign.ownerId, M.donationHideOwnerOnly);
      if (!isUuid(donationId)) throw notFound(M.donationNotFound);
      return db.transaction(async (tx) => {
        const [d] = await tx
          .select({ id: donations.id, hiddenAt: donations.hiddenAt })
          .from(donations)
          .where(and(eq(donations.id, donationId), eq(donations.campaignId, campaign.id)))
          .for('update');
        if (!d) throw notFound(M.donationNotFound);
        if ((d.hiddenAt !== null) !== input.hidden) {
          const now = new Date();
          await tx
            .update(donations)
            .set({ hiddenAt: input.hidden ? now : null, updatedAt: now })
            .where(eq(donations.id, d.id));
          await recordChange(tx, { modelName: 'Donation', action: 'update', key: d.id, fields: ['hiddenAt'], actorId: user.id });
        }
        return { _id: d.id, hidden: input.hidden };
      });
    },
  };
}
