import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CampaignSchema, IdParams } from '../../../shared/schemas/campaigns';
import { IdSchema } from '../../../shared/schemas/common';
import {
  CampaignDonationListSchema,
  CampaignDonationsQuery,
  DonateFields,
  DonationHiddenInput,
  DonationHiddenSchema,
  DonationSchema,
  PaymentInfoSchema,
  PaymentProblemListSchema,
  PaymentProblemsQuery,
  ReceiptQuery,
  ReceiptSchema,
  RecentDonorListSchema,
  RecentDonorsQuery,
  RefundInput,
  SandboxSimulateInput,
  SubscriptionSchema,
  SubscriptionsQuery,
  SupportedQuery,
} from '../../../shared/schemas/donations';
import { idempotencyKeyHeader, nextPageHeaders, plainRoute, restRoute, sendCsv } from '../../http/rest';
import type { Services } from '../../services';

/** A campaign's donation in the path. */
const DonationParams = IdParams.extend({ donationId: IdSchema });

export function donationsRest(app: FastifyInstance, { donations }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/payments/info',
    summary: 'The payment provider, whether it is in test mode, the gift limits and the platform’s fee',
    tag: 'payments',
    auth: 'none',
    errors: {},
    response: PaymentInfoSchema,
    handler: () => donations.info(),
  });

  restRoute(app, {
    method: 'POST',
    url: '/api/campaigns/:id/donations',
    summary: 'Donate to a campaign, once or monthly',
    tag: 'donations',
    auth: 'optional',
    errors: {
      401: 'A monthly donation needs a signed-in donor',
      402: 'The card was declined',
      403: 'Donations are not open for this campaign, or the signed-in donor has not verified their email',
      404: 'Campaign not found',
      409: 'The campaign has ended or is a draft (not released yet), or the Idempotency-Key was used for another donation',
      429: 'Payment attempts of this address, account or card spent (`Retry-After`)',
    },
    idempotencyKey: 'required',
    params: IdParams,
    body: DonateFields,
    response: DonationSchema,
    status: 201,
    handler: ({ params, body, actor }, req) => donations.donate(actor, params.id, body, idempotencyKeyHeader(req, true)),
  });

  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id/donations',
    summary: 'A campaign’s donations (owner and admins), or all of them as CSV',
    tag: 'donations',
    auth: 'required',
    errors: { 403: 'Not the campaign’s owner', 404: 'Campaign not found' },
    csv: true,
    params: IdParams,
    query: CampaignDonationsQuery,
    response: CampaignDonationListSchema,
    handler: async ({ params, query, actor }, _req, reply) => {
      if (query.format === 'csv') {
        return sendCsv(reply, await donations.csvOfCampaign(actor, params.id));
      }
      const { items, nextCursor } = await donations.ofCampaign(actor, params.id, query);
      return { items, nextCursor };
    },
  });

  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id/donors/recent',
    summary: 'A campaign’s recent donors: the latest succeeded gifts its owner has not hidden, newest first',
    description:
      'Each gift shows the public name its donor chose (or "Anonymous"), the amount only when the donor chose a public name, the public message and when it was made; never the donor’s account or email.',
    tag: 'donations',
    auth: 'optional',
    errors: { 404: 'Campaign not found' },
    params: IdParams,
    query: RecentDonorsQuery,
    response: RecentDonorListSchema,
    handler: ({ params, query, actor }) => donations.recentDonors(actor, params.id, query),
  });

  restRoute(app, {
    method: 'PUT',
    url: '/api/campaigns/:id/donations/:donationId/hidden',
    summary: 'Hide a gift from the campaign’s recent donors, or show it again (the campaign’s owner)',
    tag: 'donations',
    auth: 'required',
    errors: { 403: 'Not the campaign’s owner', 404: 'Campaign or donation not found' },
    params: DonationParams,
    body: DonationHiddenInput,
    response: DonationHiddenSchema,
    handler: ({ params, body, actor }) => donations.setDonationHidden(actor, params.id, params.donationId, body),
  });

  restRoute(app, {
    method: 'GET',
    url: '/api/donations/:id',
    summary: 'A donation’s receipt (the donor, the campaign’s owner, admins, or a guest’s receipt link)',
    tag: 'donations',
    auth: 'optional',
    errors: { 404: 'Donation not found' },
    params: IdParams,
    query: ReceiptQuery,
    response: ReceiptSchema,
    handler: ({ params, query, actor }) => donations.receipt(actor, params.id, query.token),
  });

  restRoute(app, {
    method: 'POST',
    url: '/api/donations/:id/refund',
    summary: 'Refund a donation (the campaign’s owner or an admin)',
    tag: 'donations',
    auth: 'required',
    errors: {
      403: 'Not allowed to refund this donation',
      404: 'Donation not found',
      409: 'The donation cannot be refunded (not succeeded, already refunded, paid out, or under a chargeback)',
    },
    idempotencyKey: 'optional',
    params: IdParams,
    body: RefundInput,
    response: ReceiptSchema,
    handler: ({ params, body, actor }, req) => donations.refund(actor, params.id, body, idempotencyKeyHeader(req, false)),
  });

  restRoute(app, {
    method: 'GET',
    url: '/api/admin/payments/problems',
    summary: 'Provider events that booked nothing because they did not fit their donation (admins)',
    description:
      'Another amount or currency than the donation’s, a refund of more than was paid, an event about a payment that never succeeded: kept with why, newest first.',
    tag: 'admin',
    auth: 'admin',
    errors: {},
    query: PaymentProblemsQuery,
    response: PaymentProblemListSchema,
    handler: ({ query, actor }) => donations.paymentProblems(actor, query),
  });

  restRoute(app, {
    method: 'POST',
    url: '/api/admin/donations/:id/simulate',
    summary: 'Have the built-in sandbox refund a donation or open, win or lose a chargeback on it (admins)',
    description:
      'What a real processor does on its own side, for trying the app without one: the sandbox sends its signed event back through the webhook path. `amount` refunds only that part (default: everything that stands).',
    tag: 'admin',
    auth: 'admin',
    errors: { 404: 'Donation not found, or the provider is not the sandbox', 409: 'The donation did not succeed' },
    params: IdParams,
    body: SandboxSimulateInput,
    response: ReceiptSchema,
    handler: ({ params, body, actor }) => donations.simulate(actor, params.id, body),
  });

  // the documented list is bare: the next page's cursor travels in headers (X-Next-Cursor, Link)
  restRoute(app, {
    method: 'GET',
    url: '/api/user/supported',
    summary: 'The campaigns I donated to, with what I gave',
    tag: 'donations',
    auth: 'required',
    errors: {},
    pagedByHeaders: true,
    query: SupportedQuery,
    response: z.array(CampaignSchema),
    handler: async ({ query, actor }, req, reply) => {
      const { items, nextCursor } = await donations.supported(actor, query);
      nextPageHeaders(req, reply, nextCursor);
      return items;
    },
  });

  restRoute(app, {
    method: 'GET',
    url: '/api/subscriptions/mine',
    summary: 'My monthly donations',
    tag: 'donations',
    auth: 'required',
    errors: {},
    pagedByHeaders: true,
    query: SubscriptionsQuery,
    response: z.array(SubscriptionSchema),
    handler: async ({ query, actor }, req, reply) => {
      const { items, nextCursor } = await donations.mySubscriptions(actor, query);
      nextPageHeaders(req, reply, nextCursor);
      return items;
    },
  });

  restRoute(app, {
    method: 'DELETE',
    url: '/api/subscriptions/:id',
    summary: 'Cancel a monthly donation',
    tag: 'donations',
    auth: 'required',
    errors: { 404: 'Subscription not found', 409: 'Already cancelled' },
    params: IdParams,
    response: SubscriptionSchema,
    handler: ({ params, actor }) => donations.cancelSubscription(actor, params.id),
  });
}

const WebhookReceivedSchema = z.object({ received: z.literal(true) });

/**
 * Provider webhooks: `POST /api/payments/webhooks/{provider}` with the raw body (the signature
 * is over the exact bytes), in a scope of its own so only these routes read bodies raw.
 */
export function paymentWebhooksRest(app: FastifyInstance, { donations }: Services): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 256 * 1024 }, (_req, body, done) => done(null, body));
  plainRoute(app, {
    method: 'POST',
    url: '/api/payments/webhooks/:provider',
    summary: 'An event from the payment provider (Stripe: `stripe`), signed over its exact bytes',
    description: 'Called by the provider, not by clients: the body is read raw (at most 256 KiB) and its signature checked before anything changes.',
    tag: 'payments',
    auth: 'none',
    errors: { 400: 'The signature does not match, or the event is malformed', 404: 'Not the configured provider' },
    rawBody: 'The provider’s event, exactly as sent (the signature covers these bytes)',
    response: WebhookReceivedSchema,
    handler: async (req, reply) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const result = await donations.receiveWebhook((req.params as { provider: string }).provider, body, req.headers);
      return reply.code(200).send(result);
    },
  });
}
