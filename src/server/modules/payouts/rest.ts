import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { IdParams } from '../../../shared/schemas/campaigns';
import { CampaignDonationsQuery } from '../../../shared/schemas/donations';
import {
  AdminPayoutSchema,
  AdminPayoutsQuery,
  ApproveInput,
  BalanceSchema,
  PayoutIdParams,
  PayoutRequestInput,
  PayoutSchema,
  RejectInput,
} from '../../../shared/schemas/payouts';
import { idempotencyKeyHeader, nextPageHeaders, restRoute } from '../../http/rest';
import type { Services } from '../../services';

const Page = CampaignDonationsQuery.omit({ format: true });

export function payoutsRest(app: FastifyInstance, { payouts }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id/balance',
    summary: 'A campaign’s balance: raised, fees, paid out, available, and the disputes holding its payouts',
    tag: 'payouts',
    auth: 'required',
    errors: { 403: 'Not the campaign’s owner', 404: 'Campaign not found' },
    params: IdParams,
    response: BalanceSchema,
    handler: ({ params, actor }) => payouts.balance(actor, params.id),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/campaigns/:id/payouts',
    summary: 'Ask for a payout of the available balance',
    tag: 'payouts',
    auth: 'required',
    errors: {
      403: 'Not the campaign’s owner',
      404: 'Campaign not found',
      409: 'Nothing available, more than is available, or the campaign’s payouts are on hold while an admin reviews a dispute about them (the reason is in the message)',
    },
    idempotencyKey: 'optional',
    params: IdParams,
    body: PayoutRequestInput,
    response: PayoutSchema,
    status: 201,
    handler: ({ params, body, actor }, req) => payouts.request(actor, params.id, body, idempotencyKeyHeader(req, false)),
  });
  // the documented lists are bare: the next page's cursor travels in headers (X-Next-Cursor, Link)
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id/payouts',
    summary: 'A campaign’s payouts',
    tag: 'payouts',
    auth: 'required',
    errors: { 403: 'Not the campaign’s owner', 404: 'Campaign not found' },
    pagedByHeaders: true,
    params: IdParams,
    query: Page,
    response: z.array(PayoutSchema),
    handler: async ({ params, query, actor }, req, reply) => {
      const { items, nextCursor } = await payouts.ofCampaign(actor, params.id, query);
      nextPageHeaders(req, reply, nextCursor);
      return items;
    },
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/admin/payouts',
    summary: 'Payouts to review',
    tag: 'admin',
    auth: 'admin',
    errors: {},
    pagedByHeaders: true,
    query: AdminPayoutsQuery,
    response: z.array(AdminPayoutSchema),
    handler: async ({ query, actor }, req, reply) => {
      const { items, nextCursor } = await payouts.adminList(actor, query);
      nextPageHeaders(req, reply, nextCursor);
      return items;
    },
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/admin/payouts/:id/approve',
    summary: 'Approve a payout',
    tag: 'admin',
    auth: 'admin',
    errors: { 404: 'Payout not found', 409: 'The payout is no longer pending' },
    params: PayoutIdParams,
    body: ApproveInput,
    response: PayoutSchema,
    handler: ({ params, body, actor }) => payouts.approve(actor, params.id, body),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/admin/payouts/:id/reject',
    summary: 'Reject a payout',
    tag: 'admin',
    auth: 'admin',
    errors: { 404: 'Payout not found', 409: 'The payout is no longer pending' },
    params: PayoutIdParams,
    body: RejectInput,
    response: PayoutSchema,
    handler: ({ params, body, actor }) => payouts.reject(actor, params.id, body),
  });
}
