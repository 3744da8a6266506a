import type { FastifyInstance } from 'fastify';
import { IdParams } from '../../../shared/schemas/campaigns';
import { CampaignStatsQuery, CampaignStatsSchema } from '../../../shared/schemas/stats';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';

/** The creator's dashboard (issue #33) on the REST door: the same call as tRPC's `stats.campaign`. */
export function statsRest(app: FastifyInstance, { stats }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/campaigns/:id/stats',
    summary: 'A campaign’s dashboard for its owner: its figures, each UTC day’s money and supporters, the latest activity',
    tag: 'campaigns',
    auth: 'required',
    errors: { 403: 'Not the campaign’s owner', 404: 'Campaign not found' },
    params: IdParams,
    query: CampaignStatsQuery,
    response: CampaignStatsSchema,
    handler: ({ params, query, actor }) => stats.ofCampaign(actor, params.id, query.days),
  });
}
