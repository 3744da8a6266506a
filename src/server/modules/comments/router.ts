import { z } from 'zod';
import {
  CommentListSchema,
  CommentPageQuery,
  CommentRepliesSchema,
  CommentSchema,
  CreateCommentInput,
  UpdateCommentInput,
} from '../../../shared/schemas/community';
import { IdSchema } from '../../../shared/schemas/common';
import { authedProcedure, publicProcedure, router } from '../../trpc/init';

const OnCampaign = z.object({ campaignId: IdSchema });
const OneComment = OnCampaign.extend({ commentId: IdSchema });

export const commentsRouter = router({
  /** A page of threads: `{ campaignId, limit?, cursor? }` (an infinite query pages by `cursor`). */
  list: publicProcedure
    .input(OnCampaign.extend(CommentPageQuery.shape))
    .output(CommentListSchema)
    .query(({ ctx, input }) => ctx.services.comments.list(ctx.actor, input.campaignId, input)),
  /** A page of one thread's replies: `{ campaignId, commentId, limit?, cursor? }`. */
  replies: publicProcedure
    .input(OneComment.extend(CommentPageQuery.shape))
    .output(CommentRepliesSchema)
    .query(({ ctx, input }) => ctx.services.comments.replies(ctx.actor, input.campaignId, input.commentId, input)),
  create: authedProcedure
    .input(OnCampaign.extend({ data: CreateCommentInput }))
    .output(CommentSchema)
    .mutation(({ ctx, input }) => ctx.services.comments.create(ctx.actor, input.campaignId, input.data)),
  update: authedProcedure
    .input(OneComment.extend({ data: UpdateCommentInput }))
    .output(CommentSchema)
    .mutation(({ ctx, input }) => ctx.services.comments.update(ctx.actor, input.campaignId, input.commentId, input.data)),
  delete: authedProcedure
    .input(OneComment)
    .output(CommentSchema)
    .mutation(({ ctx, input }) => ctx.services.comments.remove(ctx.actor, input.campaignId, input.commentId)),
});
