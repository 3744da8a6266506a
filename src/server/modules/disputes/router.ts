import { z } from 'zod';
import { IdSchema } from '../../../shared/schemas/common';
import { AdminDisputeSchema, AdminDisputesQuery, DisputeInput, DisputeSchema, DisputesQuery, DisputeStatusInput } from '../../../shared/schemas/payouts';
import { adminProcedure, authedProcedure, router } from '../../trpc/init';

export const disputesRouter = router({
  create: authedProcedure
    .input(DisputeInput)
    .output(DisputeSchema)
    .mutation(({ ctx, input }) => ctx.services.disputes.create(ctx.actor, input)),
  mine: authedProcedure
    .input(DisputesQuery.prefault({}))
    .output(z.object({ items: z.array(DisputeSchema), nextCursor: z.string().nullable() }))
    .query(({ ctx, input }) => ctx.services.disputes.mine(ctx.actor, input)),
  adminList: adminProcedure
    .input(AdminDisputesQuery.prefault({}))
    .output(z.object({ items: z.array(AdminDisputeSchema), nextCursor: z.string().nullable() }))
    .query(({ ctx, input }) => ctx.services.disputes.adminList(ctx.actor, input)),
  setStatus: adminProcedure
    .input(DisputeStatusInput.extend({ id: IdSchema }))
    .output(DisputeSchema)
    .mutation(({ ctx, input }) => ctx.services.disputes.setStatus(ctx.actor, input.id, input)),
});
