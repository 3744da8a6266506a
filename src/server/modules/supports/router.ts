import { z } from 'zod';
import { IdSchema } from '../../../shared/schemas/common';
import { SupporterListSchema, SupportersQuery, SupportInput, SupportStateSchema, VerifyGuestParams, VerifyGuestSchema } from '../../../shared/schemas/supports';
import { authedProcedure, publicProcedure, router } from '../../trpc/init';

export const supportsRouter = router({
  /** Signed in: `{kind: 'supported', supported, supporters}`; a guest with an email: `{kind: 'pending', message}`. */
  support: publicProcedure
    .input(SupportInput.extend({ campaignId: IdSchema }))
    .output(
      z.discriminatedUnion('kind', [
        SupportStateSchema.extend({ kind: z.literal('supported') }),
        z.object({ kind: z.literal('pending'), message: z.string() }),
      ]),
    )
    .mutation(({ ctx, input }) => ctx.services.supports.support(ctx.actor, input.campaignId, input)),
  withdraw: authedProcedure
    .input(z.object({ campaignId: IdSchema }))
    .output(SupportStateSchema)
    .mutation(({ ctx, input }) => ctx.services.supports.withdraw(ctx.actor, input.campaignId)),
  verifyGuest: publicProcedure
    .input(VerifyGuestParams)
    .output(VerifyGuestSchema)
    .mutation(({ ctx, input }) => ctx.services.supports.verifyGuest(ctx.actor, input.token)),
  list: authedProcedure
    .input(SupportersQuery.omit({ format: true }).extend({ campaignId: IdSchema }))
    .output(SupporterListSchema)
    .query(async ({ ctx, input }) => {
      const { items, nextCursor } = await ctx.services.supports.list(ctx.actor, input.campaignId, { ...input, format: 'json' });
      return { items, nextCursor };
    }),
});
