import { z } from 'zod';
import { CampaignSchema } from '../../../shared/schemas/campaigns';
import { IdSchema, text } from '../../../shared/schemas/common';
import {
  CampaignDonationListSchema,
  CampaignDonationsQuery,
  DonateInput,
  DonationHiddenInput,
  DonationHiddenSchema,
  DonationSchema,
  IdempotencyKeySchema,
  PaymentInfoSchema,
  PaymentProblemListSchema,
  PaymentProblemsQuery,
  ReceiptSchema,
  RecentDonorListSchema,
  RecentDonorsQuery,
  RefundInput,
  SandboxSimulateInput,
  SubscriptionListSchema,
  SubscriptionSchema,
  SubscriptionsQuery,
  SupportedQuery,
} from '../../../shared/schemas/donations';
import { adminProcedure, authedProcedure, publicProcedure, router } from '../../trpc/init';

export const donationsRouter = router({
  /** The payment provider as the Donate panel needs it (test mode, test cards, presets). */
  info: publicProcedure.output(PaymentInfoSchema).query(({ ctx }) => ctx.services.donations.info()),
  /** A donation; the idempotency key travels in the input on this door. */
  donate: publicProcedure
    .input(DonateInput)
    .output(DonationSchema)
    .mutation(({ ctx, input }) => {
      const { campaignId, idempotencyKey, ...fields } = input;
      return ctx.services.donations.donate(ctx.actor, campaignId, fields, idempotencyKey);
    }),
  receipt: publicProcedure
    .input(z.object({ id: IdSchema, token: text().trim().max(200).optional() }))
    .output(ReceiptSchema)
    .query(({ ctx, input }) => ctx.services.donations.receipt(ctx.actor, input.id, input.token)),
  refund: authedProcedure
    .input(RefundInput.extend({ id: IdSchema, idempotencyKey: IdempotencyKeySchema.optional() }))
    .output(ReceiptSchema)
    .mutation(({ ctx, input }) => ctx.services.donations.refund(ctx.actor, input.id, input, input.idempotencyKey)),
  /** A campaign's donations for its owner (CSV is the REST door's `?format=csv`). */
  ofCampaign: authedProcedure
    .input(CampaignDonationsQuery.omit({ format: true }).extend({ campaignId: IdSchema }))
    .output(CampaignDonationListSchema)
    .query(async ({ ctx, input }) => {
      const { items, nextCursor } = await ctx.services.donations.ofCampaign(ctx.actor, input.campaignId, { ...input, format: 'json' });
      return { items, nextCursor };
    }),
  supported: authedProcedure
    .input(SupportedQuery.prefault({}))
    .output(z.object({ items: z.array(CampaignSchema), nextCursor: z.string().nullable() }))
    .query(({ ctx, input }) => ctx.services.donations.supported(ctx.actor, input)),
  subscriptions: authedProcedure
    .input(SubscriptionsQuery.prefault({}))
    .output(SubscriptionListSchema)
    .query(({ ctx, input }) => ctx.services.donations.mySubscriptions(ctx.actor, input)),
  /** Admins: provider events that booked nothing because they did not fit their donation. */
  paymentProblems: adminProcedure
    .input(PaymentProblemsQuery.prefault({}))
    .output(PaymentProblemListSchema)
    .query(({ ctx, input }) => ctx.services.donations.paymentProblems(ctx.actor, input)),
  /** Admins: the sandbox refunds a donation, or opens, wins or loses a chargeback on it. */
  simulate: adminProcedure
    .input(SandboxSimulateInput.extend({ id: IdSchema }))
    .output(ReceiptSchema)
    .mutation(({ ctx, input }) => ctx.services.donations.simulate(ctx.actor, input.id, input)),
  /** A campaign's Recent donors: whoever sees the campaign. */
  recentDonors: publicProcedure
    .input(RecentDonorsQuery.extend({ campaignId: IdSchema }))
    .output(RecentDonorListSchema)
    .query(({ ctx, input }) => ctx.services.donations.recentDonors(ctx.actor, input.campaignId, input)),
  /** The campaign's owner hides a gift from Recent donors (or shows it again). */
  setHidden: authedProcedure
    .input(DonationHiddenInput.extend({ campaignId: IdSchema, donationId: IdSchema }))
    .output(DonationHiddenSchema)
    .mutation(({ ctx, input }) => ctx.services.donations.setDonationHidden(ctx.actor, input.campaignId, input.donationId, input)),
  cancelSubscription: authedProcedure
    .input(z.object({ id: IdSchema }))
    .output(SubscriptionSchema)
    .mutation(({ ctx, input }) => ctx.services.donations.cancelSubscription(ctx.actor, input.id)),
});
