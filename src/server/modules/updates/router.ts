import { z } from 'zod';
import { IdSchema } from '../../../shared/schemas/common';
import { CreateUpdateInput, EditUpdateInput, PostedUpdateSchema, UpdateListSchema, UpdateSchema, UpdatesQuery } from '../../../shared/schemas/updates';
import { authedProcedure, publicProcedure, router } from '../../trpc/init';

const OnCampaign = z.object({ campaignId: IdSchema });
const OneUpdate = OnCampaign.extend({ updateId: IdSchema });

/** Updates to backers (issue #33 item 5): the same calls as REST /api/campaigns/{id}/updates. */
export const updatesRouter = router({
  /** A page of a campaign's updates, newest first: `{ campaignId, limit?, cursor? }`. */
  list: publicProcedure
    .input(OnCampaign.extend(UpdatesQuery.shape))
    .output(UpdateListSchema)
    .query(({ ctx, input }) => ctx.services.updates.list(ctx.actor, input.campaignId, input)),
  get: publicProcedure
    .input(OneUpdate)
    .output(UpdateSchema)
    .query(({ ctx, input }) => ctx.services.updates.get(ctx.actor, input.campaignId, input.updateId)),
  create: authedProcedure
    .input(OnCampaign.extend({ data: CreateUpdateInput }))
    .output(PostedUpdateSchema)
    .mutation(({ ctx, input }) => ctx.services.updates.create(ctx.actor, input.campaignId, input.data)),
  update: authedProcedure
    .input(OneUpdate.extend({ data: EditUpdateInput }))
    .output(UpdateSchema)
    .mutation(({ ctx, input }) => ctx.services.updates.edit(ctx.actor, input.campaignId, input.updateId, input.data)),
  delete: authedProcedure
    .input(OneUpdate)
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await ctx.services.updates.remove(ctx.actor, input.campaignId, input.updateId);
      return { deleted: true as const };
    }),
});
