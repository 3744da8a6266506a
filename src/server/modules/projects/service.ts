import { and, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { ProjectSort } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { toMajor } from '../../../shared/money';
import type { CreateProjectInput, ProjectDto, ProjectListQuery, UpdateProjectInput } from '../../../shared/schemas/projects';
import { favorites, listVersions, projectFollows, projects, projectSortKeys, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { changedFields, recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { assertOwnImages, imageUrlsOf, itemPatch, releasePatch } from '../../lib/items';
import { assertCategoryAllowed, itemVisibleSql, requireUser, viewerOf, viewerOfCategory, visibilityOf } from '../../lib/access';
import { createItemStore } from '../../lib/item-store';
import { afterSortCursor, encodeSortCursor, orderOf, readSortCursor, searchCondition, visibleTotalSql, type SortOrder } from '../../lib/listing';
import { coordinationText } from '../campaigns/coordination';
import { readerFor } from '../../db/replica';

type Out<T extends z.ZodType> = z.output<T>;

const { searchVector: _sv, ...projectColumns } = getTableColumns(projects);

const followersSql = sql<string>`(select count(*) from project_follows f where f.project_id = ${projects.id})`;

/** The project list's sorts: newest first, or most followers (project_sort_keys, kept by a trigger). */
const PROJECT_ORDERS: Record<ProjectSort, SortOrder> = {
  newest: { name: 'newest', key: projects.createdAt, id: projects.id, dir: 'desc', kind: 'time' },
  supported: { name: 'supported', key: projectSortKeys.followers, id: projectSortKeys.projectId, dir: 'desc', kind: 'int' },
};
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
    visibility: visibilityOf(r.p),
    releaseAt: r.p.releasedAt === null ? r.p.releaseAt : null,
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
    kind: 'project',
    budget: 'project',
    notFoundText: M.projectNotFound,
  });
  const { load, ownedForUpdate } = store;

  async function followers(projectId: string): Promise<number> {
    const [r] = await db.select({ n: sql<string>`count(*)` }).from(projectFollows).where(eq(projectFollows.projectId, projectId));
    return Number(r?.n ?? 0);
  }

  return {
    /**
     * Newest first, or most followed (`sort=supported`); `q`, `type`, `my`, `ownerId` and
     * `projectId` narrow the list. Paging as for campaigns: `page`, or `cursor` with the sort's key.
     */
    async list(actor: Actor, query: Out<typeof ProjectListQuery>) {
      const { page, limit } = query;
      const empty = { items: [], total: 0, page, limit, nextCursor: null };
      const order = PROJECT_ORDERS[query.sort];
      const cursor = readSortCursor(query.cursor, order);
      const viewer = viewerOf(actor);
      // a category's list is seen with the audiences its items can have (no adult ones for a visitor)
      const base: SQL[] = [itemVisibleSql(viewerOfCategory(viewer, query.type), projects)];
      if (query.my) base.push(eq(projects.ownerId, requireUser(actor).user.id));
      if (query.ownerId) {
        if (!isUuid(query.ownerId)) return empty;
        base.push(eq(projects.ownerId, query.ownerId));
      }
      if (query.projectId) {
        if (!isUuid(query.projectId)) return empty;
        base.push(eq(projects.id, query.projectId));
      }
      if (query.type) base.push(eq(projects.type, query.type));
      const search = searchCondition(projects.searchVector, projects.title, query.q);
      if (search) base.push(search);
      const filtered = base.length > 1;
      // an anonymous caller's list may come from the replica (db/replica.ts)
      const reader = readerFor(deps, actor);
      const rowsP = reader
        .select({ ...selection(viewer.userId as string | null), followersKey: projectSortKeys.followers })
        .from(projects)
        .innerJoin(users, eq(users.id, projects.ownerId))
        .innerJoin(projectSortKeys, eq(projectSortKeys.projectId, projects.id))
        .where(and(...base, cursor ? afterSortCursor(order, cursor) : undefined))
        .orderBy(...orderOf(order))
        .limit(limit + 1)
        .offset(cursor ? 0 : (page - 1) * limit);
      // the whole list's total from list_counts (on the list's one row of list_versions), else a count
      const totalP = filtered
        ? reader
            .select({ n: sql<string>`count(*)` })
            .from(projects)
            .where(and(...base))
        : reader
            .select({ n: visibleTotalSql('projects', viewer, projects) })
            .from(listVersions)
            .where(eq(listVersions.entity, 'projects'));
      const [rows, [total]] = await Promise.all([rowsP, totalP]);
      // one row more than the page was read: it says whether there is a next page
      const pageRows = rows.slice(0, limit);
      const last = pageRows[pageRows.length - 1];
      const nextCursor =
        rows.length > limit && last ? encodeSortCursor(order, query.sort === 'supported' ? last.followersKey : last.p.createdAt, last.p.id) : null;
      return { items: pageRows.map((r) => toProjectDto(r as Row)), total: Number(total?.n ?? 0), page, limit, nextCursor };
    },

    /** The detail: a draft to its circle too (lib/item-store.ts `show`); follows ask `load` (never through a circle). */
    get: store.show,

    /** The visible ones among these ids (for favorites), in no particular order. */
    byIds: store.byIds,

    create: (actor: Actor, input: Out<typeof CreateProjectInput>): Promise<ProjectDto> => store.create(actor, input),

    async update(actor: Actor, id: string, input: Out<typeof UpdateProjectInput>): Promise<ProjectDto> {
      let released: () => Promise<void> = async () => {};
      await db.transaction(async (tx) => {
        const { user, before } = await ownedForUpdate(tx, actor, id);
        assertCategoryAllowed(user, input.type);
        await assertOwnImages(tx, user.id, imageUrlsOf(input), imageUrlsOf(before));
        const patch: Partial<typeof projects.$inferInsert> = { ...itemPatch(input, before.targetType), ...releasePatch(input, before) };
        const fields = changedFields(before as Record<string, unknown>, patch as Record<string, unknown>);
        if (!fields.length) return;
        await tx
          .update(projects)
          .set({ ...patch, updatedAt: new Date() })
          .where(eq(projects.id, id));
        await recordChange(tx, { modelName: 'Project', action: 'update', key: id, fields, actorId: user.id, subjectUserId: before.ownerId });
        // released now by its owner: the circle hears in this transaction (previews/notices.ts)
        if (patch.releasedAt) released = await store.released(tx, { id, title: patch.title ?? before.title });
      });
      await released();
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
