import { z } from 'zod';
import { COMMENT_MAX, FAVORITE_TARGET_TYPES } from '../constants';
import { M } from '../messages';
import { CampaignSchema, OwnerSchema } from './campaigns';
import { IdSchema, text } from './common';
import { ProjectSchema } from './projects';
import { PublicUserSchema } from './user';

// ---- favorites -------------------------------------------------------------------------------

export const FavoriteTargetType = z.enum(FAVORITE_TARGET_TYPES, { error: M.favoriteTypeInvalid });

export const FavoriteInput = z.object({ targetType: FavoriteTargetType, targetId: IdSchema });
export const FavoritesQuery = z.object({ type: FavoriteTargetType.optional() });

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
export const FavoriteListSchema = z.object({ items: z.array(FavoriteSchema) });
export const FavoriteIdsSchema = z.object({ ids: z.array(z.string()) });
export const FavoriteStateSchema = z.object({ favorited: z.boolean() });

// ---- comments --------------------------------------------------------------------------------

export const CommentText = text({ error: M.commentTextRequired })
  .trim()
  .min(1, M.commentTextRequired)
  .max(COMMENT_MAX, M.commentTooLong);

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
export const CommentThreadSchema = CommentSchema.extend({ replies: z.array(CommentSchema) });
export type CommentThreadDto = z.infer<typeof CommentThreadSchema>;
export const CommentListSchema = z.array(CommentThreadSchema);

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
export const BlockListSchema = z.object({ blocked: z.array(BlockedUserSchema) });
export const BlockStateSchema = z.object({ blocked: z.boolean(), userId: z.string() });
