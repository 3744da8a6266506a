import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  CreateTeamInput,
  InviteMemberInput,
  TeamIdParams,
  TeamItemsSchema,
  TeamListQuery,
  TeamListSchema,
  TeamMemberParams,
  TeamMemberSchema,
  TeamMembersQuery,
  TeamMembersSchema,
  TeamPageQuery,
  TeamSchema,
  TeamSuggestedQuery,
  TeamSuggestedUsersSchema,
  TeamTagParams,
  TeamTagsSchema,
  UpdateMemberInput,
  UpdateTeamInput,
} from '../../../shared/schemas/teams';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';

/**
 * The Teams calls of spec section 7. `{memberId}` is the member's user id. GET
 * /api/public/users/{id}/teams is wired with the public profile calls (teams.teamsOfUser).
 */
export function teamsRest(app: FastifyInstance, { teams }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/teams',
    query: TeamListQuery,
    response: TeamListSchema,
    handler: ({ query, actor }) => teams.list(actor, query),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/teams/mine',
    query: TeamPageQuery,
    response: TeamItemsSchema,
    handler: ({ query, actor }) => teams.mine(actor, query),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/teams',
    body: CreateTeamInput,
    response: TeamSchema,
    status: 201,
    handler: ({ body, actor }) => teams.create(actor, body),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/teams/:id',
    params: TeamIdParams,
    response: TeamSchema,
    handler: ({ params, actor }) => teams.get(actor, params.id),
  });
  restRoute(app, {
    method: 'PUT',
    url: '/api/teams/:id',
    params: TeamIdParams,
    body: UpdateTeamInput,
    response: TeamSchema,
    handler: ({ params, body, actor }) => teams.update(actor, params.id, body),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/teams/:id',
    params: TeamIdParams,
    response: z.void(),
    status: 204,
    handler: ({ params, actor }) => teams.remove(actor, params.id),
  });

  // members
  restRoute(app, {
    method: 'GET',
    url: '/api/teams/:id/members',
    params: TeamIdParams,
    query: TeamMembersQuery,
    response: TeamMembersSchema,
    handler: ({ params, query, actor }) => teams.members(actor, params.id, query),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/teams/:id/members',
    params: TeamIdParams,
    body: InviteMemberInput,
    response: TeamMemberSchema,
    status: 201,
    handler: ({ params, body, actor }) => teams.invite(actor, params.id, body),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/teams/:id/members/request',
    params: TeamIdParams,
    response: TeamMemberSchema,
    status: 201,
    handler: ({ params, actor }) => teams.request(actor, params.id),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/teams/:id/members/accept',
    params: TeamIdParams,
    response: TeamMemberSchema,
    handler: ({ params, actor }) => teams.accept(actor, params.id),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/teams/:id/members/me',
    params: TeamIdParams,
    response: z.void(),
    status: 204,
    handler: ({ params, actor }) => teams.leave(actor, params.id),
  });
  restRoute(app, {
    method: 'PUT',
    url: '/api/teams/:id/members/:memberId',
    params: TeamMemberParams,
    body: UpdateMemberInput,
    response: TeamMemberSchema,
    handler: ({ params, body, actor }) => teams.updateMember(actor, params.id, params.memberId, body),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/teams/:id/members/:memberId',
    params: TeamMemberParams,
    response: z.void(),
    status: 204,
    handler: ({ params, actor }) => teams.removeMember(actor, params.id, params.memberId),
  });

  // looking-for tags
  restRoute(app, {
    method: 'POST',
    url: '/api/teams/:id/tags/:tag',
    params: TeamTagParams,
    response: TeamTagsSchema,
    handler: ({ params, actor }) => teams.addTag(actor, params.id, params.tag),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/teams/:id/tags/:tag',
    params: TeamTagParams,
    response: TeamTagsSchema,
    handler: ({ params, actor }) => teams.removeTag(actor, params.id, params.tag),
  });

  restRoute(app, {
    method: 'GET',
    url: '/api/teams/:id/suggested',
    params: TeamIdParams,
    query: TeamSuggestedQuery,
    response: TeamSuggestedUsersSchema,
    handler: ({ params, query, actor }) => teams.suggested(actor, params.id, query),
  });
}
