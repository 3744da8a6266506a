import { and, desc, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import type {
  CreateUpdateInput,
  EditUpdateInput,
  PostedUpdateDto,
  UpdateAudience,
  UpdateDto,
  UpdateListDto,
  UpdatesQuery,
} from '../../../shared/schemas/updates';
import { rowsOf, type Tx } from '../../db/client';
import { campaigns, campaignUpdates } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { backerSql, canSeeUpdate, isOwner, itemVisibleSql, requireOwner, requireUser, updateVisibleSql, viewerOf } from '../../lib/access';
import { notFound } from '../../lib/errors';
import { changedFields, recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { assertOwnImages } from '../../lib/items';
import { afterCursor, pageOf, readCursor } from '../../lib/listing';
import { updateMail } from './mail';

type Out<T extends z.ZodType> = z.output<T>;
type UpdateRow = typeof campaignUpdates.$inferSelect;
type Campaign = { id: string; title: string; type: string; ownerId: string; releasedAt: Date | null };

function toDto(u: UpdateRow, readable: boolean): UpdateDto {
  return {
    _id: u.id,
    campaignId: u.campaignId,
    title: u.title,
    audience: u.audience,
    locked: !readable,
    body: readable ? u.body : null,
    images: readable ? u.images.map((i) => ({ url: i.url, alt: i.alt ?? '' })) : [],
    createdAt: u.createdAt,
    editedAt: u.editedAt,
  };
}

/**
 * Updates to backers (issue #33 item 5). The owner of a campaign posts news to it, for everyone
 * who sees the campaign or for its backers only (donors with a standing gift and confirmed
 * supporters); who reads an update's text is lib/access.ts's `canSeeUpdate` (`updateVisibleSql` in
 * lists), everyone else who sees the campaign gets a backers-only update as a locked teaser. A
 * draft's updates follow the draft: its owner only (its circle sees the draft, nothing on it).
 *
 * A post is emailed to its audience once, in the transaction that stores it (the mailer's
 * `record`): a public one to the campaign's donors, supporters and the people who favorited it, a
 * backers-only one to its donors and supporters; never to the owner, each address once, guests'
 * addresses included. Nothing is emailed while the campaign is a draft, nor for an edit.
 */
export function createUpdatesService(deps: Deps) {
  const { db, config, mailer } = deps;

  /** The campaign the caller may see (its audience, or theirs): 404 'Campaign not found' otherwise, malformed ids included. */
  async function campaignOf(actor: Actor, id: string): Promise<Campaign> {
    if (!isUuid(id)) throw notFound(M.campaignNotFound);
    const [c] = await db
      .select({ id: campaigns.id, title: campaigns.title, type: campaigns.type, ownerId: campaigns.ownerId, releasedAt: campaigns.releasedAt })
      .from(campaigns)
      .where(and(eq(campaigns.id, id), itemVisibleSql(viewerOf(actor), campaigns)));
    if (!c) throw notFound(M.campaignNotFound);
    return c;
  }

  /** The owner's campaign for a write: 404 when they may not see it, 403 when it is not theirs. */
  async function ownCampaign(actor: Actor, id: string): Promise<{ c: Campaign; userId: string }> {
    requireUser(actor);
    const c = await campaignOf(actor, id);
    const user = requireOwner(actor, c.ownerId, M.updateNotOwner);
    return { c, userId: user.id };
  }

  async function updateOf(campaignId: string, updateId: string): Promise<UpdateRow> {
    if (!isUuid(updateId)) throw notFound(M.updateNotFound);
    const [u] = await db
      .select()
      .from(campaignUpdates)
      .where(and(eq(campaignUpdates.id, updateId), eq(campaignUpdates.campaignId, campaignId)));
    if (!u) throw notFound(M.updateNotFound);
    return u;
  }

  /** Whether the caller backs the campaign (lib/access.ts `backerSql`). */
  async function backs(actor: Actor, campaignId: string): Promise<boolean> {
    if (!actor.user) return false;
    const [r] = rowsOf<{ backer: boolean }>(await db.execute(sql`select ${backerSql(viewerOf(actor), sql`${campaignId}::uuid`)} as backer`));
    return r?.backer === true;
  }

  /**
   * The addresses a new update of this audience goes to, lower-cased, each once, without the
   * owner's: the campaign's donors with a standing gift (accounts and guests) and its confirmed
   * supporters (accounts and guests), and for a public update the people who favorited it.
   */
  async function audienceAddresses(tx: Tx, c: Campaign, audience: UpdateAudience): Promise<string[]> {
    const favorited =
      audience === 'public'
        ? sql`union select u.email from favorites f join users u on u.id = f.user_id where f.target_type = 'campaign' and f.target_id = ${c.id}::uuid`
        : sql``;
    const rows = rowsOf<{ email: string }>(
      await tx.execute(sql`
        select distinct lower(x.email) as email from (
          select u.email from campaign_donors d join users u on u.id = d.user_id
            where d.campaign_id = ${c.id}::uuid and d.gifts > 0 and d.donor_key like 'u:%'
          union select substr(d.donor_key, 3) from campaign_donors d
            where d.campaign_id = ${c.id}::uuid and d.gifts > 0 and d.donor_key like 'e:%'
          union select coalesce(u.email, s.email) from supports s left join users u on u.id = s.user_id
            where s.campaign_id = ${c.id}::uuid and s.confirmed_at is not null
          ${favorited}
        ) x
        where x.email is not null
          and lower(x.email) <> (select lower(o.email) from users o where o.id = ${c.ownerId}::uuid)
        order by 1`),
    );
    return rows.map((r) => r.email);
  }

  return {
    /**
     * A page of the campaign's updates, newest first by (created_at, id) from the cursor on, each
     * readable or a locked teaser for this caller (`updateVisibleSql`); `canPost` for its owner.
     */
    async list(actor: Actor, campaignId: string, query: Out<typeof UpdatesQuery>): Promise<UpdateListDto> {
      const c = await campaignOf(actor, campaignId);
      const cursor = readCursor(query.cursor);
      const rows = await db
        .select({ u: campaignUpdates, readable: sql<boolean>`${updateVisibleSql(viewerOf(actor), campaignUpdates)}` })
        .from(campaignUpdates)
        .where(and(eq(campaignUpdates.campaignId, c.id), cursor ? afterCursor(campaignUpdates.createdAt, campaignUpdates.id, cursor) : undefined))
        .orderBy(desc(campaignUpdates.createdAt), desc(campaignUpdates.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = pageOf(rows, query.limit, (r) => r.u);
      return { items: page.map((r) => toDto(r.u, r.readable === true)), nextCursor, canPost: isOwner(actor.user, c.ownerId) };
    },

    /** One update as the caller may see it (a teaser when it is for backers they are not among). */
    async get(actor: Actor, campaignId: string, updateId: string): Promise<UpdateDto> {
      const c = await campaignOf(actor, campaignId);
      const u = await updateOf(c.id, updateId);
      const readable = canSeeUpdate(actor, c, u, u.audience === 'backers' && (await backs(actor, c.id)));
      return toDto(u, readable);
    },

    /** The owner posts an update; it is emailed to its audience in the same transaction. */
    async create(actor: Actor, campaignId: string, input: Out<typeof CreateUpdateInput>): Promise<PostedUpdateDto> {
      const { c, userId } = await ownCampaign(actor, campaignId);
      await assertOwnImages(
        db,
        userId,
        input.images.map((i) => i.url),
      );
      await deps.limiter.write('update', actor);
      const { row, deliveries } = await db.transaction(async (tx) => {
        // a draft's audience is its owner: nobody is emailed before the release
        const to = c.releasedAt === null ? [] : await audienceAddresses(tx, c, input.audience);
        const [u] = await tx
          .insert(campaignUpdates)
          .values({
            campaignId: c.id,
            authorId: userId,
            title: input.title,
            body: input.body,
            audience: input.audience,
            images: input.images,
            emailed: to.length,
          })
          .returning();
        await recordChange(tx, {
          modelName: 'CampaignUpdate',
          action: 'create',
          key: u.id,
          fields: ['campaignId', 'title', 'body', 'audience', 'images'],
          actorId: userId,
        });
        const link = `${config.appUrl}/campaigns/${c.id}#update-${u.id}`;
        const mail = { campaignTitle: c.title, title: u.title, body: u.body, backersOnly: u.audience === 'backers', imageCount: u.images.length, link };
        const sent: Array<() => void> = [];
        for (const address of to) sent.push(await mailer.record(tx, updateMail(address, mail)));
        return { row: u, deliveries: sent };
      });
      for (const d of deliveries) d();
      return { ...toDto(row, true), emailed: row.emailed };
    },

    /** The owner edits their update (the fields given); an edit is not emailed. */
    async edit(actor: Actor, campaignId: string, updateId: string, input: Out<typeof EditUpdateInput>): Promise<UpdateDto> {
      const { c, userId } = await ownCampaign(actor, campaignId);
      const before = await updateOf(c.id, updateId);
      if (input.images) {
        await assertOwnImages(
          db,
          userId,
          input.images.map((i) => i.url),
          before.images.map((i) => i.url),
        );
      }
      const patch = {
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.body !== undefined ? { body: input.body } : {}),
        ...(input.audience !== undefined ? { audience: input.audience } : {}),
        ...(input.images !== undefined ? { images: input.images } : {}),
      };
      const imagesOf = (list: { url: string; alt?: string }[]) => list.map((i) => ({ url: i.url, alt: i.alt ?? '' }));
      const fields = changedFields(
        { title: before.title, body: before.body, audience: before.audience, images: imagesOf(before.images) },
        { ...patch, ...(patch.images ? { images: imagesOf(patch.images) } : {}) },
      );
      if (!fields.length) return toDto(before, true);
      const row = await db.transaction(async (tx) => {
        const [u] = await tx
          .update(campaignUpdates)
          .set({ ...patch, editedAt: new Date() })
          .where(eq(campaignUpdates.id, before.id))
          .returning();
        if (!u) throw notFound(M.updateNotFound);
        await recordChange(tx, { modelName: 'CampaignUpdate', action: 'update', key: u.id, fields, actorId: userId });
        return u;
      });
      return toDto(row, true);
    },

    /** The owner deletes their update. */
    async remove(actor: Actor, campaignId: string, updateId: string): Promise<void> {
      const { c, userId } = await ownCampaign(actor, campaignId);
      const before = await updateOf(c.id, updateId);
      await db.transaction(async (tx) => {
        const gone = await tx.delete(campaignUpdates).where(eq(campaignUpdates.id, before.id)).returning({ id: campaignUpdates.id });
        if (!gone.length) throw notFound(M.updateNotFound);
        await recordChange(tx, { modelName: 'CampaignUpdate', action: 'delete', key: before.id, actorId: userId });
      });
    },
  };
}

export type UpdatesService = ReturnType<typeof createUpdatesService>;
