import { and, asc, eq, isNull, or, sql, type SQL, type AnyColumn } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import {
  COMMENT_INLINE_REPLIES,
  type CommentDto,
  type CommentListDto,
  type CommentPageQuery,
  type CommentRepliesDto,
  type CommentThreadDto,
  type CreateCommentInput,
  type UpdateCommentInput,
} from '../../../shared/schemas/community';
import { blocks, campaigns, comments, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { AppError, conflict, forbidden, notFound } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { assertOwnImages } from '../../lib/items';
import { encodeCursor, pageOf, readCursor } from '../../lib/listing';
import { canDeleteComment, requireUser } from '../../lib/access';
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

/**
 * A reply as a page of threads carries it in its JSON column (json_build_array):
 * [id, user_id, text, image_url, created_at, edited_at, deleted_at, username, name, image_url];
 * times are ISO 8601 strings with their offset.
 */
type ReplyTuple = [string, string, string, string | null, string, string | null, string | null, string | null, string | null, string | null];

function replyOf(thread: CommentRow, t: ReplyTuple): { c: CommentRow; author: Author } {
  const [id, userId, text, imageUrl, createdAt, editedAt, deletedAt, username, name, authorImageUrl] = t;
  const date = (v: string | null) => (v === null ? null : new Date(v));
  return {
    c: {
      id,
      campaignId: thread.campaignId,
      userId,
      parentId: thread.id,
      text,
      imageUrl,
      createdAt: new Date(createdAt),
      editedAt: date(editedAt),
      deletedAt: date(deletedAt),
    },
    author: { id: userId, username, name, imageUrl: authorImageUrl },
  };
}

/** Rows after the cursor in (created_at, id) order, oldest first: a row comparison the thread and reply indexes serve. */
function afterAsc(createdAt: AnyColumn, id: AnyColumn, c: { t: string; id: string }): SQL {
  return sql`(${createdAt}, ${id}) > (${c.t}::timestamptz, ${c.id}::uuid)`;
}

/**
 * The viewer's block of the author in `column`: `true`, or null when there is none. A scalar
 * subquery on blocks_blocker_blocked_key (blocker_id, blocked_id), unique, so at most one row:
 * PostgreSQL runs it as a SubPlan, one index probe per row it tests, whatever the number of
 * blocks, on rows read in index order, so a page still stops after its rows. (`author <>
 * all(array(...blocked ids))` cost every block for every row. `NOT EXISTS` lets the planner turn
 * it into a hash anti join: in a page of replies, that read the thread's replies from the cursor
 * to its end and sorted them, and for the threads it hashed the viewer's blocks.)
 */
function blockOf(viewerId: string, column: AnyColumn | SQL): SQL {
  const b = sql.identifier('b');
  return sql`(select true from ${blocks} as ${b} where ${b}.blocker_id = ${viewerId} and ${b}.blocked_id = ${column})`;
}
function blockedBy(viewerId: string, column: AnyColumn | SQL): SQL {
  return sql`${blockOf(viewerId, column)} is not null`;
}
function notBlockedBy(viewerId: string, column: AnyColumn | SQL): SQL {
  return sql`${blockOf(viewerId, column)} is null`;
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

  /** The campaign must be one the viewer may see (the campaign detail's rule, adult campaigns included): its 404 otherwise. */
  function visibleCampaign(actor: Actor, campaignId: string): Promise<unknown> {
    return items.campaigns.visible(actor, campaignId);
  }

  return {
    /**
     * A page of the campaign's threads (top-level comments), oldest first by (created_at, id)
     * from the cursor on, each with its first COMMENT_INLINE_REPLIES replies (oldest first) and
     * a cursor for the rest (`replies`). Deleted comments keep their place without text;
     * comments by people the viewer blocked are left out, except that a blocked person's thread
     * with visible replies stays as an empty, hidden placeholder holding them.
     *
     * One statement, whatever the campaign's size: limit + 1 entries of comments_threads_idx
     * (the page and one more, which tells whether there is a next page), and for each thread a
     * subquery reading at most COMMENT_INLINE_REPLIES + 1 entries of comments_replies_idx (one
     * more than shown tells that there are more), aggregated into one JSON column. It runs next
     * to the campaign check, which decides whether the answer is given at all.
     */
    async list(actor: Actor, campaignId: string, query: Out<typeof CommentPageQuery>): Promise<CommentListDto> {
      const cursor = readCursor(query.cursor);
      const { limit } = query;
      const visible = visibleCampaign(actor, campaignId);
      // a malformed id names no campaign: its 404, before any SQL sees it
      if (!isUuid(campaignId)) await visible;
      const viewerId = actor.user?.id ?? null;
      const r = sql.identifier('r');
      const rr = sql.identifier('rr');
      const ru = sql.identifier('ru');
      const replyNotBlocked = viewerId ? sql`and ${notBlockedBy(viewerId, sql`${r}.user_id`)}` : sql``;
      // [id, user_id, text, image_url, created_at, edited_at, deleted_at, username, name, image_url] of each reply, oldest first
      const firstReplies = sql<string>`(
        select coalesce(json_agg(json_build_array(${rr}.id, ${rr}.user_id, ${rr}.text, ${rr}.image_url, ${rr}.created_at, ${rr}.edited_at,
                                                  ${rr}.deleted_at, ${ru}.username, ${ru}.name, ${ru}.image_url)
                                 order by ${rr}.created_at, ${rr}.id), '[]')::text
        from (select ${r}.id, ${r}.user_id, ${r}.text, ${r}.image_url, ${r}.created_at, ${r}.edited_at, ${r}.deleted_at
              from ${comments} as ${r}
              where ${r}.parent_id = ${comments.id} ${replyNotBlocked}
              order by ${r}.created_at, ${r}.id
              limit ${sql.raw(String(COMMENT_INLINE_REPLIES + 1))}) as ${rr}
        join ${users} as ${ru} on ${ru}.id = ${rr}.user_id)`;
      const [, rows] = await Promise.all([
        visible,
        db
          .select({
            c: comments,
            author: authorColumns,
            blocked: viewerId ? sql<boolean>`${blockedBy(viewerId, comments.userId)}` : sql<boolean>`false`,
            replies: firstReplies,
          })
          .from(comments)
          .innerJoin(users, eq(users.id, comments.userId))
          .where(
            and(
              eq(comments.campaignId, campaignId),
              // the literal predicate of the partial index comments_threads_idx
              isNull(comments.parentId),
              cursor ? afterAsc(comments.createdAt, comments.id, cursor) : undefined,
              viewerId
                ? or(
                    notBlockedBy(viewerId, comments.userId),
                    // its first visible reply (a scalar subquery with LIMIT: never hashed over the whole table)
                    sql`(select 1 from ${comments} as ${r} where ${r}.parent_id = ${comments.id} ${replyNotBlocked} order by ${r}.created_at, ${r}.id limit 1) is not null`,
                  )
                : undefined,
            ),
          )
          .orderBy(asc(comments.createdAt), asc(comments.id))
          .limit(limit + 1),
      ]);
      const { page, nextCursor } = pageOf(rows, limit, (r) => r.c);
      const threads: CommentThreadDto[] = page.map((row) => {
        const own = (JSON.parse(row.replies) as ReplyTuple[]).map((t) => replyOf(row.c, t));
        const shown = own.slice(0, COMMENT_INLINE_REPLIES);
        const more = own.length > COMMENT_INLINE_REPLIES;
        return {
          ...(row.blocked ? toDto(row.c, null, true) : toDto(row.c, row.author)),
          replies: shown.map((x) => toDto(x.c, x.author)),
          moreReplies: more,
          repliesNextCursor: more ? encodeCursor(shown[shown.length - 1].c) : null,
        };
      });
      return { items: threads, nextCursor };
    },

    /**
     * A page of one thread's replies, oldest first from the cursor on (a thread's
     * `repliesNextCursor` continues after its inline replies), without those of people the
     * viewer blocked. The thread must be a comment of this campaign (else 404); a reply has no
     * replies (a reply to a reply joins its thread), so it answers an empty page. One
     * statement: the thread, and limit + 1 entries of comments_replies_idx from the cursor on.
     */
    async replies(actor: Actor, campaignId: string, commentId: string, query: Out<typeof CommentPageQuery>): Promise<CommentRepliesDto> {
      const cursor = readCursor(query.cursor);
      const { limit } = query;
      const visible = visibleCampaign(actor, campaignId);
      if (!isUuid(campaignId)) await visible;
      if (!isUuid(commentId)) {
        await visible;
        throw notFound(M.commentNotFound);
      }
      const viewerId = actor.user?.id ?? null;
      const r = alias(comments, 'r');
      const ru = alias(users, 'ru');
      const page = db
        .select({
          id: r.id,
          campaignId: r.campaignId,
          userId: r.userId,
          parentId: r.parentId,
          text: r.text,
          imageUrl: r.imageUrl,
          createdAt: r.createdAt,
          editedAt: r.editedAt,
          deletedAt: r.deletedAt,
          authorUsername: sql<string | null>`${ru.username}`.as('author_username'),
          authorName: sql<string | null>`${ru.name}`.as('author_name'),
          authorImageUrl: sql<string | null>`${ru.imageUrl}`.as('author_image_url'),
        })
        .from(r)
        .innerJoin(ru, eq(ru.id, r.userId))
        .where(
          and(eq(r.parentId, comments.id), cursor ? afterAsc(r.createdAt, r.id, cursor) : undefined, viewerId ? notBlockedBy(viewerId, r.userId) : undefined),
        )
        .orderBy(asc(r.createdAt), asc(r.id))
        .limit(limit + 1)
        .as('x');
      const [, rows] = await Promise.all([
        visible,
        db
          .select({
            thread: comments.id,
            reply: {
              id: page.id,
              campaignId: page.campaignId,
              userId: page.userId,
              parentId: page.parentId,
              text: page.text,
              imageUrl: page.imageUrl,
              createdAt: page.createdAt,
              editedAt: page.editedAt,
              deletedAt: page.deletedAt,
              authorUsername: page.authorUsername,
              authorName: page.authorName,
              authorImageUrl: page.authorImageUrl,
            },
          })
          .from(comments)
          .leftJoinLateral(page, sql`true`)
          .where(and(eq(comments.id, commentId), eq(comments.campaignId, campaignId)))
          .orderBy(asc(page.createdAt), asc(page.id)),
      ]);
      if (!rows.length) throw notFound(M.commentNotFound);
      const replies = rows.flatMap(({ reply }) => {
        if (!reply?.id) return [];
        const { authorUsername, authorName, authorImageUrl, ...c } = reply as CommentRow & {
          authorUsername: string | null;
          authorName: string | null;
          authorImageUrl: string | null;
        };
        return [{ c, author: { id: c.userId, username: authorUsername, name: authorName, imageUrl: authorImageUrl } }];
      });
      const { page: shown, nextCursor } = pageOf(replies, limit, (x) => x.c);
      return { items: shown.map((x) => toDto(x.c, x.author)), nextCursor };
    },

    /** Any signed-in person may comment or reply; a reply to a reply joins the same thread. */
    async create(actor: Actor, campaignId: string, input: Out<typeof CreateCommentInput>): Promise<CommentDto> {
      const { user } = requireUser(actor);
      const campaign = await items.campaigns.visible(actor, campaignId);
      // comments open at release, as money and support do: a draft takes none, not even its owner's (409)
      if (campaign.visibility !== 'released') throw conflict(M.draftCommentsClosed);
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
      const [row] = await db.insert(comments).values({ campaignId, userId: user.id, parentId, text: input.text, imageUrl: input.imageUrl }).returning();
      return toDto(row, user);
    },

    /** Only the author edits, and not once deleted. */
    async update(actor: Actor, campaignId: string, commentId: string, input: Out<typeof UpdateCommentInput>): Promise<CommentDto> {
      const { user } = requireUser(actor);
      await items.campaigns.visible(actor, campaignId);
      const { c } = await commentOf(campaignId, commentId);
      if (c.userId !== user.id) throw forbidden(M.commentEditNotAuthor);
      if (c.deletedAt) throw new AppError('CONFLICT', M.commentDeletedCannotEdit);
      const [row] = await db.update(comments).set({ text: input.text, editedAt: new Date() }).where(eq(comments.id, c.id)).returning();
      return toDto(row, user);
    },

    /** The author, the campaign's owner or an admin deletes; the row stays, its text goes. */
    async remove(actor: Actor, campaignId: string, commentId: string): Promise<CommentDto> {
      const { user } = requireUser(actor);
      await items.campaigns.visible(actor, campaignId);
      const { c, author } = await commentOf(campaignId, commentId);
      const [campaign] = await db.select({ ownerId: campaigns.ownerId }).from(campaigns).where(eq(campaigns.id, campaignId));
      if (!canDeleteComment(user, c.userId, campaign?.ownerId)) throw forbidden(M.commentDeleteNotAllowed);
      if (c.deletedAt) return toDto(c, author);
      const [row] = await db.update(comments).set({ deletedAt: new Date(), text: '', imageUrl: null }).where(eq(comments.id, c.id)).returning();
      return toDto(row, author);
    },
  };
}

export type CommentsService = ReturnType<typeof createCommentsService>;
