import { eq } from 'drizzle-orm';
import { isOwnerOrAdmin } from '../../lib/access';
import { M } from '../../../shared/messages';
import { toMajor } from '../../../shared/money';
import type { ReceiptDto } from '../../../shared/schemas/donations';
import { equalHex } from '../../auth/crypto';
import { campaigns, donations } from '../../db/schema';
import type { Actor } from '../../deps';
import { notFound } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import type { DonationsContext } from './context';

/** A donation's receipt. */
export function donationReceipts(ctx: DonationsContext) {
  const { db, tokenOf } = ctx;

  return {
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
      const owner = isOwnerOrAdmin(actor.user, row.ownerId);
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
  };
}

export type DonationReceipts = ReturnType<typeof donationReceipts>;
