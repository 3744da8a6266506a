import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  AdminDisputeSchema,
  AdminDisputesQuery,
  DisputeInput,
  DisputeSchema,
  DisputesQuery,
  DisputeStatusInput,
  PayoutIdParams,
} from '../../../shared/schemas/payouts';
import { nextPageHeaders, restRoute } from '../../http/rest';
import type { Services } from '../../services';

export function disputesRest(app: FastifyInstance, { disputes }: Services): void {
  restRoute(app, {
    method: 'POST',
    url: '/api/disputes',
    summary: 'Open a dispute about a campaign, a donation or a payout',
    tag: 'disputes',
    auth: 'required',
    errors: {
      403: 'A dispute about the campaign’s payouts (type payout, or naming a payout) from someone who is not its donor, supporter, owner or an admin',
      404: 'Campaign, donation or payout not found',
      409: 'The author already has an open dispute about it',
      429: 'Dispute budget spent (`Retry-After`)',
    },
    body: DisputeInput,
    response: DisputeSchema,
    status: 201,
    handler: ({ body, actor }) => disputes.create(actor, body),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/disputes/mine',
    summary: 'My disputes',
    tag: 'disputes',
    auth: 'required',
    errors: {},
    pagedByHeaders: true,
    query: DisputesQuery,
    response: z.array(DisputeSchema),
    handler: async ({ query, actor }, req, reply) => {
      const { items, nextCursor } = await disputes.mine(actor, query);
      nextPageHeaders(req, reply, nextCursor);
      return items;
    },
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/admin/disputes',
    summary: 'Disputes to review',
    tag: 'admin',
    auth: 'admin',
    errors: {},
    pagedByHeaders: true,
    query: AdminDisputesQuery,
    response: z.array(AdminDisputeSchema),
    handler: async ({ query, actor }, req, reply) => {
      const { items, nextCursor } = await disputes.adminList(actor, query);
      nextPageHeaders(req, reply, nextCursor);
      return items;
    },
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/admin/disputes/:id/status',
    summary: 'Set a dispute’s status',
    tag: 'admin',
    auth: 'admin',
    errors: { 404: 'Dispute not found', 409: 'The dispute is closed: resolved and rejected are final' },
    params: PayoutIdParams,
    body: DisputeStatusInput,
    response: DisputeSchema,
    handler: ({ params, body, actor }) => disputes.setStatus(actor, params.id, body),
  });
}
