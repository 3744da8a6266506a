import type { FastifyInstance } from 'fastify';
import { SuggestedUsersQuery } from '../../../shared/schemas/tags';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';
import { SuggestedUsersSchema } from './service';

export function usersRest(app: FastifyInstance, { users }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/public/users/suggested',
    query: SuggestedUsersQuery,
    response: SuggestedUsersSchema,
    handler: ({ query, actor }) => users.suggestedForProject(actor, query.projectId),
  });
}
