import { and, desc, eq, exists, inArray, sql, type SQL } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import type { TeamItemsDto, TeamListDto, TeamListQuery, TeamPageQuery } from '../../../shared/schemas/teams';
import { projects, teamMembers, teams, users } from '../../db/schema';
import type { Actor } from '../../deps';
import { notFound } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { canSeeItem, requireUser } from '../../lib/access';
import { afterCursor, pageOf, readCursor, searchCondition } from '../../lib/listing';
import { readerFor } from '../../db/replica';
import type { Out, TeamsContext } from './context';
import type { TeamSelectRow } from './dto';

/** The lists of teams: all teams (search, tag, project), mine, a person's and a project's. */
export function teamLists(ctx: TeamsContext) {
  const { db, deps, baseSelect, listItems, teamItems } = ctx;
  return {
    /** Teams newest first; `q` searches name, tags and description; `tag` and `projectId` narrow. */
    async list(actor: Actor, query: Out<typeof TeamListQuery>): Promise<TeamListDto> {
      const { q, page, limit, tag, projectId } = query;
      const empty = { items: [], total: 0, page, limit, nextCursor: null };
      const cursor = readCursor(query.cursor);
      // an anonymous caller's list may come from the replica (db/replica.ts)
      const reader = readerFor(deps, actor);
      const base: SQL[] = [];
      if (projectId) {
        if (!isUuid(projectId)) return empty;
        // a project the caller may not see has no teams to them, as an unknown one
        const [p] = await reader
          .select({ ownerId: projects.ownerId, type: projects.type, releasedAt: projects.releasedAt })
          .from(projects)
          .where(eq(projects.id, projectId));
        if (!p || !canSeeItem(actor, p)) return empty;
        base.push(eq(teams.projectId, projectId));
      }
      if (tag) base.push(sql`${teams.tags} @> array[${tag}]::text[]`);
      const search = searchCondition(teams.searchVector, teams.name, q);
      if (search) base.push(search);
      const where = cursor ? [...base, afterCursor(teams.createdAt, teams.id, cursor)] : base;
      const [rows, total] = await Promise.all([
        baseSelect(reader, actor.user?.id ?? null)
          .where(where.length ? and(...where) : undefined)
          .orderBy(desc(teams.createdAt), desc(teams.id))
          // one row more than the page: it says whether there is a next page
          .limit(limit + 1)
          .offset(cursor ? 0 : (page - 1) * limit) as Promise<TeamSelectRow[]>,
        reader
          .select({ n: sql<string>`count(*)` })
          .from(teams)
          .where(base.length ? and(...base) : undefined)
          .then((r) => Number(r[0]?.n ?? 0)),
      ]);
      const { page: pageRows, nextCursor } = pageOf(rows, limit, (r) => r.t);
      return { items: await listItems(actor, pageRows, reader), total, page, limit, nextCursor };
    },

    /**
     * A page of the teams I own or have a row in (invited, requested or active), newest first,
     * with my status and role. The owner always has a row (written with the team; it can neither
     * leave nor be removed), so my rows alone name my teams, and the page is read from them
     * (team_members_user_idx) rather than by walking every team.
     */
    async mine(actor: Actor, query: Out<typeof TeamPageQuery>): Promise<TeamItemsDto> {
      const { user } = requireUser(actor);
      return teamItems(actor, inArray(teams.id, db.select({ id: teamMembers.teamId }).from(teamMembers).where(eq(teamMembers.userId, user.id))), query);
    },

    /** A page of the teams in which a person is an active member (their owned teams included): the profile's Teams tab. */
    async teamsOfUser(actor: Actor, userId: string, query: Out<typeof TeamPageQuery>): Promise<TeamItemsDto> {
      if (!isUuid(userId)) throw notFound(M.userNotFound);
      const [person] = await readerFor(deps, actor).select({ id: users.id }).from(users).where(eq(users.id, userId));
      if (!person) throw notFound(M.userNotFound);
      return teamItems(
        actor,
        exists(
          db
            .select({ one: sql`1` })
            .from(teamMembers)
            .where(and(eq(teamMembers.teamId, teams.id), eq(teamMembers.userId, userId), eq(teamMembers.status, 'active'))),
        ),
        query,
      );
    },

    /** A page of the teams attached to a project, with member count and the first three members: the project page's Teams table. */
    async teamsOfProject(actor: Actor, projectId: string, query: Out<typeof TeamPageQuery>): Promise<TeamItemsDto> {
      if (!isUuid(projectId)) throw notFound(M.projectNotFound);
      const [p] = await readerFor(deps, actor)
        .select({ ownerId: projects.ownerId, type: projects.type, releasedAt: projects.releasedAt })
        .from(projects)
        .where(eq(projects.id, projectId));
      if (!p || !canSeeItem(actor, p)) throw notFound(M.projectNotFound);
      return teamItems(actor, eq(teams.projectId, projectId), query);
    },
  };
}
