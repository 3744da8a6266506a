import { SuggestedUsersQuery } from '../../../shared/schemas/tags';
import { publicProcedure, router } from '../../trpc/init';
import { SuggestedUsersSchema } from './service';

export const usersRouter = router({
  suggested: publicProcedure
    .input(SuggestedUsersQuery)
    .output(SuggestedUsersSchema)
    .query(({ ctx, input }) => ctx.services.users.suggestedForProject(ctx.actor, input.projectId)),
});
