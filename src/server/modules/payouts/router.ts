import { z } from 'zod';
import { CampaignDonationsQuery, IdempotencyKeySchema } from '../../../shared/schemas/donations';
import { IdSchema } from '../../../shared/schemas/common';
import {
  AdminPayoutSchema,
  AdminPayoutsQuery,
  ApproveInput,
  BalanceSchema,
  PayoutRequestInput,
  PayoutSchema,
  RejectInput,
} from '../../../shared/schemas/payouts';
import { adminProcedure, authedProcedure, router } from '../../trpc/init';

const Page = CampaignDonationsQuery.omit({ format: true });

export const payoutsRouter = router({
  balance: authedProcedure
    .input(z.object({ campaignId: IdSchema }))
    .output(BalanceSchema)
    .query(({ ctx, input }) => ctx.services.payouts.balance(ctx.actor, input.campaignId)),
  request: authedProcedure
    .input(PayoutRequestInput.extend({ campaignId: IdSchema, idempotencyKey: IdempotencyKeySchema.optional() }))
    .output(PayoutSchema)
    .mutation(({ ctx, input }) => ctx.services.payouts.request(ctx.actor, input.campaignId, input, input.idempotencyKey)),
  ofCampaign: authedProcedure
    .input(Page.extend({ campaignId: IdSchema }))
    .output(z.object({ items: z.array(PayoutSchema), nextCursor: z.string().nullable() }))
    .query(({ ctx, input }) => ctx.services.payouts.ofCampaign(ctx.actor, input.campaignId, input)),
  adminList: adminProcedure
    .input(AdminPayoutsQuery.prefault({}))
    .output(z.object({ items: z.array(AdminPayoutSchema), nextCursor: z.string().nullable() }))
    .query(({ ctx, input }) => ctx.services.payouts.adminList(ctx.actor, input)),
  approve: adminProcedure
    .input(ApproveInput.extend({ id: IdSchema }))
    .output(PayoutSchema)
    .mutation(({ ctx, input }) => ctx.services.payouts.approve(ctx.actor, input.id, input)),
  reject: adminProcedure
    .input(RejectInput.extend({ id: IdSchema }))
    .output(PayoutSchema)
    .mutation(({ ctx, input }) => ctx.services.payouts.reject(ctx.actor, input.id, input)),
});
