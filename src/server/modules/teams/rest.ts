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
    summary: 'List and search teams',
    tag: 'teams',
    auth: 'optional',
    errors: {},
    query: TeamListQuery,
    response: TeamListSchema,
    handler: ({ query, actor }) => teams.list(actor, query),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/teams/mine',
    summary: 'The teams I own or belong to',
    tag: 'teams',
    auth: 'required',
    errors: {},
    query: TeamPageQuery,
    response: TeamItemsSchema,
    handler: ({ query, actor }) => teams.mine(actor, query),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/teams',
    summary: 'Create a team',
    tag: 'teams',
    auth: 'required',
    errors: { 403: 'The project is not mine', 404: 'Project not found', 429: 'Team budget spent (`Retry-After`)' },
    body: CreateTeamInput,
    response: TeamSchema,
    status: 201,
    handler: ({ body, actor }) => teams.create(actor, body),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/teams/:id',
    summary: 'A team',
    tag: 'teams',
    auth: 'optional',
    errors: { 404: 'Team not found' },
    params: TeamIdParams,
    response: TeamSchema,
    handler: ({ params, actor }) => teams.get(actor, params.id),
  });
  restRoute(app, {
    method: 'PUT',
    url: '/api/teams/:id',
    summary: 'Update my team',
    tag: 'teams',
    auth: 'required',
    errors: { 403: 'Not the team’s owner, or the project is not mine', 404: 'Team or project not found' },
    params: TeamIdParams,
    body: UpdateTeamInput,
    response: TeamSchema,
    handler: ({ params, body, actor }) => teams.update(actor, params.id, body),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/teams/:id',
    summary: 'Delete my team',
    tag: 'teams',
    auth: 'required',
    errors: { 403: 'Not the team’s owner', 404: 'Team not found' },
    params: TeamIdParams,
    response: z.void(),
    status: 204,
    handler: ({ params, actor }) => teams.remove(actor, params.id),
  });

  // members
  restRoute(app, {
    method: 'GET',
    url: '/api/teams/:id/members',
    summary: 'A team’s members',
    tag: 'teams',
    auth: 'optional',
    errors: { 404: 'Team not found' },
    params: TeamIdParams,
    query: TeamMembersQuery,
    response: TeamMembersSchema,
    handler: ({ params, query, actor }) => teams.members(actor, params.id, query),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/teams/:id/members',
    summary: 'Invite or add a person (by user id, email or username)',
    tag: 'teams',
    auth: 'required',
    errors: {
      403: 'Not allowed to invite, or a block between the people',
      404: 'Team or person not found',
      409: 'Already a member or already invited',
      429: 'Invite budget spent (`Retry-After`)',
    },
    params: TeamIdParams,
    body: InviteMemberInput,
    response: TeamMemberSchema,
    status: 201,
    handler: ({ params, body, actor }) => teams.invite(actor, params.id, body),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/teams/:id/members/request',
    summary: 'Ask to join a team',
    tag: 'teams',
    auth: 'required',
    errors: { 403: 'A block between me and the team’s owner', 404: 'Team not found', 409: 'Already a member or already asked' },
    params: TeamIdParams,
    response: TeamMemberSchema,
    status: 201,
    handler: ({ params, actor }) => teams.request(actor, params.id),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/teams/:id/members/accept',
    summary: 'Accept an invitation to a team',
    tag: 'teams',
    auth: 'required',
    errors: {
      403: 'A block between me and the team’s owner',
      404: 'Team not found, or no invitation',
      409: 'Already a member or already asked',
    },
    params: TeamIdParams,
    response: TeamMemberSchema,
    handler: ({ params, actor }) => teams.accept(actor, params.id),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/teams/:id/members/me',
    summary: 'Leave a team',
    tag: 'teams',
    auth: 'required',
    errors: { 403: 'The owner cannot leave', 404: 'Team not found, or not a member' },
    params: TeamIdParams,
    response: z.void(),
    status: 204,
    handler: ({ params, actor }) => teams.leave(actor, params.id),
  });
  restRoute(app, {
    method: 'PUT',
    url: '/api/teams/:id/members/:memberId',
    summary: 'Change a member’s status or role',
    tag: 'teams',
    auth: 'required',
    errors: { 403: 'Not the team’s owner, or the owner’s own row', 404: 'Team or member not found', 409: 'The member did not ask to join' },
    params: TeamMemberParams,
    body: UpdateMemberInput,
    response: TeamMemberSchema,
    handler: ({ params, body, actor }) => teams.updateMember(actor, params.id, params.memberId, body),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/teams/:id/members/:memberId',
    summary: 'Remove a member',
    tag: 'teams',
    auth: 'required',
    errors: { 403: 'Not allowed to remove this member', 404: 'Team or member not found' },
    params: TeamMemberParams,
    response: z.void(),
    status: 204,
    handler: ({ params, actor }) => teams.removeMember(actor, params.id, params.memberId),
  });

  // looking-for tags
  restRoute(app, {
    method: 'POST',
    url: '/api/teams/:id/tags/:tag',
    summary: 'Add a skill the team looks for',
    tag: 'teams',
    auth: 'required',
    errors: { 403: 'Not the team’s owner', 404: 'Team not found' },
    params: TeamTagParams,
    response: TeamTagsSchema,
    handler: ({ params, actor }) => teams.addTag(actor, params.id, params.tag),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/teams/:id/tags/:tag',
    summary: 'Remove a skill the team looks for',
    tag: 'teams',
    auth: 'required',
    errors: { 403: 'Not the team’s owner', 404: 'Team not found' },
    params: TeamTagParams,
    response: TeamTagsSchema,
    handler: ({ params, actor }) => teams.removeTag(actor, params.id, params.tag),
  });

  restRoute(app, {
    method: 'GET',
    url: '/api/teams/:id/suggested',
    summary: 'People who have the skills the team looks for',
    tag: 'teams',
    auth: 'required',
    errors: { 403: 'Not the team’s owner or a manager', 404: 'Team or project not found' },
    params: TeamIdParams,
    query: TeamSuggestedQuery,
    response: TeamSuggestedUsersSchema,
    handler: ({ params, query, actor }) => teams.suggested(actor, params.id, query),
  });
}
