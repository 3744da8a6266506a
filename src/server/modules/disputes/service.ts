import { and, asc, desc, eq, inArray, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import type {
  AdminDisputeDto,
  AdminDisputesQuery,
  DisputeDto,
  DisputeInput,
  DisputesQuery,
  DisputeStatusInput,
  PayoutHoldDto,
} from '../../../shared/schemas/payouts';
import type { DbOrTx } from '../../db/client';
import { campaignDonors, campaigns, disputes, donations, payouts, supports, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors';
import { recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { canSeeDonation, isOwner, itemVisibleSql, mayHoldPayouts, requireAdmin, viewerOf } from '../../lib/access';
import { afterCursor, pageOf, readCursor } from '../../lib/listing';
import { payoutTemplates } from '../../mail/payout-templates';
import { requireUser } from '../auth/service';

type Out<T extends z.ZodType> = z.output<T>;
type DisputeRow = typeof disputes.$inferSelect;
type Row = { d: DisputeRow; title: string };

/** A dispute that holds payouts: about the campaign's payouts (type payout) or naming one payout. */
export const holdsPayouts = (d: { type: string; payoutId?: string | null }) => d.type === 'payout' || !!d.payoutId;

/** Resolved and rejected are final: nothing moves a dispute out of them. */
export const isClosed = (status: DisputeRow['status']) => status === 'resolved' || status === 'rejected';

/**
 * Whether the person has a stake in the campaign: they gave to it (a donation of theirs
 * succeeded, even if it was refunded later: campaign_donors keeps their row) or support it
 * (confirmed). Gifts and supports made as a guest count under the account's email once that
 * email is verified.
 */
async function hasStake(db: DbOrTx, campaignId: string, user: { id: string; email: string; emailVerifiedAt: Date | null }): Promise<boolean> {
  const email = user.emailVerifiedAt ? user.email.toLowerCase() : null;
  const [gave] = await db
    .select({ one: campaignDonors.campaignId })
    .from(campaignDonors)
    .where(and(eq(campaignDonors.campaignId, campaignId), inArray(campaignDonors.donorKey, email ? [`u:${user.id}`, `e:${email}`] : [`u:${user.id}`])))
    .limit(1);
  if (gave) return true;
  const [supports_] = await db
    .select({ one: supports.id })
    .from(supports)
    .where(
      and(
        eq(supports.campaignId, campaignId),
        isNotNull(supports.confirmedAt),
        email ? or(eq(supports.userId, user.id), eq(supports.email, email)) : eq(supports.userId, user.id),
      ),
    )
    .limit(1);
  return !!supports_;
}

const toDto = ({ d, title }: Row): DisputeDto => ({
  _id: d.id,
  campaignId: d.campaignId,
  campaign: { _id: d.campaignId, title },
  donationId: d.donationId,
  payoutId: d.payoutId,
  type: d.type,
  reason: d.reason,
  details: d.details,
  status: d.status,
  resolutionNotes: d.resolutionNotes,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

// --- what holds payouts (payouts/service.ts asks) -----------------------------------------

/**
 * An open or under-review dispute about the payout in the row, or about the payouts of its
 * campaign. Only these hold payouts: a dispute of type donation or other that names no payout
 * holds nothing. Raising one takes a stake in the campaign (`create` below).
 */
export const payoutDisputedSql = sql<boolean>`exists (select 1 from ${disputes} d where d.status in ('open', 'under_review')
    and (d.payout_id = ${payouts.id} or (d.campaign_id = ${payouts.campaignId} and d.type = 'payout' and d.payout_id is null)))`;

/**
 * What holds a campaign's payouts, oldest first: its open or under-review disputes about all of
 * its payouts (`payoutId` null: no payout can be requested or approved) or about one payout
 * still pending (that one cannot be approved). For the owner and admins: the reason, never the
 * author (payouts/service.ts answers them with the balance and refuses new requests under one).
 */
export async function payoutHolds(via: DbOrTx, campaignId: string): Promise<PayoutHoldDto[]> {
  const rows = await via
    .select({ payoutId: disputes.payoutId, type: disputes.type, reason: disputes.reason, status: disputes.status, since: disputes.createdAt })
    .from(disputes)
    .leftJoin(payouts, eq(payouts.id, disputes.payoutId))
    .where(
      and(
        eq(disputes.campaignId, campaignId),
        inArray(disputes.status, ['open', 'under_review']),
        or(and(eq(disputes.type, 'payout'), isNull(disputes.payoutId)), eq(payouts.status, 'pending')),
      ),
    )
    .orderBy(asc(disputes.createdAt), asc(disputes.id));
  return rows.map((r) => ({ ...r, status: r.status === 'under_review' ? 'under_review' : 'open' }));
}

/** Whether an open or under-review dispute holds this payout: about it, or about all of its campaign's payouts. */
export async function holdsPayout(via: DbOrTx, p: { id: string; campaignId: string }): Promise<boolean> {
  const [open] = await via
    .select({ id: disputes.id })
    .from(disputes)
    .where(
      and(
        inArray(disputes.status, ['open', 'under_review']),
        or(eq(disputes.payoutId, p.id), and(eq(disputes.campaignId, p.campaignId), eq(disputes.type, 'payout'), isNull(disputes.payoutId))),
      ),
    )
    .limit(1);
  return !!open;
}

/**
 * Disputes: a signed-in person objects to a campaign, one of its donations (their own, or any
 * when they own the campaign) or one of its payouts. Only the author and admins ever see a
 * dispute; admins move it to under_review, resolved or rejected, and the author is told.
 *
 * A dispute about a campaign's payouts (type payout) or naming one payout holds them while it is
 * open or under review (payouts/service.ts): only someone with a stake may raise one, and the
 * owner is told at once, with the reason.
 */
export function createDisputesService(deps: Deps) {
  const { db, config, mailer } = deps;

  return {
    async create(actor: Actor, input: Out<typeof DisputeInput>): Promise<DisputeDto> {
      const { user } = requireUser(actor);
      if (!isUuid(input.campaignId)) throw notFound(M.campaignNotFound);
      const conds: SQL[] = [eq(campaigns.id, input.campaignId), itemVisibleSql(viewerOf(actor), campaigns)];
      const [c] = await db
        .select({ id: campaigns.id, title: campaigns.title, ownerId: campaigns.ownerId, ownerEmail: users.email })
        .from(campaigns)
        .innerJoin(users, eq(users.id, campaigns.ownerId))
        .where(and(...conds));
      if (!c) throw notFound(M.campaignNotFound);
      // A dispute that holds payouts is for those with a stake: the campaign's donors and
      // supporters, its owner (their own money: how they stop a payout requested by mistake)
      // and admins. Anyone else would freeze a stranger's money.
      const holds = holdsPayouts(input);
      if (holds && !(await mayHoldPayouts(actor, c.ownerId, () => hasStake(db, c.id, user)))) throw forbidden(M.disputePayoutNoStake);
      if (input.donationId) {
        // a donation the author can see: their own, or any of their own campaign's
        const [d] = isUuid(input.donationId)
          ? await db.select({ campaignId: donations.campaignId, donorId: donations.donorId }).from(donations).where(eq(donations.id, input.donationId))
          : [];
        if (!d || !canSeeDonation(actor, { donorId: d.donorId, campaignOwnerId: c.ownerId })) throw notFound(M.donationNotFound);
        if (d.campaignId !== c.id) throw badRequest(M.disputeDonationOtherCampaign);
      }
      if (input.payoutId) {
        const [p] = isUuid(input.payoutId) ? await db.select({ campaignId: payouts.campaignId }).from(payouts).where(eq(payouts.id, input.payoutId)) : [];
        if (!p || p.campaignId !== c.id) throw badRequest(M.disputePayoutOtherCampaign);
      }
      // one open dispute per author and subject (a courtesy against repeats, not a lock: two at once may both pass)
      const [same] = await db
        .select({ id: disputes.id })
        .from(disputes)
        .where(
          and(
            eq(disputes.userId, user.id),
            eq(disputes.campaignId, c.id),
            eq(disputes.type, input.type),
            input.donationId ? eq(disputes.donationId, input.donationId) : isNull(disputes.donationId),
            input.payoutId ? eq(disputes.payoutId, input.payoutId) : isNull(disputes.payoutId),
            inArray(disputes.status, ['open', 'under_review']),
          ),
        )
        .limit(1);
      if (same) throw conflict(M.disputeAlreadyOpen);
      await deps.limiter.write('dispute', actor);
      const { row, deliver } = await db.transaction(async (tx) => {
        const [d] = await tx
          .insert(disputes)
          .values({
            userId: user.id,
            campaignId: c.id,
            donationId: input.donationId || null,
            payoutId: input.payoutId || null,
            type: input.type,
            reason: input.reason,
            details: input.details,
          })
          .returning();
        await recordChange(tx, { modelName: 'Dispute', action: 'create', key: d.id, fields: ['campaignId', 'type', 'reason', 'details'], actorId: user.id });
        // the owner learns at once of a dispute about their campaign, and why (never who asked),
        // and whether it holds their payouts
        const link = `${config.appUrl}/campaigns/${c.id}`;
        const sent = isOwner(user, c.ownerId)
          ? null
          : await mailer.record(
              tx,
              holds
                ? payoutTemplates.payoutsHeld(c.ownerEmail, { campaignTitle: c.title, reason: d.reason, onePayout: d.payoutId !== null, link })
                : payoutTemplates.disputeRaised(c.ownerEmail, { campaignTitle: c.title, reason: d.reason, link }),
            );
        return { row: d, deliver: sent };
      });
      deliver?.();
      return toDto({ d: row, title: c.title });
    },

    /** My disputes, newest first. */
    async mine(actor: Actor, query: Out<typeof DisputesQuery>): Promise<{ items: DisputeDto[]; nextCursor: string | null }> {
      const { user } = requireUser(actor);
      const cursor = readCursor(query.cursor);
      const rows = await db
        .select({ d: disputes, title: campaigns.title })
        .from(disputes)
        .innerJoin(campaigns, eq(campaigns.id, disputes.campaignId))
        .where(and(eq(disputes.userId, user.id), cursor ? afterCursor(disputes.createdAt, disputes.id, cursor) : undefined))
        .orderBy(desc(disputes.createdAt), desc(disputes.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = pageOf(rows, query.limit, (r) => r.d);
      return { items: page.map(toDto), nextCursor };
    },

    /** Disputes by status for the admin console, newest first, with their authors. */
    async adminList(actor: Actor, query: Out<typeof AdminDisputesQuery>): Promise<{ items: AdminDisputeDto[]; nextCursor: string | null }> {
      requireAdmin(actor);
      const cursor = readCursor(query.cursor);
      const rows = await db
        .select({ d: disputes, title: campaigns.title, author: { id: users.id, name: users.name, username: users.username, email: users.email } })
        .from(disputes)
        .innerJoin(campaigns, eq(campaigns.id, disputes.campaignId))
        .innerJoin(users, eq(users.id, disputes.userId))
        .where(and(query.status ? eq(disputes.status, query.status) : undefined, cursor ? afterCursor(disputes.createdAt, disputes.id, cursor) : undefined))
        .orderBy(desc(disputes.createdAt), desc(disputes.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = pageOf(rows, query.limit, (r) => r.d);
      return {
        items: page.map((r) => ({ ...toDto(r), author: { _id: r.author.id, name: r.author.name, username: r.author.username, email: r.author.email } })),
        nextCursor,
      };
    },

    /**
     * An admin sets the status with notes (one call: the notes given are the notes kept). A dispute
     * moves from open to under_review, resolved or rejected, and from under_review to resolved,
     * rejected or under_review again with other notes; resolved and rejected are final (409).
     * History and emails follow a change only: the same status and notes again change nothing.
     * The author is told of every change; when a dispute that held payouts closes, so is the
     * campaign's owner.
     */
    async setStatus(actor: Actor, id: string, input: Out<typeof DisputeStatusInput>): Promise<DisputeDto> {
      const admin = requireAdmin(actor);
      if (!isUuid(id)) throw notFound(M.disputeNotFound);
      const notes = input.resolutionNotes || null;
      const { updated, changed } = await db.transaction(async (tx) => {
        const [before] = await tx.select().from(disputes).where(eq(disputes.id, id)).for('update');
        if (!before) throw notFound(M.disputeNotFound);
        if (isClosed(before.status)) throw conflict(M.disputeClosed);
        if (before.status === input.status && before.resolutionNotes === notes) return { updated: before, changed: false };
        const [d] = await tx
          .update(disputes)
          .set({ status: input.status, resolutionNotes: notes, updatedAt: new Date() })
          .where(eq(disputes.id, id))
          .returning();
        const fields = (['status', 'resolutionNotes'] as const).filter((f) => before[f] !== d[f]);
        await recordChange(tx, { modelName: 'Dispute', action: 'update', key: id, fields: [...fields], actorId: admin.id, subjectUserId: before.userId });
        return { updated: d, changed: true };
      });
      const [row] = await db
        .select({ title: campaigns.title, email: users.email, ownerId: campaigns.ownerId })
        .from(campaigns)
        .innerJoin(users, eq(users.id, updated.userId))
        .where(eq(campaigns.id, updated.campaignId));
      if (row && changed) {
        await mailer.send(
          payoutTemplates.disputeStatus(row.email, {
            campaignTitle: row.title,
            status: updated.status,
            notes: updated.resolutionNotes ?? '',
            link: `${config.appUrl}/myDisputes`,
          }),
        );
        if (holdsPayouts(updated) && isClosed(updated.status) && row.ownerId !== updated.userId) {
          const [owner] = await db.select({ email: users.email }).from(users).where(eq(users.id, row.ownerId));
          if (owner) {
            await mailer.send(
              payoutTemplates.payoutsHoldEnded(owner.email, {
                campaignTitle: row.title,
                status: updated.status,
                onePayout: updated.payoutId !== null,
                link: `${config.appUrl}/campaigns/${updated.campaignId}`,
              }),
            );
          }
        }
      }
      return toDto({ d: updated, title: row?.title ?? '' });
    },
  };
}

export type DisputesService = ReturnType<typeof createDisputesService>;
