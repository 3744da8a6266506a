import { z } from 'zod';
import { IdSchema } from '../../../shared/schemas/common';
import {
  CreateTeamInput,
  InviteMemberInput,
  TeamItemsSchema,
  TeamListQuery,
  TeamListSchema,
  TeamMemberSchema,
  TeamMembersQuery,
  TeamMembersSchema,
  TeamPageQuery,
  TeamSchema,
  TeamSuggestedQuery,
  TeamSuggestedUsersSchema,
  TeamTagSchema,
  TeamTagsSchema,
  UpdateMemberInput,
  UpdateTeamInput,
} from '../../../shared/schemas/teams';
import { authedProcedure, publicProcedure, router } from '../../trpc/init';

const ById = z.object({ id: IdSchema });
/** `memberId` is the member's user id, as in the REST paths. */
const ByMember = z.object({ id: IdSchema, memberId: IdSchema });
const ByTag = z.object({ id: IdSchema, tag: TeamTagSchema });
const Deleted = z.object({ deleted: z.literal(true) });

export const teamsRouter = router({
  list: publicProcedure
    .input(TeamListQuery)
    .output(TeamListSchema)
    .query(({ ctx, input }) => ctx.services.teams.list(ctx.actor, input)),
  /** A page of my teams (no input: the first 20). */
  mine: authedProcedure
    .input(TeamPageQuery.prefault({}))
    .output(TeamItemsSchema)
    .query(({ ctx, input }) => ctx.services.teams.mine(ctx.actor, input)),
  ofUser: publicProcedure
    .input(z.object({ userId: IdSchema }).extend(TeamPageQuery.shape))
    .output(TeamItemsSchema)
    .query(({ ctx, input }) => ctx.services.teams.teamsOfUser(ctx.actor, input.userId, input)),
  ofProject: publicProcedure
    .input(z.object({ projectId: IdSchema }).extend(TeamPageQuery.shape))
    .output(TeamItemsSchema)
    .query(({ ctx, input }) => ctx.services.teams.teamsOfProject(ctx.actor, input.projectId, input)),
  get: publicProcedure
    .input(ById)
    .output(TeamSchema)
    .query(({ ctx, input }) => ctx.services.teams.get(ctx.actor, input.id)),
  create: authedProcedure
    .input(CreateTeamInput)
    .output(TeamSchema)
    .mutation(({ ctx, input }) => ctx.services.teams.create(ctx.actor, input)),
  update: authedProcedure
    .input(z.object({ id: IdSchema, data: UpdateTeamInput }))
    .output(TeamSchema)
    .mutation(({ ctx, input }) => ctx.services.teams.update(ctx.actor, input.id, input.data)),
  delete: authedProcedure
    .input(ById)
    .output(Deleted)
    .mutation(async ({ ctx, input }) => {
      await ctx.services.teams.remove(ctx.actor, input.id);
      return { deleted: true as const };
    }),
  members: publicProcedure
    .input(ById.extend(TeamMembersQuery.shape))
    .output(TeamMembersSchema)
    .query(({ ctx, input }) => ctx.services.teams.members(ctx.actor, input.id, input)),
  invite: authedProcedure
    .input(z.object({ id: IdSchema, data: InviteMemberInput }))
    .output(TeamMemberSchema)
    .mutation(({ ctx, input }) => ctx.services.teams.invite(ctx.actor, input.id, input.data)),
  updateMember: authedProcedure
    .input(z.object({ id: IdSchema, memberId: IdSchema, data: UpdateMemberInput }))
    .output(TeamMemberSchema)
    .mutation(({ ctx, input }) => ctx.services.teams.updateMember(ctx.actor, input.id, input.memberId, input.data)),
  removeMember: authedProcedure
    .input(ByMember)
    .output(Deleted)
    .mutation(async ({ ctx, input }) => {
      await ctx.services.teams.removeMember(ctx.actor, input.id, input.memberId);
      return { deleted: true as const };
    }),
  request: authedProcedure
    .input(ById)
    .output(TeamMemberSchema)
    .mutation(({ ctx, input }) => ctx.services.teams.request(ctx.actor, input.id)),
  accept: authedProcedure
    .input(ById)
    .output(TeamMemberSchema)
    .mutation(({ ctx, input }) => ctx.services.teams.accept(ctx.actor, input.id)),
  leave: authedProcedure
    .input(ById)
    .output(Deleted)
    .mutation(async ({ ctx, input }) => {
      await ctx.services.teams.leave(ctx.actor, input.id);
      return { deleted: true as const };
    }),
  addTag: authedProcedure
    .input(ByTag)
    .output(TeamTagsSchema)
    .mutation(({ ctx, input }) => ctx.services.teams.addTag(ctx.actor, input.id, input.tag)),
  removeTag: authedProcedure
    .input(ByTag)
    .output(TeamTagsSchema)
    .mutation(({ ctx, input }) => ctx.services.teams.removeTag(ctx.actor, input.id, input.tag)),
  suggested: authedProcedure
    .input(z.object({ id: IdSchema }).extend(TeamSuggestedQuery.shape))
    .output(TeamSuggestedUsersSchema)
    .query(({ ctx, input }) => ctx.services.teams.suggested(ctx.actor, input.id, input)),
});
