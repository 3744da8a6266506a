import { z } from 'zod';
import { IdSchema } from '../../../shared/schemas/common';
import { CreateProjectInput, FollowSchema, ProjectListQuery, ProjectListSchema, ProjectSchema, UpdateProjectInput } from '../../../shared/schemas/projects';
import { authedProcedure, publicProcedure, router } from '../../trpc/init';

const ById = z.object({ id: IdSchema });

export const projectsRouter = router({
  list: publicProcedure
    .input(ProjectListQuery)
    .output(ProjectListSchema)
    .query(({ ctx, input }) => ctx.services.projects.list(ctx.actor, input)),
  get: publicProcedure
    .input(ById)
    .output(ProjectSchema)
    .query(({ ctx, input }) => ctx.services.projects.get(ctx.actor, input.id)),
  create: authedProcedure
    .input(CreateProjectInput)
    .output(ProjectSchema)
    .mutation(({ ctx, input }) => ctx.services.projects.create(ctx.actor, input)),
  update: authedProcedure
    .input(z.object({ id: IdSchema, data: UpdateProjectInput }))
    .output(ProjectSchema)
    .mutation(({ ctx, input }) => ctx.services.projects.update(ctx.actor, input.id, input.data)),
  delete: authedProcedure
    .input(ById)
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await ctx.services.projects.remove(ctx.actor, input.id);
      return { deleted: true as const };
    }),
  follow: authedProcedure
    .input(ById)
    .output(FollowSchema)
    .mutation(({ ctx, input }) => ctx.services.projects.follow(ctx.actor, input.id, true)),
  unfollow: authedProcedure
    .input(ById)
    .output(FollowSchema)
    .mutation(({ ctx, input }) => ctx.services.projects.follow(ctx.actor, input.id, false)),
});
