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
    auth: 'optional',
    description: 'Only tags that something the caller may see carries (a tag of adult items only needs adult access).',
    errors: {},
    query: TagSearchQuery,
    response: TagListSchema,
    handler: ({ query, actor }) => tags.search(actor, query),
  });
}
