import { and, desc, eq, ne, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import { isAdmin } from '../../../shared/roles';
import type { AdminDisputeDto, AdminDisputesQuery, DisputeDto, DisputeInput, DisputesQuery, DisputeStatusInput } from '../../../shared/schemas/payouts';
import { campaigns, disputes, donations, payouts, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { badRequest, forbidden, notFound } from '../../lib/errors';
import { recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { canSeeAdult } from '../../lib/items';
import { afterCursor, pageOf, readCursor } from '../../lib/listing';
import { payoutTemplates } from '../../mail/payout-templates';
import { requireUser } from '../auth/service';

type Out<T extends z.ZodType> = z.output<T>;
type Row = { d: typeof disputes.$inferSelect; title: string };

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

/**
 * Disputes: a signed-in person objects to a campaign, one of its donations (their own, or any
 * when they own the campaign) or one of its payouts. Only the author and admins ever see a
 * dispute; admins move it to under_review, resolved or rejected, and the author is told.
 */
export function createDisputesService(deps: Deps) {
  const { db, config, mailer } = deps;

  function requireAdmin(actor: Actor) {
    const { user } = requireUser(actor);
    if (!isAdmin(user)) throw forbidden(M.accessDenied);
    return user;
  }

  return {
    async create(actor: Actor, input: Out<typeof DisputeInput>): Promise<DisputeDto> {
      const { user } = requireUser(actor);
      if (!isUuid(input.campaignId)) throw notFound(M.campaignNotFound);
      const conds: SQL[] = [eq(campaigns.id, input.campaignId)];
      if (!canSeeAdult(actor)) conds.push(ne(campaigns.type, 'adult'));
      const [c] = await db
        .select({ id: campaigns.id, title: campaigns.title, ownerId: campaigns.ownerId })
        .from(campaigns)
        .where(and(...conds));
      if (!c) throw notFound(M.campaignNotFound);
      if (input.donationId) {
        // a donation the author can see: their own, or any of their own campaign's
        const [d] = isUuid(input.donationId)
          ? await db.select({ campaignId: donations.campaignId, donorId: donations.donorId }).from(donations).where(eq(donations.id, input.donationId))
          : [];
        if (!d || (d.donorId !== user.id && c.ownerId !== user.id)) throw notFound(M.donationNotFound);
        if (d.campaignId !== c.id) throw badRequest(M.disputeDonationOtherCampaign);
      }
      if (input.payoutId) {
        const [p] = isUuid(input.payoutId) ? await db.select({ campaignId: payouts.campaignId }).from(payouts).where(eq(payouts.id, input.payoutId)) : [];
        if (!p || p.campaignId !== c.id) throw badRequest(M.disputePayoutOtherCampaign);
      }
      await deps.limiter.write('dispute', actor);
      const row = await db.transaction(async (tx) => {
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
        return d;
      });
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

    /** An admin sets the status with notes (one call: the notes given are the notes kept); the author is emailed. */
    async setStatus(actor: Actor, id: string, input: Out<typeof DisputeStatusInput>): Promise<DisputeDto> {
      const admin = requireAdmin(actor);
      if (!isUuid(id)) throw notFound(M.disputeNotFound);
      const updated = await db.transaction(async (tx) => {
        const [before] = await tx.select().from(disputes).where(eq(disputes.id, id)).for('update');
        if (!before) throw notFound(M.disputeNotFound);
        const [d] = await tx
          .update(disputes)
          .set({ status: input.status, resolutionNotes: input.resolutionNotes || null, updatedAt: new Date() })
          .where(eq(disputes.id, id))
          .returning();
        const fields = ['status', 'resolutionNotes'].filter((f) => (before as Record<string, unknown>)[f] !== (d as Record<string, unknown>)[f]);
        await recordChange(tx, { modelName: 'Dispute', action: 'update', key: id, fields, actorId: admin.id, subjectUserId: before.userId });
        return d;
      });
      const [row] = await db
        .select({ title: campaigns.title, email: users.email })
        .from(campaigns)
        .innerJoin(users, eq(users.id, updated.userId))
        .where(eq(campaigns.id, updated.campaignId));
      if (row) {
        await mailer.send(
          payoutTemplates.disputeStatus(row.email, {
            campaignTitle: row.title,
            status: updated.status,
            notes: updated.resolutionNotes ?? '',
            link: `${config.appUrl}/myDisputes`,
          }),
        );
      }
      return toDto({ d: updated, title: row?.title ?? '' });
    },
  };
}

export type DisputesService = ReturnType<typeof createDisputesService>;
