import type { FastifyInstance } from 'fastify';
import { IdParams } from '../../../shared/schemas/campaigns';
import {
  SupporterListSchema,
  SupportersQuery,
  SupportInput,
  SupportPendingSchema,
  SupportStateSchema,
  VerifyGuestParams,
  VerifyGuestSchema,
} from '../../../shared/schemas/supports';
import { restRoute, sendCsv } from '../../http/rest';
import type { Services } from '../../services';

export function supportsRest(app: FastifyInstance, { supports }: Services): void {
  // 201 {supported, supporters} when signed in; 202 {message} for a guest (the link is emailed)
  restRoute(app, {
    method: 'POST',
    url: '/api/campaigns/:id/support',
    params: IdParams,
    body: SupportInput,
    response: SupportStateSchema.or(SupportPendingSchema),
    status: 201,
    handler: async ({ params, body, actor }, _req, reply) => {
      const r = await supports.support(actor, params.id, body);
      if (r.kind === 'pending') {
        reply.code(202);
        return { message: r.message };
      }
      return { supported: r.supported, supporters: r.supporters };
    },
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/campaigns/:id/support',
    params: IdParams,
    response: SupportStateSchema,
    handler: ({ params, actor }) => supports.withdraw(actor, params.id),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/verify-guest/:token',
    params: VerifyGuestParams,
    response: VerifyGuestSchema,
    handler: ({ params, actor }) => supports.verifyGuest(actor, params.token),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id/supporters',
    params: IdParams,
    query: SupportersQuery,
    response: SupporterListSchema,
    handler: async ({ params, query, actor }, _req, reply) => {
      if (query.format === 'csv') {
        return sendCsv(reply, await supports.csv(actor, params.id));
      }
      const { items, nextCursor } = await supports.list(actor, params.id, query);
      return { items, nextCursor };
    },
  });
}
