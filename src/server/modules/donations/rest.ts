import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CampaignSchema, IdParams } from '../../../shared/schemas/campaigns';
import {
  CampaignDonationListSchema,
  CampaignDonationsQuery,
  DonateFields,
  DonationSchema,
  IdempotencyKeySchema,
  PaymentInfoSchema,
  ReceiptQuery,
  ReceiptSchema,
  RefundInput,
  SubscriptionSchema,
  SubscriptionsQuery,
  SupportedQuery,
} from '../../../shared/schemas/donations';
import { zodToAppError } from '../../http/errors';
import { nextPageHeaders, restRoute } from '../../http/rest';
import type { Services } from '../../services';

/** The Idempotency-Key header of a money write (required when `required`). */
function idempotencyKey(req: FastifyRequest, required: true): string;
function idempotencyKey(req: FastifyRequest, required: false): string | undefined;
function idempotencyKey(req: FastifyRequest, required: boolean): string | undefined {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined && !required) return undefined;
  const r = IdempotencyKeySchema.safeParse(Array.isArray(raw) ? raw[0] : raw);
  if (!r.success) throw zodToAppError(r.error);
  return r.data;
}

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
    handler: ({ params, body, actor }, req) => donations.donate(actor, params.id, body, idempotencyKey(req, true)),
  });

  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id/donations',
    params: IdParams,
    query: CampaignDonationsQuery,
    response: CampaignDonationListSchema,
    handler: async ({ params, query, actor }, _req, reply) => {
      if (query.format === 'csv') {
        const { filename, csv } = await donations.csvOfCampaign(actor, params.id);
        // not JSON: sent as is, past the JSON answer schema
        return reply
          .code(200)
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${filename}"`)
          .serializer((s: unknown) => s as string)
          .send(csv) as never;
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
    handler: ({ params, body, actor }, req) => donations.refund(actor, params.id, body, idempotencyKey(req, false)),
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
