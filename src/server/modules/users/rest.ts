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
    summary: 'The people directory: search by text and tags',
    tag: 'users',
    auth: 'none',
    errors: {},
    query: PublicUsersQuery,
    response: PublicUserListSchema,
    handler: ({ query, actor }) => users.listPublic(actor, query),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/public/users/suggested',
    summary: 'People whose tags match my project’s',
    tag: 'users',
    auth: 'required',
    errors: { 403: 'Not the project’s owner', 404: 'Project not found' },
    query: SuggestedUsersQuery,
    response: SuggestedUsersSchema,
    handler: ({ query, actor }) => users.suggestedForProject(actor, query.projectId),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/public/users/:id',
    summary: 'A public profile',
    tag: 'users',
    auth: 'none',
    errors: { 404: 'User not found' },
    params: IdParams,
    response: PublicUserSchema,
    handler: ({ params, actor }) => users.getPublic(actor, params.id),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/public/users/:id/campaigns',
    summary: 'A person’s campaigns',
    tag: 'users',
    auth: 'optional',
    errors: { 404: 'User not found' },
    params: IdParams,
    query: ListQuery,
    response: CampaignListSchema,
    handler: ({ params, query, actor }) => campaigns.listOfUser(actor, params.id, query),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/public/users/:id/teams',
    summary: 'The teams a person belongs to',
    tag: 'users',
    auth: 'optional',
    errors: { 404: 'User not found' },
    params: IdParams,
    query: TeamPageQuery,
    response: TeamItemsSchema,
    handler: ({ params, query, actor }) => teams.teamsOfUser(actor, params.id, query),
  });
  restRoute(app, {
    method: 'PUT',
    url: '/api/user/profile',
    summary: 'Update my profile',
    tag: 'users',
    auth: 'required',
    errors: { 409: 'The username is taken' },
    body: UpdateProfileInput,
    response: UserSchema,
    handler: ({ body, actor }) => users.updateProfile(actor, body),
  });
}
