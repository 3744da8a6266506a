import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CampaignSchema, IdParams } from '../../../shared/schemas/campaigns';
import {
  CampaignDonationListSchema,
  CampaignDonationsQuery,
  DonateFields,
  DonationSchema,
  PaymentInfoSchema,
  ReceiptQuery,
  ReceiptSchema,
  RefundInput,
  SubscriptionSchema,
  SubscriptionsQuery,
  SupportedQuery,
} from '../../../shared/schemas/donations';
import { idempotencyKeyHeader, nextPageHeaders, restRoute, sendCsv } from '../../http/rest';
import type { Services } from '../../services';

export function donationsRest(app: FastifyInstance, { donations }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/payments/info',
    response: PaymentInfoSchema,
    handler: () => donations.info(),
  });

  restRoute(app, {
    method: 'POST',
    url: '/api/campaigns/:id/donations',
    params: IdParams,
    body: DonateFields,
    response: DonationSchema,
    status: 201,
    handler: ({ params, body, actor }, req) => donations.donate(actor, params.id, body, idempotencyKeyHeader(req, true)),
  });

  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id/donations',
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
    url: '/api/donations/:id',
    params: IdParams,
    query: ReceiptQuery,
    response: ReceiptSchema,
    handler: ({ params, query, actor }) => donations.receipt(actor, params.id, query.token),
  });

  restRoute(app, {
    method: 'POST',
    url: '/api/donations/:id/refund',
    params: IdParams,
    body: RefundInput,
    response: ReceiptSchema,
    handler: ({ params, body, actor }, req) => donations.refund(actor, params.id, body, idempotencyKeyHeader(req, false)),
  });

  // the documented list is bare: the next page's cursor travels in headers (X-Next-Cursor, Link)
  restRoute(app, {
    method: 'GET',
    url: '/api/user/supported',
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
    params: IdParams,
    response: SubscriptionSchema,
    handler: ({ params, actor }) => donations.cancelSubscription(actor, params.id),
  });
}

/**
 * Provider webhooks: `POST /api/payments/webhooks/{provider}` with the raw body (the signature
 * is over the exact bytes), in a scope of its own so only these routes read bodies raw.
 */
export function paymentWebhooksRest(app: FastifyInstance, { donations }: Services): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 256 * 1024 }, (_req, body, done) => done(null, body));
  app.post<{ Params: { provider: string } }>('/api/payments/webhooks/:provider', async (req, reply) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const result = await donations.receiveWebhook(req.params.provider, body, req.headers);
    return reply.code(200).send(result);
  });
}
