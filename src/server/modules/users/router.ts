import { z } from 'zod';
import { CampaignListSchema, ListQuery } from '../../../shared/schemas/campaigns';
import { IdSchema } from '../../../shared/schemas/common';
import { PublicUserListSchema, PublicUsersQuery, UpdateProfileInput } from '../../../shared/schemas/profiles';
import { SuggestedUsersQuery } from '../../../shared/schemas/tags';
import { PublicUserSchema, UserSchema } from '../../../shared/schemas/user';
import { authedProcedure, publicProcedure, router } from '../../trpc/init';
import { SuggestedUsersSchema } from './service';

export const usersRouter = router({
  list: publicProcedure
    .input(PublicUsersQuery)
    .output(PublicUserListSchema)
    .query(({ ctx, input }) => ctx.services.users.listPublic(ctx.actor, input)),
  get: publicProcedure
    .input(z.object({ id: IdSchema }))
    .output(PublicUserSchema)
    .query(({ ctx, input }) => ctx.services.users.getPublic(ctx.actor, input.id)),
  campaigns: publicProcedure
    .input(ListQuery.extend({ userId: IdSchema }))
    .output(CampaignListSchema)
    .query(({ ctx, input }) => {
      const { userId, ...query } = input;
      return ctx.services.campaigns.listOfUser(ctx.actor, userId, query);
    }),
  suggested: authedProcedure
    .input(SuggestedUsersQuery)
    .output(SuggestedUsersSchema)
    .query(({ ctx, input }) => ctx.services.users.suggestedForProject(ctx.actor, input.projectId)),
  updateProfile: authedProcedure
    .input(UpdateProfileInput)
    .output(UserSchema)
    .mutation(({ ctx, input }) => ctx.services.users.updateProfile(ctx.actor, input)),
});
