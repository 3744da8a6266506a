import { z } from 'zod';
import {
  CampaignEditLocksSchema,
  CampaignListQuery,
  CampaignListSchema,
  CampaignSchema,
  CreateCampaignInput,
  UpdateCampaignInput,
} from '../../../shared/schemas/campaigns';
import { IdSchema } from '../../../shared/schemas/common';
import { authedProcedure, publicProcedure, router } from '../../trpc/init';

export const campaignsRouter = router({
  list: publicProcedure
    .input(CampaignListQuery)
    .output(CampaignListSchema)
    .query(({ ctx, input }) => ctx.services.campaigns.list(ctx.actor, input)),
  get: publicProcedure
    .input(z.object({ id: IdSchema }))
    .output(CampaignSchema)
    .query(({ ctx, input }) => ctx.services.campaigns.get(ctx.actor, input.id)),
  create: authedProcedure
    .input(CreateCampaignInput)
    .output(CampaignSchema)
    .mutation(({ ctx, input }) => ctx.services.campaigns.create(ctx.actor, input)),
  /** The owner's edit form: which fields money has locked. */
  editLocks: authedProcedure
    .input(z.object({ id: IdSchema }))
    .output(CampaignEditLocksSchema)
    .query(({ ctx, input }) => ctx.services.campaigns.editLocks(ctx.actor, input.id)),
  update: authedProcedure
    .input(z.object({ id: IdSchema, data: UpdateCampaignInput }))
    .output(CampaignSchema)
    .mutation(({ ctx, input }) => ctx.services.campaigns.update(ctx.actor, input.id, input.data)),
});
