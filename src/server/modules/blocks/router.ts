import { BlockInput, BlockListSchema, BlockStateSchema } from '../../../shared/schemas/community';
import { authedProcedure, router } from '../../trpc/init';

export const blocksRouter = router({
  list: authedProcedure.output(BlockListSchema).query(({ ctx }) => ctx.services.blocks.list(ctx.actor)),
  block: authedProcedure
    .input(BlockInput)
    .output(BlockStateSchema)
    .mutation(({ ctx, input }) => ctx.services.blocks.block(ctx.actor, input.userId)),
  unblock: authedProcedure
    .input(BlockInput)
    .output(BlockStateSchema)
    .mutation(({ ctx, input }) => ctx.services.blocks.unblock(ctx.actor, input.userId)),
});
