import type { FastifyInstance } from 'fastify';
import {
  CampaignListSchema,
  CampaignSchema,
  CreateCampaignInput,
  IdParams,
  ListQuery,
  UpdateCampaignInput,
} from '../../../shared/schemas/campaigns';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';

export function campaignsRest(app: FastifyInstance, { campaigns }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns',
    query: ListQuery,
    response: CampaignListSchema,
    handler: ({ query, actor }) => campaigns.list(actor, query),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id',
    params: IdParams,
    response: CampaignSchema,
    handler: ({ params, actor }) => campaigns.get(actor, params.id),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/campaigns',
    body: CreateCampaignInput,
    response: CampaignSchema,
    status: 201,
    handler: ({ body, actor }) => campaigns.create(actor, body),
  });
  restRoute(app, {
    method: 'PUT',
    url: '/api/campaigns/:id',
    params: IdParams,
    body: UpdateCampaignInput,
    response: CampaignSchema,
    handler: ({ params, body, actor }) => campaigns.update(actor, params.id, body),
  });
}
