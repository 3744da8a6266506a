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
    summary: 'Support a campaign (signed in), or ask for a guest’s confirmation link',
    tag: 'supports',
    auth: 'optional',
    errors: {
      403: 'Supporting is not open for this campaign',
      404: 'Campaign not found',
      409: 'The campaign has ended or is a draft (not released yet), or is already supported',
      429: 'Support budget spent (`Retry-After`)',
    },
    params: IdParams,
    body: SupportInput,
    response: SupportStateSchema,
    status: 201,
    alsoAnswers: { status: 202, response: SupportPendingSchema, description: 'A guest: the confirmation link was emailed' },
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
    summary: 'Withdraw my support',
    tag: 'supports',
    auth: 'required',
    errors: { 404: 'Campaign not found', 409: 'The campaign has ended' },
    params: IdParams,
    response: SupportStateSchema,
    handler: ({ params, actor }) => supports.withdraw(actor, params.id),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/verify-guest/:token',
    summary: 'Confirm a guest’s support with the emailed token',
    tag: 'supports',
    auth: 'none',
    errors: { 400: 'Invalid or expired token', 404: 'Campaign not found', 409: 'The campaign has ended' },
    params: VerifyGuestParams,
    response: VerifyGuestSchema,
    handler: ({ params, actor }) => supports.verifyGuest(actor, params.token),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id/supporters',
    summary: 'A campaign’s supporters (owner and admins), or all of them as CSV',
    tag: 'supports',
    auth: 'required',
    errors: { 403: 'Not the campaign’s owner', 404: 'Campaign not found' },
    csv: true,
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
