import type { FastifyInstance } from 'fastify';
import { CampaignListSchema, IdParams, ListQuery } from '../../../shared/schemas/campaigns';
import { PublicUserListSchema, PublicUsersQuery, UpdateProfileInput } from '../../../shared/schemas/profiles';
import { SuggestedUsersQuery } from '../../../shared/schemas/tags';
import { TeamItemsSchema, TeamPageQuery } from '../../../shared/schemas/teams';
import { PublicUserSchema, UserSchema } from '../../../shared/schemas/user';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';
import { SuggestedUsersSchema } from './service';

export function usersRest(app: FastifyInstance, { users, campaigns, teams }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/public/users',
    query: PublicUsersQuery,
    response: PublicUserListSchema,
    handler: ({ query }) => users.listPublic(query),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/public/users/suggested',
    query: SuggestedUsersQuery,
    response: SuggestedUsersSchema,
    handler: ({ query, actor }) => users.suggestedForProject(actor, query.projectId),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/public/users/:id',
    params: IdParams,
    response: PublicUserSchema,
    handler: ({ params }) => users.getPublic(params.id),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/public/users/:id/campaigns',
    params: IdParams,
    query: ListQuery,
    response: CampaignListSchema,
    handler: ({ params, query, actor }) => campaigns.listOfUser(actor, params.id, query),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/public/users/:id/teams',
    params: IdParams,
    query: TeamPageQuery,
    response: TeamItemsSchema,
    handler: ({ params, query, actor }) => teams.teamsOfUser(actor, params.id, query),
  });
  restRoute(app, {
    method: 'PUT',
    url: '/api/user/profile',
    body: UpdateProfileInput,
    response: UserSchema,
    handler: ({ body, actor }) => users.updateProfile(actor, body),
  });
}
