import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import type { TeamDto } from '../../../shared/schemas/teams';
import { projects, teamMembers, teams } from '../../db/schema';
import { buildTestApp, call, openTestDatabase, signUp, trpc, type Client } from '../../../../test/helpers';
import { checkCap, checkPaging, groupedTimes, insertPeople, newestFirst, restPages, trpcPages, walk, type FetchPage } from '../users/paging-checks';

/**
 * Every list of teams and of members is a keyset page: my teams, a person's teams, a project's
 * teams and a team's members, through both doors. The rows are inserted straight into the tables
 * (they are not the subject); the calls are the app's.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
type Person = Awaited<ReturnType<typeof signUp>>;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

/** pager is an active member of 45 teams of boss's project; capper owns 105 teams of a project of theirs. */
let pager: Person;
let capper: Person;
let stranger: Person;
let projectId: string;
let capProjectId: string;
let expectedTeams: string[];
let expectedCapTeams: string[];

/** Team M: its owner, 30 active members, 13 invited or requested people and the invitee (45 rows). */
let mOwner: Person;
let invitee: Person;
let teamM: string;
let membersAll: string[];
let membersActive: string[];
/** Team C (capper's newest): capper and 104 active members. */
let teamC: string;
let membersC: string[];

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  const { db } = database;
  [pager, capper, stranger, mOwner, invitee] = await Promise.all(
    ['t_pager', 't_capper', 't_stranger', 't_mowner', 't_invitee'].map((username) => signUp(app, { username })),
  );
  const people = await insertPeople(db, 150, 'tp');
  const boss = people[149];

  // teams: 45 of boss's project with pager active in each; 105 of capper's project
  const [p] = await db.insert(projects).values({ ownerId: boss, title: 'Paged project' }).returning();
  const [q] = await db.insert(projects).values({ ownerId: capper.userId, title: 'Capped project' }).returning();
  projectId = p.id;
  capProjectId = q.id;
  const times = groupedTimes(105);
  const made = await db
    .insert(teams)
    .values(Array.from({ length: 45 }, (_, i) => ({ ownerId: boss, name: `Paged team ${i}`, projectId: p.id, createdAt: times[i] })))
    .returning();
  await db.insert(teamMembers).values(
    made.flatMap((t) => [
      { teamId: t.id, userId: boss, role: 'manager' as const, status: 'active' as const },
      { teamId: t.id, userId: pager.userId, status: 'active' as const },
    ]),
  );
  expectedTeams = newestFirst(made).map((t) => t.id);
  const capped = await db
    .insert(teams)
    .values(Array.from({ length: 105 }, (_, i) => ({ ownerId: capper.userId, name: `Capped team ${i}`, projectId: q.id, createdAt: times[i] })))
    .returning();
  await db.insert(teamMembers).values(capped.map((t) => ({ teamId: t.id, userId: capper.userId, role: 'manager' as const, status: 'active' as const })));
  expectedCapTeams = newestFirst(capped).map((t) => t.id);

  // team M's members, their rows sharing times in groups
  const [m] = await db.insert(teams).values({ ownerId: mOwner.userId, name: 'Team M' }).returning();
  teamM = m.id;
  const mTimes = groupedTimes(45).reverse(); // oldest first
  const rowsM = await db
    .insert(teamMembers)
    .values([
      { teamId: m.id, userId: mOwner.userId, role: 'manager' as const, status: 'active' as const, createdAt: mTimes[20] },
      ...people.slice(0, 30).map((userId, i) => ({ teamId: m.id, userId, status: 'active' as const, createdAt: mTimes[(i * 7) % 44] })),
      ...people
        .slice(30, 43)
        .map((userId, i) => ({ teamId: m.id, userId, status: i % 2 ? ('invited' as const) : ('requested' as const), createdAt: mTimes[(i * 3) % 44] })),
      { teamId: m.id, userId: invitee.userId, status: 'invited' as const, createdAt: mTimes[44] },
    ])
    .returning();
  // member order: the owner, then active, then the rest; oldest first within each (then by row id)
  const rank = (r: (typeof rowsM)[number]) => (r.userId === mOwner.userId ? 0 : r.status === 'active' ? 1 : 2);
  const ordered = [...rowsM].sort((a, b) => rank(a) - rank(b) || a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  membersAll = ordered.map((r) => r.userId);
  membersActive = ordered.filter((r) => rank(r) < 2).map((r) => r.userId);

  teamC = expectedCapTeams[0];
  const cTimes = groupedTimes(104).reverse();
  const rowsC = await db
    .insert(teamMembers)
    .values(people.slice(0, 104).map((userId, i) => ({ teamId: teamC, userId, status: 'active' as const, createdAt: cTimes[i] })))
    .returning();
  const sortedC = [...rowsC].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  membersC = [capper.userId, ...sortedC.map((r) => r.userId)];
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const teamIds = (body: { items: { _id: string }[] }) => body.items.map((t) => t._id);
const memberIds = (body: { items: { userId: string }[] }) => body.items.map((m) => m.userId);

const lists = {
  mine: (who: Client | null) => ({ rest: restPages(app, who, '/api/teams/mine', teamIds), trpc: trpcPages(app, who, 'teams.mine', {}, teamIds) }),
  ofUser: (who: Client | null, userId: string) => ({
    rest: restPages(app, who, `/api/public/users/${userId}/teams`, teamIds),
    trpc: trpcPages(app, who, 'teams.ofUser', { userId }, teamIds),
  }),
  /** The app's call is teams.ofProject; REST clients read the team list filtered by project. */
  ofProject: (who: Client | null, id: string) => ({
    rest: restPages(app, who, `/api/teams?projectId=${id}`, teamIds),
    trpc: trpcPages(app, who, 'teams.ofProject', { projectId: id }, teamIds),
  }),
  members: (who: Client | null, id: string) => ({
    rest: restPages(app, who, `/api/teams/${id}/members`, memberIds),
    trpc: trpcPages(app, who, 'teams.members', { id }, memberIds),
  }),
};

describe.each(['rest', 'trpc'] as const)('team lists, paged, through the %s door', (door) => {
  it('my teams: pages of 20 newest first with the total on each page; a limit above 100 is 100; signed out is 401', async () => {
    await checkPaging(lists.mine(pager)[door], expectedTeams, 20);
    await checkCap(lists.mine(capper)[door], expectedCapTeams);
    const first =
      door === 'rest'
        ? (await call(app, pager, { method: 'GET', url: '/api/teams/mine?limit=20' })).json()
        : (await trpc(app, pager, 'query', 'teams.mine', { limit: 20 })).data;
    expect(first).toMatchObject({ total: 45, nextCursor: expect.any(String) });
    expect(Object.keys(first).sort()).toEqual(['items', 'nextCursor', 'total']);
    // a list's team carries the first three active members and no members cursor
    expect(first.items[0].members.map((m: { userId: string }) => m.userId)).toContain(pager.userId);
    expect(first.items[0]).not.toHaveProperty('membersNextCursor');
    const second =
      door === 'rest'
        ? (await call(app, pager, { method: 'GET', url: `/api/teams/mine?limit=20&cursor=${first.nextCursor}` })).json()
        : (await trpc(app, pager, 'query', 'teams.mine', { limit: 20, cursor: first.nextCursor })).data;
    expect(second.total).toBe(45);
    // someone else's list with pager's cursor is still their own (empty)
    const theirs = await lists.mine(stranger)[door]({ cursor: first.nextCursor });
    expect(theirs).toMatchObject({ status: 200, ids: [], nextCursor: null });
    expect((await lists.mine(null)[door]({})).status).toBe(401);
    expect((await lists.mine(null)[door]({ cursor: first.nextCursor })).status).toBe(401);
  });

  it("a person's teams: pages of 20, capped at 100; an unknown person is 404", async () => {
    await checkPaging(lists.ofUser(null, pager.userId)[door], expectedTeams, 20);
    await checkCap(lists.ofUser(null, capper.userId)[door], expectedCapTeams);
    expect((await lists.ofUser(null, UNKNOWN)[door]({})).status).toBe(404);
    expect((await lists.ofUser(null, 'not-an-id')[door]({})).error).toBe(M.userNotFound);
  });

  it("a project's teams: pages of 20, capped at 100", async () => {
    await checkPaging(lists.ofProject(null, projectId)[door], expectedTeams, 20);
    await checkCap(lists.ofProject(stranger, capProjectId)[door], expectedCapTeams);
  });

  it("a team's members: pages of 50 by default in member order, capped at 100; an unknown team is 404", async () => {
    await checkPaging(lists.members(mOwner, teamM)[door], membersAll, 50);
    await checkCap(lists.members(null, teamC)[door], membersC);
    expect((await lists.members(null, UNKNOWN)[door]({})).status).toBe(404);
    expect((await lists.members(null, 'not-an-id')[door]({})).error).toBe(M.teamNotFound);
    // a team list's cursor is not a members cursor
    const teamCursor = (await lists.mine(pager)[door]({ limit: 1 })).nextCursor;
    expect(await lists.members(mOwner, teamM)[door]({ cursor: teamCursor })).toMatchObject({ status: 400, error: M.cursorInvalid });
  });

  it('pages only the members a viewer may see: invited and requested rows stay hidden on every page, whatever the cursor', async () => {
    const visitor = await walk(lists.members(null, teamM)[door], 20);
    expect(visitor.sizes).toEqual([20, 11]);
    expect(visitor.ids).toEqual(membersActive);
    expect((await walk(lists.members(stranger, teamM)[door], 7)).ids).toEqual(membersActive);
    // the invitee sees their own row too (last: not active)
    expect((await walk(lists.members(invitee, teamM)[door], 20)).ids).toEqual([...membersActive, invitee.userId]);
    // the owner's cursor into the invited and requested rows shows a visitor nothing more
    const owners = await lists.members(mOwner, teamM)[door]({ limit: 35 });
    expect(owners.ids).toEqual(membersAll.slice(0, 35));
    expect(await lists.members(null, teamM)[door]({ cursor: owners.nextCursor })).toMatchObject({ status: 200, ids: [], nextCursor: null });
  });
});

describe('a single team carries its first 50 members and the cursor for the rest', () => {
  const getTeam = async (door: 'rest' | 'trpc', who: Client | null, id: string) =>
    (door === 'rest'
      ? (await call(app, who, { method: 'GET', url: `/api/teams/${id}` })).json()
      : (await trpc(app, who, 'query', 'teams.get', { id })).data) as TeamDto;

  it.each(['rest', 'trpc'] as const)('(%s)', async (door) => {
    const m = await getTeam(door, mOwner, teamM);
    expect(m.members.map((x: { userId: string }) => x.userId)).toEqual(membersAll);
    expect(m.membersNextCursor).toBeNull();
    expect((await getTeam(door, null, teamM)).members.map((x: { userId: string }) => x.userId)).toEqual(membersActive);

    const c = await getTeam(door, null, teamC);
    expect(c.memberCount).toBe(105);
    expect(c.members.map((x: { userId: string }) => x.userId)).toEqual(membersC.slice(0, 50));
    expect(c.membersNextCursor).toEqual(expect.any(String));
    // the members call goes on from there, 50 at a time
    const fetch: FetchPage = lists.members(null, teamC)[door];
    const next = await fetch({ cursor: c.membersNextCursor });
    expect(next.ids).toEqual(membersC.slice(50, 100));
    const last = await fetch({ cursor: next.nextCursor });
    expect(last.ids).toEqual(membersC.slice(100));
    expect(last.nextCursor).toBeNull();
  });
});
