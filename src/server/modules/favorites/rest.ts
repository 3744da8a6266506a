import type { FastifyInstance } from 'fastify';
import { FavoriteInput, FavoriteListSchema, FavoriteSchema, FavoritesQuery, FavoriteStateSchema } from '../../../shared/schemas/community';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';

export function favoritesRest(app: FastifyInstance, { favorites }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/favorites',
    summary: 'My favorites of one kind',
    tag: 'favorites',
    auth: 'required',
    errors: {},
    query: FavoritesQuery,
    response: FavoriteListSchema,
    handler: ({ query, actor }) => favorites.list(actor, query),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/favorites',
    summary: 'Add a favorite',
    tag: 'favorites',
    auth: 'required',
    errors: { 404: 'The campaign, project or profile was not found', 429: 'Favorite budget spent (`Retry-After`)' },
    body: FavoriteInput,
    response: FavoriteSchema,
    handler: ({ body, actor }) => favorites.add(actor, body),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/favorites',
    summary: 'Remove a favorite',
    tag: 'favorites',
    auth: 'required',
    errors: { 429: 'Favorite budget spent (`Retry-After`)' },
    body: FavoriteInput,
    response: FavoriteStateSchema,
    handler: ({ body, actor }) => favorites.remove(actor, body),
  });
}
