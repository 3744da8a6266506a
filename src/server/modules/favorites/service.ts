import { and, desc, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import type { FavoriteDto, FavoriteInput, FavoritesQuery } from '../../../shared/schemas/community';
import { favorites, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { notFound } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { requireUser } from '../auth/service';
import type { CampaignsService } from '../campaigns/service';
import type { ProjectsService } from '../projects/service';
import { toPublicUserDto } from '../users/dto';

type Out<T extends z.ZodType> = z.output<T>;
type TargetType = Out<typeof FavoriteInput>['targetType'];

const publicUserColumns = { id: users.id, username: users.username, name: users.name, tags: users.tags, imageUrl: users.imageUrl, createdAt: users.createdAt };

export function createFavoritesService(deps: Deps, items: { campaigns: CampaignsService; projects: ProjectsService }) {
  const { db } = deps;

  /** The favorited things as DTOs, keyed by id; what no longer exists (or is hidden) is absent. */
  async function targets(actor: Actor, type: TargetType, ids: string[]) {
    if (!ids.length) return new Map<string, unknown>();
    if (type === 'campaign') return new Map((await items.campaigns.byIds(actor, ids)).map((c) => [c._id, c] as const));
    if (type === 'project') return new Map((await items.projects.byIds(actor, ids)).map((p) => [p._id, p] as const));
    const rows = await db.select(publicUserColumns).from(users).where(inArray(users.id, ids.filter(isUuid)));
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

    /** My favorites, newest first, each with the thing itself; favorites of things that are gone are left out. */
    async list(actor: Actor, query: Out<typeof FavoritesQuery>): Promise<{ items: FavoriteDto[] }> {
      const { user } = requireUser(actor);
      const rows = await db
        .select()
        .from(favorites)
        .where(query.type ? and(eq(favorites.userId, user.id), eq(favorites.targetType, query.type)) : eq(favorites.userId, user.id))
        .orderBy(desc(favorites.createdAt), desc(favorites.id));
      const out: FavoriteDto[] = [];
      for (const type of ['campaign', 'project', 'profile'] as const) {
        const ofType = rows.filter((r) => r.targetType === type);
        const found = await targets(actor, type, ofType.map((r) => r.targetId));
        for (const r of ofType) {
          const target = found.get(r.targetId);
          if (!target) continue;
          out.push({ _id: r.id, targetType: r.targetType, targetId: r.targetId, createdAt: r.createdAt, [type]: target } as FavoriteDto);
        }
      }
      out.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
      return { items: out };
    },

    /** Ids of my favorites of one type (for the buttons in lists); empty when signed out. */
    async ids(actor: Actor, type: TargetType): Promise<{ ids: string[] }> {
      if (!actor.user) return { ids: [] };
      const rows = await db
        .select({ id: favorites.targetId })
        .from(favorites)
        .where(and(eq(favorites.userId, actor.user.id), eq(favorites.targetType, type)));
      return { ids: rows.map((r) => r.id) };
    },
  };
}

export type FavoritesService = ReturnType<typeof createFavoritesService>;
