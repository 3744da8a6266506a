import { z } from './zod';
import { COMMENT_MAX, FAVORITE_IDS_MAX, FAVORITE_TARGET_TYPES } from '../constants';
import { M } from '../messages';
import { CampaignSchema, ListQuery, OwnerSchema } from './campaigns';
import { IdSchema, text } from './common';
import { ProjectSchema } from './projects';
import { PublicUserSchema } from './user';

// ---- favorites -------------------------------------------------------------------------------

export const FavoriteTargetType = z.enum(FAVORITE_TARGET_TYPES, { error: M.favoriteTypeInvalid });

export const FavoriteInput = z.object({ targetType: FavoriteTargetType, targetId: IdSchema });
/**
 * A page of my favorites: `type` (all types when absent), and the list query's `limit` (default
 * 20, larger values capped to 100) and `cursor` (the previous page's `nextCursor`, opaque).
 */
export const FavoritesQuery = z.object({ type: FavoriteTargetType.optional() }).extend(ListQuery.pick({ limit: true, cursor: true }).shape);
export type FavoritesQuery = z.input<typeof FavoritesQuery>;

export const FavoriteSchema = z.object({
  _id: z.string(),
  targetType: FavoriteTargetType,
  targetId: z.string(),
  createdAt: z.date(),
  /** The favorited thing as its own page shows it. */
  campaign: CampaignSchema.optional(),
  project: ProjectSchema.optional(),
  profile: PublicUserSchema.optional(),
});
export type FavoriteDto = z.infer<typeof FavoriteSchema>;
/**
 * A page of favorites, newest first. Favorites of things that are gone or hidden from the viewer
 * are left out, so a page may hold fewer than `limit` items; `nextCursor` (null on the last page)
 * says whether there are more.
 */
export const FavoriteListSchema = z.object({ items: z.array(FavoriteSchema), nextCursor: z.string().nullable() });
export type FavoriteListDto = z.infer<typeof FavoriteListSchema>;
/**
 * Which of these things of one type are my favorites (the buttons of a page ask about the ids
 * they show): at most FAVORITE_IDS_MAX ids; an id that is not a uuid names nothing, so it is
 * simply not a favorite.
 */
export const FavoriteIdsQuery = z.object({
  type: FavoriteTargetType,
  targetIds: z.array(z.string()).max(FAVORITE_IDS_MAX, M.favoriteIdsTooMany),
});
export type FavoriteIdsQuery = z.input<typeof FavoriteIdsQuery>;
/** The asked ids that are my favorites (none when signed out). */
export const FavoriteIdsSchema = z.object({ ids: z.array(z.string()) });
export const FavoriteStateSchema = z.object({ favorited: z.boolean() });

// ---- comments --------------------------------------------------------------------------------

export const CommentText = text({ error: M.commentTextRequired }).trim().min(1, M.commentTextRequired).max(COMMENT_MAX, M.commentTooLong);

export const CreateCommentInput = z.object({
  text: CommentText,
  imageUrl: text()
    .trim()
    .max(500)
    .nullish()
    .transform((v) => v || null),
  parentId: text()
    .trim()
    .max(100)
    .nullish()
    .transform((v) => v || null),
});
export const UpdateCommentInput = z.object({ text: CommentText });

export const CommentSchema = z.object({
  _id: z.string(),
  campaignId: z.string(),
  /** The author; null when the comment is hidden from the viewer. */
  userId: OwnerSchema.nullable(),
  text: z.string(),
  imageUrl: z.string().nullable(),
  parentId: z.string().nullable(),
  createdAt: z.date(),
  editedAt: z.date().nullable(),
  deletedAt: z.date().nullable(),
  /** True when its author is someone the viewer blocked (kept only to hold visible replies). */
  hidden: z.boolean(),
});
export type CommentDto = z.infer<typeof CommentSchema>;

/**
 * How many replies come with each thread of a page of threads (the oldest ones); the rest come
 * from the replies call (`GET .../comments/{commentId}/replies`, tRPC `comments.replies`) by
 * cursor. Bounds a page: at most limit x (1 + this) comments, however long the threads are.
 */
export const COMMENT_INLINE_REPLIES = 10;

/**
 * A page of threads or of one thread's replies: `limit` (default 20; larger values are capped to
 * 100, like every list) and `cursor` (the previous page's `nextCursor`, opaque), the list query's
 * own building blocks.
 */
export const CommentPageQuery = ListQuery.pick({ limit: true, cursor: true });
export type CommentPageQuery = z.input<typeof CommentPageQuery>;

/** A top-level comment with its first replies (oldest first). */
export const CommentThreadSchema = CommentSchema.extend({
  /** At most COMMENT_INLINE_REPLIES replies, oldest first. */
  replies: z.array(CommentSchema),
  /** True when the thread has more replies than `replies` holds. */
  moreReplies: z.boolean(),
  /** The replies call's `cursor` for the replies after these (null when there are none). */
  repliesNextCursor: z.string().nullable(),
});
export type CommentThreadDto = z.infer<typeof CommentThreadSchema>;
/** A page of threads as REST answers it (the spec's list; the next cursor in headers). */
export const CommentThreadListSchema = z.array(CommentThreadSchema);
/** A page of a campaign's threads, oldest first; `nextCursor` is null on the last page. */
export const CommentListSchema = z.object({
  items: z.array(CommentThreadSchema),
  /** Pass as `cursor` for the next page (null on the last page). */
  nextCursor: z.string().nullable(),
});
export type CommentListDto = z.infer<typeof CommentListSchema>;
/** A page of one thread's replies, oldest first; `nextCursor` is null on the last page. */
export const CommentRepliesSchema = z.object({
  items: z.array(CommentSchema),
  nextCursor: z.string().nullable(),
});
export type CommentRepliesDto = z.infer<typeof CommentRepliesSchema>;

export const CommentParams = z.object({ id: IdSchema, commentId: IdSchema });

// ---- blocks ----------------------------------------------------------------------------------

export const BlockInput = z.object({ userId: IdSchema });
export const BlockedUserSchema = z.object({
  _id: z.string(),
  userId: z.string(),
  username: z.string().nullable(),
  name: z.string().nullable(),
  imageUrl: z.string().nullable(),
  createdAt: z.date(),
});
/** A page of the people I blocked: `limit` (default 20, capped to 100) and `cursor`, as every list. */
export const BlocksQuery = ListQuery.pick({ limit: true, cursor: true });
export type BlocksQuery = z.input<typeof BlocksQuery>;
/** Newest first; `nextCursor` is null on the last page. */
export const BlockListSchema = z.object({ blocked: z.array(BlockedUserSchema), nextCursor: z.string().nullable() });
export type BlockListDto = z.infer<typeof BlockListSchema>;
export const BlockStateSchema = z.object({ blocked: z.boolean(), userId: z.string() });
