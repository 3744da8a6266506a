import { and, eq, sql } from 'drizzle-orm';
import { isOwnerOrAdmin } from '../../lib/access';
import { M } from '../../../shared/messages';
import { toMajor } from '../../../shared/money';
import type { ReceiptDto, RefundInput } from '../../../shared/schemas/donations';
import type { Tx } from '../../db/client';
import { campaignDonors, campaigns, donations, ledgerEntries, ledgerGroups, payouts } from '../../db/schema';
import type { Actor } from '../../deps';
import { conflict, forbidden, notFound } from '../../lib/errors';
import { recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { campaignMoney } from '../../lib/balances';
import { donationTemplates } from '../../mail/donation-templates';
import { PaymentProviderError } from '../../payments/port';
import { requireUser } from '../auth/service';
import type { DonationsContext } from './context';
import type { Out } from './dto';
import type { DonationReceipts } from './receipts';
import { donorKeyOf } from './reversals';

/** A refund by the campaign's owner or an admin (the provider's own refunds are reversals.ts). */
export function donationRefunds(ctx: DonationsContext, receipts: DonationReceipts) {
  const { db, provider, donorEmail, campaignTitle, sendQuietly, receiptLink } = ctx;

  async function pendingPayouts(tx: Tx, campaignId: string, currency: string): Promise<number> {
    const [r] = await tx
      .select({ n: sql<string>`coalesce(sum(${payouts.gross}), 0)` })
      .from(payouts)
      .where(and(eq(payouts.campaignId, campaignId), eq(payouts.status, 'pending'), sql`${payouts.currency} = ${currency}`));
    return Number(r.n);
  }

  return {
    /**
     * A full refund by the campaign's owner or an admin, once: a ledger group reversing the
     * donation's, written with the status change. The campaign row is locked while the available
     * balance (what it holds less pending payouts) is checked, as payout requests do.
     */
    async refund(actor: Actor, id: string, input: Out<typeof RefundInput>, idempotencyKey?: string): Promise<ReceiptDto> {
      const { user } = requireUser(actor);
      if (!isUuid(id)) throw notFound(M.donationNotFound);
      const [peek] = await db
        .select({ campaignId: donations.campaignId, ownerId: campaigns.ownerId, donorId: donations.donorId })
        .from(donations)
        .innerJoin(campaigns, eq(campaigns.id, donations.campaignId))
        .where(eq(donations.id, id));
      const owner = peek && isOwnerOrAdmin(user, peek.ownerId);
      if (!peek || (!owner && peek.donorId !== user.id)) throw notFound(M.donationNotFound);
      if (!owner) throw forbidden(M.notOwner);
      const refunded = await db.transaction(async (tx) => {
        const [c] = await tx.select({ id: campaigns.id }).from(campaigns).where(eq(campaigns.id, peek.campaignId)).for('no key update');
        const [d] = await tx.select().from(donations).where(eq(donations.id, id)).for('update');
        if (!c || !d) throw notFound(M.donationNotFound);
        if (d.status === 'refunded' && idempotencyKey && d.refundKey === idempotencyKey) return null;
        if (d.status !== 'succeeded') throw conflict(M.refundNotPossible);
        if (d.chargeback === 'open') throw conflict(M.refundUnderChargeback);
        // what still stands of it (the provider may have refunded part of it already)
        const rest = d.amount - d.refundedAmount;
        const available = (await campaignMoney(tx, d.campaignId, d.currency)).balance - (await pendingPayouts(tx, d.campaignId, d.currency));
        if (available < rest) throw conflict(M.refundExceedsBalance);
        try {
          await provider.refund({
            donationId: d.id,
            providerRef: d.providerRef ?? '',
            amount: rest,
            currency: d.currency,
            idempotencyKey: `refund:${d.id}`,
          });
        } catch (err) {
          if (err instanceof PaymentProviderError) throw conflict(err.message);
          throw err;
        }
        const [original] = await tx
          .select({ id: ledgerGroups.id })
          .from(ledgerGroups)
          .where(and(eq(ledgerGroups.donationId, d.id), eq(ledgerGroups.kind, 'donation')));
        const [g] = await tx.insert(ledgerGroups).values({ kind: 'refund', donationId: d.id, reversesGroupId: original.id }).returning({ id: ledgerGroups.id });
        await tx.insert(ledgerEntries).values([
          { groupId: g.id, accountType: 'campaign', accountId: d.campaignId, amount: -rest, currency: d.currency },
          { groupId: g.id, accountType: 'provider', accountId: d.provider, amount: rest, currency: d.currency },
        ]);
        const now = new Date();
        const [after] = await tx
          .update(donations)
          .set({
            status: 'refunded',
            refundedAmount: d.amount,
            refundedAt: now,
            refundReason: input.reason || null,
            refundedBy: user.id,
            refundKey: idempotencyKey ?? null,
            updatedAt: now,
          })
          .where(eq(donations.id, d.id))
          .returning();
        await tx
          .update(campaignDonors)
          .set({ gifts: sql`${campaignDonors.gifts} - 1`, donated: sql`greatest(${campaignDonors.donated} - ${rest}, 0)` })
          .where(and(eq(campaignDonors.campaignId, d.campaignId), eq(campaignDonors.donorKey, donorKeyOf(d))));
        await recordChange(tx, {
          modelName: 'Donation',
          action: 'update',
          key: d.id,
          fields: ['status', 'refundReason'],
          actorId: user.id,
          subjectUserId: d.donorId,
        });
        return after;
      });
      if (refunded) {
        const to = await donorEmail(refunded);
        const c = await campaignTitle(refunded.campaignId);
        if (to) {
          await sendQuietly(
            donationTemplates.refunded(to, {
              amount: toMajor(refunded.amount),
              currency: refunded.currency,
              campaignTitle: c.title,
              reason: refunded.refundReason,
              link: receiptLink(refunded),
            }),
          );
        }
      }
      return receipts.receipt(actor, id);
    },
  };
}
