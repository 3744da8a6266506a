import {
  FavoriteIdsQuery,
  FavoriteIdsSchema,
  FavoriteInput,
  FavoriteListSchema,
  FavoriteSchema,
  FavoritesQuery,
  FavoriteStateSchema,
} from '../../../shared/schemas/community';
import { authedProcedure, publicProcedure, router } from '../../trpc/init';

export const favoritesRouter = router({
  /** A page of my favorites (no input: the first 20 of every type). */
  list: authedProcedure
    .input(FavoritesQuery.prefault({}))
    .output(FavoriteListSchema)
    .query(({ ctx, input }) => ctx.services.favorites.list(ctx.actor, input)),
  /** Which of the given ids (at most 100) of one type are my favorites; none when signed out. */
  ids: publicProcedure
    .input(FavoriteIdsQuery)
    .output(FavoriteIdsSchema)
    .query(({ ctx, input }) => ctx.services.favorites.ids(ctx.actor, input)),
  add: authedProcedure
    .input(FavoriteInput)
    .output(FavoriteSchema)
    .mutation(({ ctx, input }) => ctx.services.favorites.add(ctx.actor, input)),
  remove: authedProcedure
    .input(FavoriteInput)
    .output(FavoriteStateSchema)
    .mutation(({ ctx, input }) => ctx.services.favorites.remove(ctx.actor, input)),
});
