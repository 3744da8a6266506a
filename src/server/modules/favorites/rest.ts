import type { FastifyInstance } from 'fastify';
import { FavoriteInput, FavoriteListSchema, FavoriteSchema, FavoritesQuery, FavoriteStateSchema } from '../../../shared/schemas/community';
import { restRoute } from '../../http/rest';
import type { Services } from '../../services';

export function favoritesRest(app: FastifyInstance, { favorites }: Services): void {
  restRoute(app, {
    method: 'GET',
    url: '/api/favorites',
    query: FavoritesQuery,
    response: FavoriteListSchema,
    handler: ({ query, actor }) => favorites.list(actor, query),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/favorites',
    body: FavoriteInput,
    response: FavoriteSchema,
    handler: ({ body, actor }) => favorites.add(actor, body),
  });
  restRoute(app, {
    method: 'DELETE',
    url: '/api/favorites',
    body: FavoriteInput,
    response: FavoriteStateSchema,
    handler: ({ body, actor }) => favorites.remove(actor, body),
  });
}
