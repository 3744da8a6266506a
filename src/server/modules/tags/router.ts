import { TagListSchema, TagSearchQuery } from '../../../shared/schemas/tags';
import { publicProcedure, router } from '../../trpc/init';

export const tagsRouter = router({
  search: publicProcedure
    .input(TagSearchQuery)
    .output(TagListSchema)
    .query(({ ctx, input }) => ctx.services.tags.search(ctx.actor, input)),
});
