import type { FastifyInstance } from 'fastify';
import { TagListSchema, TagSearchQuery } from '../../../shared/schemas/tags';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';

export function tagsRest(app: FastifyInstance, { tags }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/tags',
    summary: 'Tags that start with a text',
    tag: 'tags',
    auth: 'none',
    errors: {},
    query: TagSearchQuery,
    response: TagListSchema,
    handler: ({ query }) => tags.search(query),
  });
}
