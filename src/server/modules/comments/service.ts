import { and, asc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import { isAdmin } from '../../../shared/roles';
import type { CommentDto, CommentThreadDto, CreateCommentInput, UpdateCommentInput } from '../../../shared/schemas/community';
import { blocks, campaigns, comments, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { AppError, forbidden, notFound } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { assertOwnImages } from '../../lib/items';
import { requireUser } from '../auth/service';
import type { CampaignsService } from '../campaigns/service';

type Out<T extends z.ZodType> = z.output<T>;
type CommentRow = typeof comments.$inferSelect;
type Author = { id: string; username: string | null; name: string | null; imageUrl: string | null };

function toDto(c: CommentRow, author: Author | null, hidden = false): CommentDto {
  const gone = c.deletedAt !== null || hidden;
  return {
    _id: c.id,
    campaignId: c.campaignId,
    userId: hidden || !author ? null : { _id: author.id, username: author.username, name: author.name, imageUrl: author.imageUrl, avatarUrl: author.imageUrl },
    text: gone ? '' : c.text,
    imageUrl: gone ? null : c.imageUrl,
    parentId: c.parentId,
    createdAt: c.createdAt,
    editedAt: c.editedAt,
    deletedAt: c.deletedAt,
    hidden,
  };
}

export function createCommentsService(deps: Deps, items: { campaigns: CampaignsService }) {
  const { db } = deps;
  const authorColumns = { id: users.id, username: users.username, name: users.name, imageUrl: users.imageUrl };

  async function commentOf(campaignId: string, commentId: string) {
    if (!isUuid(commentId)) throw notFound(M.commentNotFound);
    const [row] = await db
      .select({ c: comments, author: authorColumns })
      .from(comments)
      .innerJoin(users, eq(users.id, comments.userId))
      .where(and(eq(comments.id, commentId), eq(comments.campaignId, campaignId)));
    if (!row) throw notFound(M.commentNotFound);
    return row;
  }

  return {
    /**
     * The campaign's comments, oldest first, each with its replies. Deleted comments keep
     * their place without text; comments by people the viewer blocked are left out (a
     * blocked person's comment that others replied to stays as an empty, hidden placeholder).
     */
    async list(actor: Actor, campaignId: string): Promise<CommentThreadDto[]> {
      await items.campaigns.get(actor, campaignId);
      const [rows, blocked] = await Promise.all([
        db
          .select({ c: comments, author: authorColumns })
          .from(comments)
          .innerJoin(users, eq(users.id, comments.userId))
          .where(eq(comments.campaignId, campaignId))
          .orderBy(asc(comments.createdAt), asc(comments.id)),
        actor.user
          ? db.select({ id: blocks.blockedId }).from(blocks).where(eq(blocks.blockerId, actor.user.id)).then((r) => new Set(r.map((b) => b.id)))
          : Promise.resolve(new Set<string>()),
      ]);
      const replies = new Map<string, CommentDto[]>();
      for (const r of rows) {
        if (!r.c.parentId || blocked.has(r.c.userId)) continue;
        const list = replies.get(r.c.parentId) ?? [];
        list.push(toDto(r.c, r.author));
        replies.set(r.c.parentId, list);
      }
      const threads: CommentThreadDto[] = [];
      for (const r of rows) {
        if (r.c.parentId) continue;
        const own = replies.get(r.c.id) ?? [];
        if (blocked.has(r.c.userId)) {
          if (own.length) threads.push({ ...toDto(r.c, null, true), replies: own });
          continue;
        }
        threads.push({ ...toDto(r.c, r.author), replies: own });
      }
      return threads;
    },

    /** Any signed-in person may comment or reply; a reply to a reply joins the same thread. */
    async create(actor: Actor, campaignId: string, input: Out<typeof CreateCommentInput>): Promise<CommentDto> {
      const { user } = requireUser(actor);
      await items.campaigns.get(actor, campaignId);
      await deps.limiter.write('comment', actor);
      let parentId: string | null = null;
      if (input.parentId) {
        if (!isUuid(input.parentId)) throw notFound(M.commentParentNotFound);
        const [parent] = await db
          .select({ id: comments.id, parentId: comments.parentId, deletedAt: comments.deletedAt })
          .from(comments)
          .where(and(eq(comments.id, input.parentId), eq(comments.campaignId, campaignId)));
        if (!parent || parent.deletedAt) throw notFound(M.commentParentNotFound);
        parentId = parent.parentId ?? parent.id;
      }
      if (input.imageUrl) await assertOwnImages(db, user.id, [input.imageUrl]);
      const [row] = await db
        .insert(comments)
        .values({ campaignId, userId: user.id, parentId, text: input.text, imageUrl: input.imageUrl })
        .returning();
      return toDto(row, user);
    },

    /** Only the author edits, and not once deleted. */
    async update(actor: Actor, campaignId: string, commentId: string, input: Out<typeof UpdateCommentInput>): Promise<CommentDto> {
      const { user } = requireUser(actor);
      await items.campaigns.get(actor, campaignId);
      const { c } = await commentOf(campaignId, commentId);
      if (c.userId !== user.id) throw forbidden(M.commentEditNotAuthor);
      if (c.deletedAt) throw new AppError('CONFLICT', M.commentDeletedCannotEdit);
      const [row] = await db.update(comments).set({ text: input.text, editedAt: new Date() }).where(eq(comments.id, c.id)).returning();
      return toDto(row, user);
    },

    /** The author, the campaign's owner or an admin deletes; the row stays, its text goes. */
    async remove(actor: Actor, campaignId: string, commentId: string): Promise<CommentDto> {
      const { user } = requireUser(actor);
      await items.campaigns.get(actor, campaignId);
      const { c, author } = await commentOf(campaignId, commentId);
      const [campaign] = await db.select({ ownerId: campaigns.ownerId }).from(campaigns).where(eq(campaigns.id, campaignId));
      if (c.userId !== user.id && campaign?.ownerId !== user.id && !isAdmin(user)) throw forbidden(M.commentDeleteNotAllowed);
      if (c.deletedAt) return toDto(c, author);
      const [row] = await db.update(comments).set({ deletedAt: new Date(), text: '', imageUrl: null }).where(eq(comments.id, c.id)).returning();
      return toDto(row, author);
    },
  };
}

export type CommentsService = ReturnType<typeof createCommentsService>;
