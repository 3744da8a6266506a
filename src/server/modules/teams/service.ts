import { and, desc, eq, exists, getTableColumns, inArray, lte, ne, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import { TEAM_TABLE_ROLES } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { DATE_MAX, DATE_MIN } from '../../../shared/schemas/common';
import {
  TEAM_MEMBERS_PAGE_SIZE,
  TEAM_TAGS_MAX,
  type CreateTeamInput,
  type InviteMemberInput,
  type TeamDto,
  type TeamItemsDto,
  type TeamListDto,
  type TeamListQuery,
  type TeamMemberDto,
  type TeamMembersDto,
  type TeamMembersQuery,
  type TeamPageQuery,
  type TeamSuggestedQuery,
  type TeamSuggestedUsersDto,
  type UpdateMemberInput,
  type UpdateTeamInput,
} from '../../../shared/schemas/teams';
import type { DbOrTx, Tx } from '../../db/client';
import { blocks, projects, teamMembers, teams, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors';
import { changedFields, recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { assertOwnImages, canSeeAdult } from '../../lib/items';
import { afterCursor, searchCondition } from '../../lib/listing';
import { requireUser } from '../auth/service';
import { toPublicUserDto } from '../users/dto';
import { pageOf, readCursor } from '../users/paging';

type Out<T extends z.ZodType> = z.output<T>;
type TeamRow = Omit<typeof teams.$inferSelect, 'searchVector'>;
type MemberRow = typeof teamMembers.$inferSelect;
type Status = MemberRow['status'];
type Role = MemberRow['role'];

const { searchVector: _sv, ...teamColumns } = getTableColumns(teams);

/** How many suggested people GET /teams/{id}/suggested answers. */
const SUGGESTIONS = 12;

// --- reading ----------------------------------------------------------------------------

function teamSelection(viewerId: string | null) {
  const mine = (col: 'status' | 'role') =>
    viewerId
      ? sql`(select ${sql.identifier('m')}.${sql.identifier(col)}::text from team_members m where m.team_id = ${teams.id} and m.user_id = ${viewerId}::uuid)`
      : sql`null`;
  return {
    t: teamColumns,
    owner: { id: users.id, username: users.username, name: users.name, imageUrl: users.imageUrl },
    projectTitle: projects.title,
    projectType: projects.type,
    memberCount: sql<string>`(select count(*) from team_members m where m.team_id = ${teams.id} and m.status = 'active')`,
    myStatus: mine('status') as SQL<Status | null>,
    myRole: mine('role') as SQL<Role | null>,
  };
}

type TeamSelectRow = {
  t: TeamRow;
  owner: { id: string; username: string | null; name: string | null; imageUrl: string | null };
  projectTitle: string | null;
  projectType: string | null;
  memberCount: string | number;
  myStatus: Status | null;
  myRole: Role | null;
};

const memberFields = {
  userId: teamMembers.userId,
  role: teamMembers.role,
  status: teamMembers.status,
  createdAt: teamMembers.createdAt,
  updatedAt: teamMembers.updatedAt,
  username: users.username,
  name: users.name,
  imageUrl: users.imageUrl,
};
type MemberSelectRow = {
  userId: string;
  role: Role;
  status: Status;
  createdAt: Date;
  updatedAt: Date;
  username: string | null;
  name: string | null;
  imageUrl: string | null;
};

function toMemberDto(m: MemberSelectRow, ownerId: string): TeamMemberDto {
  return {
    userId: m.userId,
    username: m.username,
    name: m.name,
    imageUrl: m.imageUrl,
    avatarUrl: m.imageUrl,
    role: m.role,
    status: m.status,
    isOwner: m.userId === ownerId,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

/** A team as every call answers it; `membersNextCursor` only for a single team (lists leave it out). */
function toTeamDto(actor: Actor, r: TeamSelectRow, members: TeamMemberDto[], membersNextCursor?: string | null): TeamDto {
  // a team of an adult project shows no project to people who may not see it
  const hideProject = r.projectType === 'adult' && !canSeeAdult(actor) && actor.user?.id !== r.t.ownerId;
  return {
    _id: r.t.id,
    name: r.t.name,
    description: r.t.description,
    tags: r.t.tags,
    projectId: hideProject ? null : r.t.projectId,
    projectTitle: hideProject ? null : r.projectTitle,
    ownerId: { _id: r.owner.id, username: r.owner.username, name: r.owner.name, imageUrl: r.owner.imageUrl, avatarUrl: r.owner.imageUrl },
    imageUrl: r.t.imageUrl,
    images: r.t.imageUrl ? [{ url: r.t.imageUrl, alt: r.t.name }] : [],
    memberCount: Number(r.memberCount),
    members,
    ...(membersNextCursor === undefined ? {} : { membersNextCursor }),
    myMembership: r.myStatus && r.myRole ? { status: r.myStatus, role: r.myRole } : null,
    createdAt: r.t.createdAt,
    updatedAt: r.t.updatedAt,
  };
}

/** A Postgres text[] literal as one parameter (works the same on postgres.js and PGlite). */
function textArray(values: readonly string[]): SQL {
  return sql`${`{${values.map((t) => `"${t.replace(/["\\]/g, '\\$&')}"`).join(',')}}`}::text[]`;
}

// --- members, paged -------------------------------------------------------------------------

/**
 * Where a member row stands in a team's member order: 0 the owner, 1 active, 2 invited or
 * requested. Members are ordered by (rank, created_at, id), oldest first within a rank.
 */
function memberRank(ownerId: string): SQL<number> {
  return sql<number>`(case when ${teamMembers.userId} = ${ownerId}::uuid then 0 when ${teamMembers.status} = 'active' then 1 else 2 end)`;
}

/** A members cursor: the last row's (rank, created_at, id), opaque to clients. */
interface MemberCursor {
  r: number;
  t: string;
  id: string;
}

function encodeMemberCursor(row: { rank: number | string; createdAt: Date; rowId: string }): string {
  return Buffer.from(JSON.stringify({ r: Number(row.rank), t: row.createdAt.toISOString(), id: row.rowId })).toString('base64url');
}

/** A members cursor from a client; anything that is not one this server made is a 400 "Invalid cursor". */
function readMemberCursor(raw: string | undefined): MemberCursor | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<MemberCursor>;
    const ms = typeof v.t === 'string' ? Date.parse(v.t) : NaN;
    if ((v.r === 0 || v.r === 1 || v.r === 2) && ms >= DATE_MIN && ms <= DATE_MAX && isUuid(v.id)) {
      return { r: v.r, t: new Date(ms).toISOString(), id: v.id };
    }
  } catch {
    // fall through
  }
  throw badRequest(M.cursorInvalid);
}

export function createTeamsService(deps: Deps) {
  const { db } = deps;

  const baseSelect = (runner: DbOrTx, viewerId: string | null) =>
    runner
      .select(teamSelection(viewerId))
      .from(teams)
      .innerJoin(users, eq(users.id, teams.ownerId))
      .leftJoin(projects, eq(projects.id, teams.projectId));

  /** The first three active members of each team (owner first, then by when they were added). */
  async function firstMembers(rows: TeamSelectRow[]): Promise<Map<string, TeamMemberDto[]>> {
    const out = new Map<string, TeamMemberDto[]>(rows.map((r) => [r.t.id, []]));
    if (!rows.length) return out;
    const rn = sql<number>`row_number() over (partition by ${teamMembers.teamId} order by (${teamMembers.userId} = ${teams.ownerId}) desc, ${teamMembers.createdAt}, ${teamMembers.id})`.as('rn');
    const sq = db
      .select({ teamId: teamMembers.teamId, ownerId: teams.ownerId, ...memberFields, rn })
      .from(teamMembers)
      .innerJoin(users, eq(users.id, teamMembers.userId))
      .innerJoin(teams, eq(teams.id, teamMembers.teamId))
      .where(and(inArray(teamMembers.teamId, [...out.keys()]), eq(teamMembers.status, 'active')))
      .as('sq');
    const found = await db.select().from(sq).where(lte(sq.rn, TEAM_TABLE_ROLES)).orderBy(sq.teamId, sq.rn);
    for (const m of found) out.get(m.teamId)?.push(toMemberDto(m, m.ownerId));
    return out;
  }

  async function listItems(actor: Actor, rows: TeamSelectRow[]): Promise<TeamDto[]> {
    const members = await firstMembers(rows);
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
    const after = cursor ? sql`(${rank}, ${teamMembers.createdAt}, ${teamMembers.id}) > (${cursor.r}::int, ${cursor.t}::timestamptz, ${cursor.id}::uuid)` : undefined;
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

  /** A page of my teams, a person's teams or a project's teams: the teams matching `where`, newest first, with their total. */
  async function teamItems(actor: Actor, where: SQL, query: Out<typeof TeamPageQuery>): Promise<TeamItemsDto> {
    const cursor = readCursor(query.cursor);
    const { limit } = query;
    const [rows, total] = await Promise.all([
      baseSelect(db, actor.user?.id ?? null)
        .where(cursor ? and(where, afterCursor(teams.createdAt, teams.id, cursor)) : where)
        .orderBy(desc(teams.createdAt), desc(teams.id))
        // one row more than the page: it says whether there is a next page
        .limit(limit + 1) as Promise<TeamSelectRow[]>,
      db
        .select({ n: sql<string>`count(*)` })
        .from(teams)
        .where(where)
        .then((r) => Number(r[0]?.n ?? 0)),
    ]);
    const { page, nextCursor } = pageOf(rows, limit, (r) => r.t);
    return { items: await listItems(actor, page), total, nextCursor };
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
    if (team.ownerId !== user.id) throw forbidden(M.teamOwnerOnly);
    return { user, team };
  }

  async function rowOf(runner: DbOrTx, teamId: string, userId: string): Promise<MemberRow | undefined> {
    const [m] = await runner
      .select()
      .from(teamMembers)
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)));
    return m;
  }

  /** Whether `a` blocked any of `others` or any of them blocked `a`. */
  async function blockedEitherWay(runner: DbOrTx, a: string, others: string[]): Promise<boolean> {
    const [hit] = await runner
      .select({ id: blocks.id })
      .from(blocks)
      .where(
        or(
          and(eq(blocks.blockerId, a), inArray(blocks.blockedId, others)),
          and(inArray(blocks.blockerId, others), eq(blocks.blockedId, a)),
        ),
      )
      .limit(1);
    return Boolean(hit);
  }

  /** Teams attach only to projects their owner owns (read with a share lock so it cannot vanish meanwhile). */
  async function assertOwnProject(tx: Tx, user: { id: string; hasAdultAccess: boolean }, projectId: string): Promise<void> {
    if (!isUuid(projectId)) throw notFound(M.projectNotFound);
    const [p] = await tx
      .select({ ownerId: projects.ownerId, type: projects.type })
      .from(projects)
      .where(eq(projects.id, projectId))
      .for('share');
    if (!p || (p.type === 'adult' && !user.hasAdultAccess && p.ownerId !== user.id)) throw notFound(M.projectNotFound);
    if (p.ownerId !== user.id) throw forbidden(M.teamProjectNotOwned);
  }

  async function findPerson(tx: Tx, input: Out<typeof InviteMemberInput>) {
    const cols = { id: users.id };
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

  async function recordMember(
    tx: Tx,
    action: 'create' | 'update' | 'delete',
    row: { id: string; userId: string },
    fields: string[],
    actorId: string,
  ) {
    await recordChange(tx, { modelName: 'TeamMember', action, key: row.id, fields, actorId, subjectUserId: row.userId });
  }

  async function setTags(actor: Actor, id: string, change: (tags: string[]) => string[]): Promise<{ tags: string[] }> {
    return db.transaction(async (tx) => {
      const { user, team } = await ownedTeamForUpdate(tx, actor, id);
      const tags = change(team.tags);
      if (tags.length > TEAM_TAGS_MAX) throw badRequest(M.tooManyTags);
      if (changedFields({ tags: team.tags }, { tags }).length) {
        await tx.update(teams).set({ tags, updatedAt: new Date() }).where(eq(teams.id, team.id));
        await recordChange(tx, { modelName: 'Team', action: 'update', key: team.id, fields: ['tags'], actorId: user.id, subjectUserId: team.ownerId });
      }
      return { tags };
    });
  }

  return {
    /** Teams newest first; `q` searches name, tags and description; `tag` and `projectId` narrow. */
    async list(actor: Actor, query: Out<typeof TeamListQuery>): Promise<TeamListDto> {
      const { q, page, limit, tag, projectId } = query;
      const empty = { items: [], total: 0, page, limit, nextCursor: null };
      const cursor = readCursor(query.cursor);
      const base: SQL[] = [];
      if (projectId) {
        if (!isUuid(projectId)) return empty;
        base.push(eq(teams.projectId, projectId));
      }
      if (tag) base.push(sql`${teams.tags} @> array[${tag}]::text[]`);
      const search = searchCondition(teams.searchVector, teams.name, q);
      if (search) base.push(search);
      const where = cursor ? [...base, afterCursor(teams.createdAt, teams.id, cursor)] : base;
      const [rows, total] = await Promise.all([
        baseSelect(db, actor.user?.id ?? null)
          .where(where.length ? and(...where) : undefined)
          .orderBy(desc(teams.createdAt), desc(teams.id))
          // one row more than the page: it says whether there is a next page
          .limit(limit + 1)
          .offset(cursor ? 0 : (page - 1) * limit) as Promise<TeamSelectRow[]>,
        db
          .select({ n: sql<string>`count(*)` })
          .from(teams)
          .where(base.length ? and(...base) : undefined)
          .then((r) => Number(r[0]?.n ?? 0)),
      ]);
      const { page: pageRows, nextCursor } = pageOf(rows, limit, (r) => r.t);
      return { items: await listItems(actor, pageRows), total, page, limit, nextCursor };
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
      const [person] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId));
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
      const [p] = await db.select({ ownerId: projects.ownerId, type: projects.type }).from(projects).where(eq(projects.id, projectId));
      if (!p || (p.type === 'adult' && !canSeeAdult(actor) && actor.user?.id !== p.ownerId)) throw notFound(M.projectNotFound);
      return teamItems(actor, eq(teams.projectId, projectId), query);
    },

    get: (actor: Actor, id: string) => load(actor, id),

    /** A page of the members the viewer may see (order and visibility as `get`). */
    async members(actor: Actor, id: string, query: Out<typeof TeamMembersQuery>): Promise<TeamMembersDto> {
      if (!isUuid(id)) throw notFound(M.teamNotFound);
      const cursor = readMemberCursor(query.cursor);
      const viewerId = actor.user?.id ?? null;
      const [team] = await db.select({ id: teams.id, ownerId: teams.ownerId }).from(teams).where(eq(teams.id, id));
      if (!team) throw notFound(M.teamNotFound);
      const mine = viewerId && viewerId !== team.ownerId ? await rowOf(db, team.id, viewerId) : undefined;
      const seesAll = seesAllMembers(viewerId, team.ownerId, mine?.status ?? null, mine?.role ?? null);
      return memberPage(db, team, { id: viewerId, seesAll }, query.limit, cursor);
    },

    /** Creates a team; its owner gets an active manager row in the same transaction. */
    async create(actor: Actor, input: Out<typeof CreateTeamInput>): Promise<TeamDto> {
      const { user } = requireUser(actor);
      await deps.limiter.write('team', actor);
      const id = await db.transaction(async (tx) => {
        if (input.projectId) await assertOwnProject(tx, user, input.projectId);
        const [team] = await tx
          .insert(teams)
          .values({ ownerId: user.id, name: input.name, description: input.description, tags: input.tags, projectId: input.projectId })
          .returning({ id: teams.id });
        const [own] = await tx
          .insert(teamMembers)
          .values({ teamId: team.id, userId: user.id, role: 'manager', status: 'active' })
          .returning({ id: teamMembers.id, userId: teamMembers.userId });
        await recordChange(tx, {
          modelName: 'Team',
          action: 'create',
          key: team.id,
          fields: ['name', 'description', 'tags', ...(input.projectId ? ['projectId'] : [])],
          actorId: user.id,
        });
        await recordMember(tx, 'create', own, ['teamId', 'userId', 'role', 'status'], user.id);
        return team.id;
      });
      return load(actor, id);
    },

    /** The owner edits name, description, tags, project link (own projects only; null detaches) and cover. */
    async update(actor: Actor, id: string, input: Out<typeof UpdateTeamInput>): Promise<TeamDto> {
      await db.transaction(async (tx) => {
        const { user, team } = await ownedTeamForUpdate(tx, actor, id);
        if (input.projectId && input.projectId !== team.projectId) await assertOwnProject(tx, user, input.projectId);
        if (input.imageUrl) await assertOwnImages(tx, user.id, [input.imageUrl], team.imageUrl ? [team.imageUrl] : []);
        const patch: Partial<typeof teams.$inferInsert> = {
          name: input.name,
          description: input.description,
          tags: input.tags,
          projectId: input.projectId,
          imageUrl: input.imageUrl,
        };
        const fields = changedFields(team as Record<string, unknown>, patch as Record<string, unknown>);
        if (!fields.length) return;
        await tx.update(teams).set({ ...patch, updatedAt: new Date() }).where(eq(teams.id, team.id));
        await recordChange(tx, { modelName: 'Team', action: 'update', key: team.id, fields, actorId: user.id, subjectUserId: team.ownerId });
      });
      return load(actor, id);
    },

    /** The owner deletes a team; its memberships go with it. */
    async remove(actor: Actor, id: string): Promise<void> {
      await db.transaction(async (tx) => {
        const { user, team } = await ownedTeamForUpdate(tx, actor, id);
        await tx.delete(teams).where(eq(teams.id, team.id));
        await recordChange(tx, { modelName: 'Team', action: 'delete', key: team.id, actorId: user.id, subjectUserId: team.ownerId });
      });
    },

    /**
     * The owner or an active manager invites a person (named by userId, email or username).
     * A person who asked to join becomes active; an invited or active one is a 409. Only the
     * owner adds someone directly as active or as a manager. Nobody blocked either way with
     * the inviter or the owner can be invited.
     */
    async invite(actor: Actor, id: string, input: Out<typeof InviteMemberInput>): Promise<TeamMemberDto> {
      const { user } = requireUser(actor);
      await deps.limiter.write('invite', actor);
      return db.transaction(async (tx) => {
        const team = await lockTeam(tx, id);
        if (team.ownerId !== user.id) {
          const mine = await rowOf(tx, team.id, user.id);
          if (mine?.status !== 'active' || mine.role !== 'manager') throw forbidden(M.teamInviteNotAllowed);
          if (input.status === 'active') throw forbidden(M.teamOnlyOwnerAddsActive);
          if (input.role === 'manager') throw forbidden(M.teamOnlyOwnerMakesManager);
        }
        const person = await findPerson(tx, input);
        if (await blockedEitherWay(tx, person.id, [...new Set([user.id, team.ownerId])])) throw forbidden(M.teamInviteBlocked);
        const existing = await rowOf(tx, team.id, person.id);
        if (existing?.status === 'active') throw conflict(M.teamAlreadyMember);
        if (existing?.status === 'invited') throw conflict(M.teamAlreadyInvited);
        if (existing) {
          // they asked to join and are now invited: both sides agree
          await tx.update(teamMembers).set({ status: 'active', role: input.role, updatedAt: new Date() }).where(eq(teamMembers.id, existing.id));
          await recordMember(tx, 'update', existing, ['status', ...(input.role !== existing.role ? ['role'] : [])], user.id);
        } else {
          const [row] = await tx
            .insert(teamMembers)
            .values({ teamId: team.id, userId: person.id, role: input.role, status: input.status })
            .returning({ id: teamMembers.id, userId: teamMembers.userId });
          await recordMember(tx, 'create', row, ['teamId', 'userId', 'role', 'status'], user.id);
        }
        return memberDto(tx, team.id, team.ownerId, person.id);
      });
    },

    /** The owner accepts a request (requested -> active) and/or sets the role; the owner's own row is fixed. */
    async updateMember(actor: Actor, id: string, memberUserId: string, input: Out<typeof UpdateMemberInput>): Promise<TeamMemberDto> {
      return db.transaction(async (tx) => {
        const { user, team } = await ownedTeamForUpdate(tx, actor, id);
        if (!isUuid(memberUserId)) throw notFound(M.teamMemberNotFound);
        if (memberUserId === team.ownerId) throw forbidden(M.teamOwnerRowFixed);
        const existing = await rowOf(tx, team.id, memberUserId);
        if (!existing) throw notFound(M.teamMemberNotFound);
        const patch: { status?: Status; role?: Role } = {};
        if (input.status === 'active' && existing.status !== 'active') {
          if (existing.status === 'invited') throw conflict(M.teamMemberNotRequested);
          patch.status = 'active';
        }
        if (input.role && input.role !== existing.role) patch.role = input.role;
        const fields = Object.keys(patch);
        if (fields.length) {
          await tx.update(teamMembers).set({ ...patch, updatedAt: new Date() }).where(eq(teamMembers.id, existing.id));
          await recordMember(tx, 'update', existing, fields, user.id);
        }
        return memberDto(tx, team.id, team.ownerId, memberUserId);
      });
    },

    /** The owner removes any non-owner row: a member, an invite (withdrawn) or a request (declined). */
    async removeMember(actor: Actor, id: string, memberUserId: string): Promise<void> {
      await db.transaction(async (tx) => {
        const { user, team } = await ownedTeamForUpdate(tx, actor, id);
        if (!isUuid(memberUserId)) throw notFound(M.teamMemberNotFound);
        if (memberUserId === team.ownerId) throw forbidden(M.teamOwnerCannotBeRemoved);
        const existing = await rowOf(tx, team.id, memberUserId);
        if (!existing) throw notFound(M.teamMemberNotFound);
        await tx.delete(teamMembers).where(eq(teamMembers.id, existing.id));
        await recordMember(tx, 'delete', existing, [], user.id);
      });
    },

    /**
     * A person asks to join: requested. Someone already invited becomes active (both sides
     * agree). Nobody blocked either way with the owner may ask.
     */
    async request(actor: Actor, id: string): Promise<TeamMemberDto> {
      const { user } = requireUser(actor);
      return db.transaction(async (tx) => {
        const team = await lockTeam(tx, id);
        if (team.ownerId === user.id) throw conflict(M.teamYouAreMember);
        if (await blockedEitherWay(tx, user.id, [team.ownerId])) throw forbidden(M.teamJoinBlocked);
        const existing = await rowOf(tx, team.id, user.id);
        if (existing?.status === 'active') throw conflict(M.teamYouAreMember);
        if (existing?.status === 'requested') throw conflict(M.teamAlreadyRequested);
        if (existing) {
          await tx.update(teamMembers).set({ status: 'active', updatedAt: new Date() }).where(eq(teamMembers.id, existing.id));
          await recordMember(tx, 'update', existing, ['status'], user.id);
        } else {
          const [row] = await tx
            .insert(teamMembers)
            .values({ teamId: team.id, userId: user.id, role: 'member', status: 'requested' })
            .returning({ id: teamMembers.id, userId: teamMembers.userId });
          await recordMember(tx, 'create', row, ['teamId', 'userId', 'role', 'status'], user.id);
        }
        return memberDto(tx, team.id, team.ownerId, user.id);
      });
    },

    /** The invited person accepts: active. No invite (never made, or withdrawn) is a 404; a pending request of one's own, a 409. */
    async accept(actor: Actor, id: string): Promise<TeamMemberDto> {
      const { user } = requireUser(actor);
      return db.transaction(async (tx) => {
        const team = await lockTeam(tx, id);
        const existing = await rowOf(tx, team.id, user.id);
        if (existing?.status === 'active') throw conflict(M.teamYouAreMember);
        // asked to join, not invited: the owner accepts that one
        if (existing?.status === 'requested') throw conflict(M.teamAlreadyRequested);
        if (existing?.status !== 'invited') throw notFound(M.teamNoInvite);
        if (await blockedEitherWay(tx, user.id, [team.ownerId])) throw forbidden(M.teamJoinBlocked);
        await tx.update(teamMembers).set({ status: 'active', updatedAt: new Date() }).where(eq(teamMembers.id, existing.id));
        await recordMember(tx, 'update', existing, ['status'], user.id);
        return memberDto(tx, team.id, team.ownerId, user.id);
      });
    },

    /**
     * Removes the caller's own row: an active member leaves, an invited person declines, a
     * requester withdraws. The owner cannot leave.
     */
    async leave(actor: Actor, id: string): Promise<void> {
      const { user } = requireUser(actor);
      await db.transaction(async (tx) => {
        const team = await lockTeam(tx, id);
        if (team.ownerId === user.id) throw forbidden(M.teamOwnerCannotLeave);
        const existing = await rowOf(tx, team.id, user.id);
        if (!existing) throw notFound(M.teamNotMember);
        await tx.delete(teamMembers).where(eq(teamMembers.id, existing.id));
        await recordMember(tx, 'delete', existing, [], user.id);
      });
    },

    /** The owner adds a looking-for tag (already normalised by the schema); adding twice is fine. */
    addTag: (actor: Actor, id: string, tag: string) => setTags(actor, id, (tags) => (tags.includes(tag) ? tags : [...tags, tag])),

    /** The owner removes a tag; removing one that is not there is fine. */
    removeTag: (actor: Actor, id: string, tag: string) => setTags(actor, id, (tags) => tags.filter((t) => t !== tag)),

    /**
     * People whose tags overlap the team's looking-for tags (or, when it has none, the given or
     * attached project's tags), most shared first; never anyone with a row in the team, the
     * owner, or anyone blocked either way with the owner or the caller. Owner and managers only.
     */
    async suggested(actor: Actor, id: string, query: Out<typeof TeamSuggestedQuery>): Promise<TeamSuggestedUsersDto> {
      const { user } = requireUser(actor);
      if (!isUuid(id)) throw notFound(M.teamNotFound);
      const [team] = await db.select(teamColumns).from(teams).where(eq(teams.id, id));
      if (!team) throw notFound(M.teamNotFound);
      if (team.ownerId !== user.id) {
        const mine = await rowOf(db, team.id, user.id);
        if (mine?.status !== 'active' || mine.role !== 'manager') throw forbidden(M.teamSuggestNotAllowed);
      }
      let tags = team.tags;
      const projectId = query.projectId ?? team.projectId;
      if (query.projectId || (!tags.length && projectId)) {
        if (!isUuid(projectId)) throw notFound(M.projectNotFound);
        const [p] = await db.select({ ownerId: projects.ownerId, type: projects.type, tags: projects.tags }).from(projects).where(eq(projects.id, projectId));
        if (!p || (p.type === 'adult' && !canSeeAdult(actor) && p.ownerId !== user.id)) throw notFound(M.projectNotFound);
        if (!tags.length) tags = p.tags;
      }
      if (!tags.length) return { items: [] };
      const wanted = textArray(tags);
      const shared = sql<string[]>`array(select t from unnest(${users.tags}) t where t = any(${wanted}) order by t)`;
      const people = [...new Set([team.ownerId, user.id])];
      const peopleArr = textArray(people);
      const rows = await db
        .select({
          u: { id: users.id, username: users.username, name: users.name, tags: users.tags, imageUrl: users.imageUrl, createdAt: users.createdAt },
          shared,
        })
        .from(users)
        .where(
          and(
            sql`${users.tags} && ${wanted}`,
            ne(users.id, team.ownerId),
            sql`not exists (select 1 from team_members m where m.team_id = ${team.id}::uuid and m.user_id = ${users.id})`,
            sql`not exists (select 1 from blocks b where (b.blocker_id = ${users.id} and b.blocked_id = any(${peopleArr}::uuid[])) or (b.blocked_id = ${users.id} and b.blocker_id = any(${peopleArr}::uuid[])))`,
          ),
        )
        .orderBy(sql`cardinality(${shared}) desc`, users.createdAt, users.id)
        .limit(SUGGESTIONS);
      return { items: rows.map((r) => ({ ...toPublicUserDto(r.u), sharedTags: r.shared })) };
    },
  };
}

export type TeamsService = ReturnType<typeof createTeamsService>;
