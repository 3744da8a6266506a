import { and, desc, eq, getTableColumns, ne, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import { toMajor } from '../../../shared/money';
import type { CreateProjectInput, ProjectDto, ProjectListQuery, UpdateProjectInput } from '../../../shared/schemas/projects';
import { favorites, listCounts, projectFollows, projects, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { unauthorized } from '../../lib/errors';
import { changedFields, recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { assertOwnImages, imageUrlsOf, itemPatch } from '../../lib/items';
import { assertCategoryAllowed, canSeeAdult } from '../../lib/access';
import { createItemStore } from '../../lib/item-store';
import { afterCursor, pageOf, readCursor, searchCondition } from '../../lib/listing';
import { requireUser } from '../auth/service';
import { coordinationText } from '../campaigns/coordination';

type Out<T extends z.ZodType> = z.output<T>;

const { searchVector: _sv, ...projectColumns } = getTableColumns(projects);

const followersSql = sql<string>`(select count(*) from project_follows f where f.project_id = ${projects.id})`;
const followingSql = (viewerId: string | null) =>
  viewerId ? sql<boolean>`exists (select 1 from project_follows f where f.project_id = ${projects.id} and f.user_id = ${viewerId}::uuid)` : sql<boolean>`false`;

function selection(viewerId: string | null) {
  return {
    p: projectColumns,
    owner: { id: users.id, username: users.username, name: users.name, imageUrl: users.imageUrl },
    followers: followersSql,
    following: followingSql(viewerId),
  };
}

type Row = {
  p: Omit<typeof projects.$inferSelect, 'searchVector'>;
  owner: { id: string; username: string | null; name: string | null; imageUrl: string | null };
  followers: string | number;
  following: boolean;
};

export function toProjectDto(r: Row): ProjectDto {
  const followers = Number(r.followers);
  return {
    _id: r.p.id,
    title: r.p.title,
    description: r.p.description,
    tags: r.p.tags,
    type: r.p.type,
    targetType: r.p.targetType,
    coordination: coordinationText(null, followers),
    goalAmount: r.p.targetType === 'supporters' ? r.p.goalAmount : toMajor(r.p.goalAmount),
    currency: r.p.currency,
    imageUrl: r.p.imageUrl,
    coverUrl: r.p.imageUrl,
    images: r.p.images.map((i) => ({ url: i.url, secure_url: i.url, alt: i.alt ?? '' })),
    actionMode: r.p.actionMode,
    totalRaised: 0,
    support: followers,
    supporters: followers,
    following: Boolean(r.following),
    ownerId: { _id: r.owner.id, username: r.owner.username, name: r.owner.name, imageUrl: r.owner.imageUrl, avatarUrl: r.owner.imageUrl },
    createdAt: r.p.createdAt,
    updatedAt: r.p.updatedAt,
  };
}

export function createProjectsService(deps: Deps) {
  const { db } = deps;

  const store = createItemStore(deps, {
    table: projects,
    columns: projectColumns,
    selection,
    toDto: (r: Row) => toProjectDto(r),
    model: 'Project',
    budget: 'project',
    notFoundText: M.projectNotFound,
  });
  const { load, ownedForUpdate } = store;

  async function followers(projectId: string): Promise<number> {
    const [r] = await db.select({ n: sql<string>`count(*)` }).from(projectFollows).where(eq(projectFollows.projectId, projectId));
    return Number(r?.n ?? 0);
  }

  return {
    /** Newest first; `my`, `ownerId` and `projectId` narrow the list. Paging as for campaigns. */
    async list(actor: Actor, query: Out<typeof ProjectListQuery>) {
      const { q, page, limit } = query;
      const empty = { items: [], total: 0, page, limit, nextCursor: null };
      const cursor = readCursor(query.cursor);
      const base: SQL[] = [];
      if (!canSeeAdult(actor)) base.push(ne(projects.type, 'adult'));
      if (query.my) {
        if (!actor.user) throw unauthorized(M.signInRequired);
        base.push(eq(projects.ownerId, actor.user.id));
      }
      if (query.ownerId) {
        if (!isUuid(query.ownerId)) return empty;
        base.push(eq(projects.ownerId, query.ownerId));
      }
      if (query.projectId) {
        if (!isUuid(query.projectId)) return empty;
        base.push(eq(projects.id, query.projectId));
      }
      const search = searchCondition(projects.searchVector, projects.title, q);
      if (search) base.push(search);
      const where = cursor ? [...base, afterCursor(projects.createdAt, projects.id, cursor)] : base;
      const filtered = Boolean(search || query.my || query.ownerId || query.projectId);

      const rowsP = db
        .select(selection(actor.user?.id ?? null))
        .from(projects)
        .innerJoin(users, eq(users.id, projects.ownerId))
        .where(where.length ? and(...where) : undefined)
        .orderBy(desc(projects.createdAt), desc(projects.id))
        .limit(limit + 1)
        .offset(cursor ? 0 : (page - 1) * limit);
      const totalP = filtered
        ? db
            .select({ n: sql<string>`count(*)` })
            .from(projects)
            .where(base.length ? and(...base) : undefined)
            .then((r) => Number(r[0]?.n ?? 0))
        : db
            .select({ adult: listCounts.adult, n: listCounts.n })
            .from(listCounts)
            .where(eq(listCounts.entity, 'projects'))
            .then((rows) => rows.reduce((s, r) => (r.adult && !canSeeAdult(actor) ? s : s + Number(r.n)), 0));
      const [rows, total] = await Promise.all([rowsP, totalP]);
      // one row more than the page was read: it says whether there is a next page
      const { page: pageRows, nextCursor } = pageOf(rows as Row[], limit, (r) => r.p);
      return { items: pageRows.map(toProjectDto), total, page, limit, nextCursor };
    },

    get: load,

    /** The visible ones among these ids (for favorites), in no particular order. */
    byIds: store.byIds,

    create: (actor: Actor, input: Out<typeof CreateProjectInput>): Promise<ProjectDto> => store.create(actor, input),

    async update(actor: Actor, id: string, input: Out<typeof UpdateProjectInput>): Promise<ProjectDto> {
      await db.transaction(async (tx) => {
        const { user, before } = await ownedForUpdate(tx, actor, id);
        assertCategoryAllowed(user, input.type);
        await assertOwnImages(tx, user.id, imageUrlsOf(input), imageUrlsOf(before));
        const patch: Partial<typeof projects.$inferInsert> = { ...itemPatch(input, before.targetType) };
        const fields = changedFields(before as Record<string, unknown>, patch as Record<string, unknown>);
        if (!fields.length) return;
        await tx
          .update(projects)
          .set({ ...patch, updatedAt: new Date() })
          .where(eq(projects.id, id));
        await recordChange(tx, { modelName: 'Project', action: 'update', key: id, fields, actorId: user.id, subjectUserId: before.ownerId });
      });
      return load(actor, id);
    },

    /** The owner deletes a project; its follows go with it, its teams stay (unattached), favorites of it go. */
    async remove(actor: Actor, id: string): Promise<void> {
      await db.transaction(async (tx) => {
        const { user, before } = await ownedForUpdate(tx, actor, id);
        await tx.delete(favorites).where(and(eq(favorites.targetType, 'project'), eq(favorites.targetId, id)));
        await tx.delete(projects).where(eq(projects.id, id));
        await recordChange(tx, { modelName: 'Project', action: 'delete', key: id, actorId: user.id, subjectUserId: before.ownerId });
      });
    },

    /** Following is idempotent: following twice is fine, unfollowing what you don't follow too. */
    async follow(actor: Actor, id: string, follow: boolean): Promise<{ following: boolean; followers: number }> {
      const { user } = requireUser(actor);
      await load(actor, id);
      await deps.limiter.write('follow', actor);
      if (follow) await db.insert(projectFollows).values({ userId: user.id, projectId: id }).onConflictDoNothing();
      else await db.delete(projectFollows).where(and(eq(projectFollows.userId, user.id), eq(projectFollows.projectId, id)));
      return { following: follow, followers: await followers(id) };
    },
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;
