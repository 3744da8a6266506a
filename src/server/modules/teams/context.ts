import { and, desc, eq, inArray, lte, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import { TEAM_TABLE_ROLES } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import {
  TEAM_MEMBERS_PAGE_SIZE,
  type InviteMemberInput,
  type TeamDto,
  type TeamItemsDto,
  type TeamMemberDto,
  type TeamMembersDto,
  type TeamPageQuery,
} from '../../../shared/schemas/teams';
import type { DbOrTx, Tx } from '../../db/client';
import { readerFor } from '../../db/replica';
import { projects, teamMembers, teams, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { forbidden, notFound } from '../../lib/errors';
import { recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { afterCursor, pageOf, readCursor } from '../../lib/listing';
import { canSeeItem, isOwner, requireUser } from '../../lib/access';
import {
  encodeMemberCursor,
  memberFields,
  memberRank,
  teamColumns,
  teamSelection,
  toMemberDto,
  toTeamDto,
  type MemberCursor,
  type MemberRow,
  type Role,
  type Status,
  type TeamRow,
  type TeamSelectRow,
} from './dto';

export type Out<T extends z.ZodType> = z.output<T>;

/**
 * What the team operations share: reading teams and member pages, and the rules every write
 * follows (the team row locked, the owner's checks, the history lines). Each operation is a
 * file of its own (create, update, invite, members, join, tags, suggested, list, get).
 */
export function createTeamsContext(deps: Deps) {
  const { db } = deps;

  const baseSelect = (runner: DbOrTx, viewerId: string | null) =>
    runner.select(teamSelection(viewerId)).from(teams).innerJoin(users, eq(users.id, teams.ownerId)).leftJoin(projects, eq(projects.id, teams.projectId));

  /** The first three active members of each team (owner first, then by when they were added). */
  async function firstMembers(runner: DbOrTx, rows: TeamSelectRow[]): Promise<Map<string, TeamMemberDto[]>> {
    const out = new Map<string, TeamMemberDto[]>(rows.map((r) => [r.t.id, []]));
    if (!rows.length) return out;
    const rn =
      sql<number>`row_number() over (partition by ${teamMembers.teamId} order by (${teamMembers.userId} = ${teams.ownerId}) desc, ${teamMembers.createdAt}, ${teamMembers.id})`.as(
        'rn',
      );
    const sq = runner
      .select({ teamId: teamMembers.teamId, ownerId: teams.ownerId, ...memberFields, rn })
      .from(teamMembers)
      .innerJoin(users, eq(users.id, teamMembers.userId))
      .innerJoin(teams, eq(teams.id, teamMembers.teamId))
      .where(and(inArray(teamMembers.teamId, [...out.keys()]), eq(teamMembers.status, 'active')))
      .as('sq');
    const found = await runner.select().from(sq).where(lte(sq.rn, TEAM_TABLE_ROLES)).orderBy(sq.teamId, sq.rn);
    for (const m of found) out.get(m.teamId)?.push(toMemberDto(m, m.ownerId));
    return out;
  }

  /** The teams' answers with their first members, read where their rows were (`runner`). */
  async function listItems(actor: Actor, rows: TeamSelectRow[], runner: DbOrTx = db): Promise<TeamDto[]> {
    const members = await firstMembers(runner, rows);
    return rows.map((r) => toTeamDto(actor, r, members.get(r.t.id) ?? []));
  }

  /**
   * A page of the members the viewer may see, in member order (owner, active, then invited and
   * requested; oldest first within each) from the cursor on: everyone sees active members and
   * their own row; the owner and active managers see every row. Reads limit + 1 rows.
   */
  async function memberPage(
    runner: DbOrTx,
    team: { id: string; ownerId: string },
    viewer: { id: string | null; seesAll: boolean },
    limit: number,
    cursor: MemberCursor | null,
  ): Promise<TeamMembersDto> {
    const rank = memberRank(team.ownerId);
    const visible = viewer.seesAll
      ? undefined
      : viewer.id
        ? or(eq(teamMembers.status, 'active'), eq(teamMembers.userId, viewer.id))
        : eq(teamMembers.status, 'active');
    const after = cursor
      ? sql`(${rank}, ${teamMembers.createdAt}, ${teamMembers.id}) > (${cursor.r}::int, ${cursor.t}::timestamptz, ${cursor.id}::uuid)`
      : undefined;
    const rows = await runner
      .select({ ...memberFields, rowId: teamMembers.id, rank })
      .from(teamMembers)
      .innerJoin(users, eq(users.id, teamMembers.userId))
      .where(and(eq(teamMembers.teamId, team.id), visible, after))
      .orderBy(rank, teamMembers.createdAt, teamMembers.id)
      // one row more than the page: it says whether there is a next page
      .limit(limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map((m) => toMemberDto(m, team.ownerId)),
      nextCursor: rows.length > limit && last ? encodeMemberCursor(last) : null,
    };
  }

  /** The owner and active managers see every member row; everyone else active rows and their own. */
  const seesAllMembers = (viewerId: string | null, ownerId: string, myStatus: Status | null, myRole: Role | null) =>
    viewerId !== null && (viewerId === ownerId || (myStatus === 'active' && myRole === 'manager'));

  /**
   * One team with the first TEAM_MEMBERS_PAGE_SIZE members the viewer may see (see memberPage)
   * and the cursor for the rest.
   */
  async function load(actor: Actor, id: string, runner: DbOrTx = db): Promise<TeamDto> {
    if (!isUuid(id)) throw notFound(M.teamNotFound);
    const viewerId = actor.user?.id ?? null;
    const [row] = (await baseSelect(runner, viewerId).where(eq(teams.id, id)).limit(1)) as TeamSelectRow[];
    if (!row) throw notFound(M.teamNotFound);
    const seesAll = seesAllMembers(viewerId, row.t.ownerId, row.myStatus, row.myRole);
    const members = await memberPage(runner, row.t, { id: viewerId, seesAll }, TEAM_MEMBERS_PAGE_SIZE, null);
    return toTeamDto(actor, row, members.items, members.nextCursor);
  }

  /**
   * A page of my teams, a person's teams or a project's teams: the teams matching `where`, newest
   * first, with their total. An anonymous caller's page may come from the replica (db/replica.ts).
   */
  async function teamItems(actor: Actor, where: SQL, query: Out<typeof TeamPageQuery>): Promise<TeamItemsDto> {
    const cursor = readCursor(query.cursor);
    const { limit } = query;
    const reader = readerFor(deps, actor);
    const [rows, total] = await Promise.all([
      baseSelect(reader, actor.user?.id ?? null)
        .where(cursor ? and(where, afterCursor(teams.createdAt, teams.id, cursor)) : where)
        .orderBy(desc(teams.createdAt), desc(teams.id))
        // one row more than the page: it says whether there is a next page
        .limit(limit + 1) as Promise<TeamSelectRow[]>,
      reader
        .select({ n: sql<string>`count(*)` })
        .from(teams)
        .where(where)
        .then((r) => Number(r[0]?.n ?? 0)),
    ]);
    const { page, nextCursor } = pageOf(rows, limit, (r) => r.t);
    return { items: await listItems(actor, page, reader), total, nextCursor };
  }

  async function memberDto(runner: DbOrTx, teamId: string, ownerId: string, userId: string): Promise<TeamMemberDto> {
    const [m] = await runner
      .select(memberFields)
      .from(teamMembers)
      .innerJoin(users, eq(users.id, teamMembers.userId))
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)));
    if (!m) throw notFound(M.teamMemberNotFound);
    return toMemberDto(m, ownerId);
  }

  // --- rules shared by the writes --------------------------------------------------------

  /**
   * The team row, locked for this transaction: every membership change of one team runs after
   * the one before it, so two requests can neither make two rows nor skip a state.
   */
  async function lockTeam(tx: Tx, id: string): Promise<TeamRow> {
    if (!isUuid(id)) throw notFound(M.teamNotFound);
    const [team] = await tx.select(teamColumns).from(teams).where(eq(teams.id, id)).for('update');
    if (!team) throw notFound(M.teamNotFound);
    return team;
  }

  async function ownedTeamForUpdate(tx: Tx, actor: Actor, id: string) {
    const { user } = requireUser(actor);
    const team = await lockTeam(tx, id);
    if (!isOwner(user, team.ownerId)) throw forbidden(M.teamOwnerOnly);
    return { user, team };
  }

  async function rowOf(runner: DbOrTx, teamId: string, userId: string): Promise<MemberRow | undefined> {
    const [m] = await runner
      .select()
      .from(teamMembers)
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)));
    return m;
  }

  /** Teams attach only to projects their owner owns (read with a share lock so it cannot vanish meanwhile). */
  async function assertOwnProject(tx: Tx, actor: Actor, projectId: string): Promise<void> {
    if (!isUuid(projectId)) throw notFound(M.projectNotFound);
    const [p] = await tx
      .select({ ownerId: projects.ownerId, type: projects.type, releasedAt: projects.releasedAt })
      .from(projects)
      .where(eq(projects.id, projectId))
      .for('share');
    if (!p || !canSeeItem(actor, p)) throw notFound(M.projectNotFound);
    if (!isOwner(actor.user, p.ownerId)) throw forbidden(M.teamProjectNotOwned);
  }

  async function findPerson(tx: Tx, input: Out<typeof InviteMemberInput>) {
    const cols = { id: users.id, email: users.email };
    let where: SQL | undefined;
    if (input.userId) {
      if (!isUuid(input.userId)) throw notFound(M.teamInviteeNotFound);
      where = eq(users.id, input.userId);
    } else if (input.email) where = eq(users.email, input.email);
    else if (input.username?.includes('@')) where = eq(users.email, input.username);
    else where = eq(users.username, input.username ?? '');
    const [person] = await tx.select(cols).from(users).where(where).limit(1);
    if (!person) throw notFound(M.teamInviteeNotFound);
    return person;
  }

  async function recordMember(tx: Tx, action: 'create' | 'update' | 'delete', row: { id: string; userId: string }, fields: string[], actorId: string) {
    await recordChange(tx, { modelName: 'TeamMember', action, key: row.id, fields, actorId, subjectUserId: row.userId });
  }

  return {
    deps,
    db,
    baseSelect,
    listItems,
    memberPage,
    seesAllMembers,
    load,
    teamItems,
    memberDto,
    lockTeam,
    ownedTeamForUpdate,
    rowOf,
    assertOwnProject,
    findPerson,
    recordMember,
  };
}

export type TeamsContext = ReturnType<typeof createTeamsContext>;
