import { and, desc, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import type { FavoriteDto, FavoriteIdsQuery, FavoriteInput, FavoriteListDto, FavoritesQuery } from '../../../shared/schemas/community';
import { favorites, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { notFound } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { profileVisibleSql, requireUser, viewerOf } from '../../lib/access';
import { afterCursor, pageOf, readCursor } from '../../lib/listing';
import type { CampaignsService } from '../campaigns/service';
import type { ProjectsService } from '../projects/service';
import { toPublicUserDto } from '../users/dto';

type Out<T extends z.ZodType> = z.output<T>;
type TargetType = Out<typeof FavoriteInput>['targetType'];

const publicUserColumns = { id: users.id, username: users.username, name: users.name, tags: users.tags, imageUrl: users.imageUrl, createdAt: users.createdAt };

export function createFavoritesService(deps: Deps, items: { campaigns: CampaignsService; projects: ProjectsService }) {
  const { db } = deps;

  /** The favorited things as DTOs, keyed by id; what no longer exists (or is hidden: lib/access.ts, through the items' stores) is absent. */
  async function targets(actor: Actor, type: TargetType, ids: string[]) {
    if (!ids.length) return new Map<string, unknown>();
    if (type === 'campaign') return new Map((await items.campaigns.byIds(actor, ids)).map((c) => [c._id, c] as const));
    if (type === 'project') return new Map((await items.projects.byIds(actor, ids)).map((p) => [p._id, p] as const));
    const rows = await db
      .select(publicUserColumns)
      .from(users)
      .where(and(inArray(users.id, ids.filter(isUuid)), profileVisibleSql(viewerOf(actor))));
    return new Map(rows.map((u) => [u.id, toPublicUserDto(u)] as const));
  }

  async function assertExists(actor: Actor, type: TargetType, id: string) {
    if (!isUuid(id) || !(await targets(actor, type, [id])).has(id)) throw notFound(M.favoriteTargetNotFound);
  }

  return {
    /** Adding twice is fine: the same favorite comes back. */
    async add(actor: Actor, input: Out<typeof FavoriteInput>): Promise<FavoriteDto> {
      const { user } = requireUser(actor);
      await assertExists(actor, input.targetType, input.targetId);
      await deps.limiter.write('favorite', actor);
      await db.insert(favorites).values({ userId: user.id, targetType: input.targetType, targetId: input.targetId }).onConflictDoNothing();
      const [row] = await db
        .select()
        .from(favorites)
        .where(and(eq(favorites.userId, user.id), eq(favorites.targetType, input.targetType), eq(favorites.targetId, input.targetId)));
      return { _id: row.id, targetType: row.targetType, targetId: row.targetId, createdAt: row.createdAt };
    },

    /** Removing what is not a favorite is fine too. */
    async remove(actor: Actor, input: Out<typeof FavoriteInput>): Promise<{ favorited: false }> {
      const { user } = requireUser(actor);
      if (isUuid(input.targetId)) {
        await db
          .delete(favorites)
          .where(and(eq(favorites.userId, user.id), eq(favorites.targetType, input.targetType), eq(favorites.targetId, input.targetId)));
      }
      return { favorited: false };
    },

    /**
     * A page of my favorites, newest first by (created_at, id) from the cursor on, each with the
     * thing itself. Favorites of things that are gone or hidden from me are left out of the page
     * (so it may be shorter than `limit`); `nextCursor` follows the rows read, so paging goes on
     * past them and never shows a row twice.
     */
    async list(actor: Actor, query: Out<typeof FavoritesQuery>): Promise<FavoriteListDto> {
      const { user } = requireUser(actor);
      const cursor = readCursor(query.cursor);
      const { limit } = query;
      const rows = await db
        .select()
        .from(favorites)
        .where(
          and(
            eq(favorites.userId, user.id),
            query.type ? eq(favorites.targetType, query.type) : undefined,
            cursor ? afterCursor(favorites.createdAt, favorites.id, cursor) : undefined,
          ),
        )
        .orderBy(desc(favorites.createdAt), desc(favorites.id))
        // one row more than the page: it says whether there is a next page
        .limit(limit + 1);
      const { page, nextCursor } = pageOf(rows, limit, (r) => r);
      // the things themselves, one lookup per type on the page
      const found = new Map(
        await Promise.all(
          (['campaign', 'project', 'profile'] as const).map(
            async (type) =>
              [
                type,
                await targets(
                  actor,
                  type,
                  page.filter((r) => r.targetType === type).map((r) => r.targetId),
                ),
              ] as const,
          ),
        ),
      );
      const items: FavoriteDto[] = [];
      for (const r of page) {
        const target = found.get(r.targetType)?.get(r.targetId);
        if (!target) continue;
        items.push({ _id: r.id, targetType: r.targetType, targetId: r.targetId, createdAt: r.createdAt, [r.targetType]: target } as FavoriteDto);
      }
      return { items, nextCursor };
    },

    /**
     * Which of the asked ids of one type are my favorites, in the order asked (the buttons of a
     * page ask about what they show; at most FAVORITE_IDS_MAX ids, checked by the schema). Ids
     * that are not uuids name nothing and are not favorites; signed out, none are. One probe of
     * favorites_user_target_key per asked id.
     */
    async ids(actor: Actor, query: Out<typeof FavoriteIdsQuery>): Promise<{ ids: string[] }> {
      if (!actor.user) return { ids: [] };
      const asked = [...new Set(query.targetIds.filter(isUuid).map((id) => id.toLowerCase()))];
      if (!asked.length) return { ids: [] };
      const rows = await db
        .select({ id: favorites.targetId })
        .from(favorites)
        .where(and(eq(favorites.userId, actor.user.id), eq(favorites.targetType, query.type), inArray(favorites.targetId, asked)));
      const found = new Set(rows.map((r) => r.id));
      return { ids: asked.filter((id) => found.has(id)) };
    },
  };
}

export type FavoritesService = ReturnType<typeof createFavoritesService>;
