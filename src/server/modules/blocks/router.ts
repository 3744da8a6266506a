import { BlockInput, BlockListSchema, BlocksQuery, BlockStateSchema } from '../../../shared/schemas/community';
import { authedProcedure, router } from '../../trpc/init';

export const blocksRouter = router({
  /** A page of the people I blocked (no input: the first 20). */
  list: authedProcedure
    .input(BlocksQuery.prefault({}))
    .output(BlockListSchema)
    .query(({ ctx, input }) => ctx.services.blocks.list(ctx.actor, input)),
  /** Whether I blocked one person. */
  status: authedProcedure
    .input(BlockInput)
    .output(BlockStateSchema)
    .query(({ ctx, input }) => ctx.services.blocks.status(ctx.actor, input.userId)),
  block: authedProcedure
    .input(BlockInput)
    .output(BlockStateSchema)
    .mutation(({ ctx, input }) => ctx.services.blocks.block(ctx.actor, input.userId)),
  unblock: authedProcedure
    .input(BlockInput)
    .output(BlockStateSchema)
    .mutation(({ ctx, input }) => ctx.services.blocks.unblock(ctx.actor, input.userId)),
});
