import type { FastifyInstance } from 'fastify';
import { CampaignListQuery, CampaignListSchema, CampaignSchema, CreateCampaignInput, IdParams, UpdateCampaignInput } from '../../../shared/schemas/campaigns';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';

export function campaignsRest(app: FastifyInstance, { campaigns }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns',
    summary: 'List, search and sort campaigns (by category, status and sort)',
    tag: 'campaigns',
    auth: 'optional',
    errors: {},
    query: CampaignListQuery,
    response: CampaignListSchema,
    handler: ({ query, actor }) => campaigns.list(actor, query),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id',
    summary: 'A campaign',
    tag: 'campaigns',
    auth: 'optional',
    errors: { 404: 'Campaign not found' },
    params: IdParams,
    response: CampaignSchema,
    handler: ({ params, actor }) => campaigns.get(actor, params.id),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/campaigns',
    summary: 'Create a campaign (released at once, or a draft: `visibility`, `releaseAt`)',
    tag: 'campaigns',
    auth: 'required',
    errors: {
      400: 'A release time that is not in the future, or with `visibility: released`',
      403: 'The adult category needs adult access',
      429: 'Campaign budget spent (`Retry-After`)',
    },
    body: CreateCampaignInput,
    response: CampaignSchema,
    status: 201,
    handler: ({ body, actor }) => campaigns.create(actor, body),
  });
  restRoute(app, {
    method: 'PUT',
    url: '/api/campaigns/:id',
    summary: 'Update my campaign (a draft: release now, schedule, move or cancel the schedule)',
    tag: 'campaigns',
    auth: 'required',
    errors: {
      400: 'A released campaign back to draft, or a release time not in the future',
      403: 'Not the campaign’s owner, or the adult category without adult access',
      404: 'Campaign not found',
      409: 'The currency cannot change once money was given',
    },
    params: IdParams,
    body: UpdateCampaignInput,
    response: CampaignSchema,
    handler: ({ params, body, actor }) => campaigns.update(actor, params.id, body),
  });
}
