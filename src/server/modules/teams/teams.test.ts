import { and, asc, count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { blocks, changeHistory, projects, teamMembers, teams, users } from '../../db/schema';
import { buildTestApp, call, openTestDatabase, signUp, trpc, uploadImages } from '../../../../test/helpers';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
type Person = Awaited<ReturnType<typeof signUp>>;
type Who = Person | null;
type Door = 'rest' | 'trpc';
interface Res {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: an answer's JSON, whose fields each test reads and asserts
  body: any;
  error?: string;
}

async function viaRest(who: Who, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown): Promise<Res> {
  const r = await call(app, who, { method, url, ...(payload === undefined ? {} : { payload: payload as object }) });
  const body = r.body ? r.json() : undefined;
  return { status: r.statusCode, body, error: body?.error };
}
async function viaTrpc(who: Who, kind: 'query' | 'mutation', path: string, input?: unknown): Promise<Res> {
  const r = await trpc(app, who, kind, path, input);
  return { status: r.status, body: r.data, error: r.error?.message };
}
const qs = (q: Record<string, unknown>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
};

/** Every teams call through one door; the same test body runs through both. */
function doorApi(door: Door) {
  const rest = door === 'rest';
  return {
    list: (who: Who, q: Record<string, unknown> = {}) => (rest ? viaRest(who, 'GET', `/api/teams${qs(q)}`) : viaTrpc(who, 'query', 'teams.list', q)),
    mine: (who: Who) => (rest ? viaRest(who, 'GET', '/api/teams/mine') : viaTrpc(who, 'query', 'teams.mine')),
    create: (who: Who, data: unknown) => (rest ? viaRest(who, 'POST', '/api/teams', data) : viaTrpc(who, 'mutation', 'teams.create', data)),
    get: (who: Who, id: string) => (rest ? viaRest(who, 'GET', `/api/teams/${id}`) : viaTrpc(who, 'query', 'teams.get', { id })),
    update: (who: Who, id: string, data: unknown) =>
      rest ? viaRest(who, 'PUT', `/api/teams/${id}`, data) : viaTrpc(who, 'mutation', 'teams.update', { id, data }),
    remove: (who: Who, id: string) => (rest ? viaRest(who, 'DELETE', `/api/teams/${id}`) : viaTrpc(who, 'mutation', 'teams.delete', { id })),
    members: (who: Who, id: string) => (rest ? viaRest(who, 'GET', `/api/teams/${id}/members`) : viaTrpc(who, 'query', 'teams.members', { id })),
    invite: (who: Who, id: string, data: unknown) =>
      rest ? viaRest(who, 'POST', `/api/teams/${id}/members`, data) : viaTrpc(who, 'mutation', 'teams.invite', { id, data }),
    updateMember: (who: Who, id: string, memberId: string, data: unknown) =>
      rest ? viaRest(who, 'PUT', `/api/teams/${id}/members/${memberId}`, data) : viaTrpc(who, 'mutation', 'teams.updateMember', { id, memberId, data }),
    removeMember: (who: Who, id: string, memberId: string) =>
      rest ? viaRest(who, 'DELETE', `/api/teams/${id}/members/${memberId}`) : viaTrpc(who, 'mutation', 'teams.removeMember', { id, memberId }),
    request: (who: Who, id: string) => (rest ? viaRest(who, 'POST', `/api/teams/${id}/members/request`) : viaTrpc(who, 'mutation', 'teams.request', { id })),
    accept: (who: Who, id: string) => (rest ? viaRest(who, 'POST', `/api/teams/${id}/members/accept`) : viaTrpc(who, 'mutation', 'teams.accept', { id })),
    leave: (who: Who, id: string) => (rest ? viaRest(who, 'DELETE', `/api/teams/${id}/members/me`) : viaTrpc(who, 'mutation', 'teams.leave', { id })),
    addTag: (who: Who, id: string, tag: string) =>
      rest ? viaRest(who, 'POST', `/api/teams/${id}/tags/${encodeURIComponent(tag)}`) : viaTrpc(who, 'mutation', 'teams.addTag', { id, tag }),
    removeTag: (who: Who, id: string, tag: string) =>
      rest ? viaRest(who, 'DELETE', `/api/teams/${id}/tags/${encodeURIComponent(tag)}`) : viaTrpc(who, 'mutation', 'teams.removeTag', { id, tag }),
    suggested: (who: Who, id: string, projectId?: string) =>
      rest ? viaRest(who, 'GET', `/api/teams/${id}/suggested${qs({ projectId })}`) : viaTrpc(who, 'query', 'teams.suggested', { id, projectId }),
    /** The success status: REST's own (201 create, 204 delete), tRPC's 200. */
    ok(res: Res, restStatus = 200) {
      expect(res.status, JSON.stringify(res.body ?? res.error)).toBe(rest ? restStatus : 200);
    },
  };
}

function refused(res: Res, status: number, message?: string) {
  expect(res.status, JSON.stringify(res.body ?? res.error)).toBe(status);
  expect(res.error).toBeTruthy();
  if (message) expect(res.error).toBe(message);
}

/** Everything a team's state is made of: its row, its membership rows, and the history count. */
async function snapshot(teamId: string) {
  const [team] = await database.db.select().from(teams).where(eq(teams.id, teamId));
  const rows = await database.db
    .select({ userId: teamMembers.userId, role: teamMembers.role, status: teamMembers.status, updatedAt: teamMembers.updatedAt })
    .from(teamMembers)
    .where(eq(teamMembers.teamId, teamId))
    .orderBy(asc(teamMembers.userId));
  const [h] = await database.db.select({ n: count() }).from(changeHistory);
  return { team, rows, history: h.n };
}
const rowOf = async (teamId: string, userId: string) =>
  (
    await database.db
      .select()
      .from(teamMembers)
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
  )[0];
const historyOf = (key: string) => database.db.select().from(changeHistory).where(eq(changeHistory.key, key)).orderBy(asc(changeHistory.createdAt));
const block = (blockerId: string, blockedId: string) => database.db.insert(blocks).values({ blockerId, blockedId });
const unblock = (blockerId: string, blockedId: string) =>
  database.db.delete(blocks).where(and(eq(blocks.blockerId, blockerId), eq(blocks.blockedId, blockedId)));
async function project(ownerId: string, title: string, extra: Partial<typeof projects.$inferInsert> = {}) {
  const [p] = await database.db
    .insert(projects)
    .values({ ownerId, title, ...extra })
    .returning();
  return p;
}

describe.each(['rest', 'trpc'] as const)('teams through the %s door', (door) => {
  const api = doorApi(door);
  const u = (name: string) => `${door}_${name}`;
  /** A word only this door's teams use, so searches of the two doors never meet. */
  const tok = door === 'rest' ? 'quartzite' : 'basaltic';
  let owner: Person;
  let mgr: Person;
  let carol: Person;
  let dave: Person;
  let erin: Person;
  let frank: Person;
  let gina: Person;

  beforeAll(async () => {
    [owner, mgr, carol, dave, erin, frank, gina] = await Promise.all(
      ['owner', 'mgr', 'carol', 'dave', 'erin', 'frank', 'gina'].map((n) => signUp(app, { username: u(n) })),
    );
  });

  async function newTeam(who: Person = owner, data: Record<string, unknown> = {}) {
    const res = await api.create(who, { name: `${tok} team`, ...data });
    api.ok(res, 201);
    // biome-ignore lint/suspicious/noExplicitAny: an answer's JSON, whose fields each test reads and asserts
    return res.body as { _id: string; [k: string]: any };
  }
  /** A team with the owner, an active manager (mgr) and an active member (carol). */
  async function staffedTeam() {
    const t = await newTeam();
    api.ok(await api.invite(owner, t._id, { userId: mgr.userId, role: 'manager' }), 201);
    api.ok(await api.accept(mgr, t._id));
    api.ok(await api.invite(owner, t._id, { username: u('carol'), status: 'active' }), 201);
    return t;
  }

  describe('POST /teams', () => {
    it('creates a team: name trimmed, tags normalised, own project attached, the owner an active manager, history written', async () => {
      const p = await project(owner.userId, `${tok} loom`);
      const res = await api.create(owner, {
        name: `  ${tok} Loom crew  `,
        description: 'We weave',
        tags: [' Weaving', 'weaving', 'LOOMS', ''],
        projectId: p.id,
      });
      api.ok(res, 201);
      const t = res.body;
      expect(Object.keys(t).sort()).toEqual(
        [
          '_id',
          'createdAt',
          'description',
          'imageUrl',
          'images',
          'memberCount',
          'members',
          'membersNextCursor',
          'myMembership',
          'name',
          'ownerId',
          'projectId',
          'projectTitle',
          'tags',
          'updatedAt',
        ].sort(),
      );
      expect(t).toMatchObject({
        name: `${tok} Loom crew`,
        description: 'We weave',
        tags: ['weaving', 'looms'],
        projectId: p.id,
        projectTitle: `${tok} loom`,
        ownerId: { _id: owner.userId, username: u('owner'), name: null, imageUrl: null, avatarUrl: null },
        imageUrl: null,
        images: [],
        memberCount: 1,
        myMembership: { status: 'active', role: 'manager' },
      });
      expect(t.members).toHaveLength(1);
      expect(t.membersNextCursor).toBeNull();
      expect(Object.keys(t.members[0]).sort()).toEqual(
        ['avatarUrl', 'createdAt', 'imageUrl', 'isOwner', 'name', 'role', 'status', 'updatedAt', 'userId', 'username'].sort(),
      );
      expect(t.members[0]).toMatchObject({ userId: owner.userId, username: u('owner'), role: 'manager', status: 'active', isOwner: true });
      expect(JSON.stringify(t)).not.toMatch(/email|passwordHash|phone/);

      const rows = await database.db.select().from(teamMembers).where(eq(teamMembers.teamId, t._id));
      expect(rows.map((r) => [r.userId, r.role, r.status])).toEqual([[owner.userId, 'manager', 'active']]);
      const history = await historyOf(t._id);
      expect(history.map((h) => [h.modelName, h.action, h.fields, h.actorId])).toEqual([
        ['Team', 'create', ['name', 'description', 'tags', 'projectId'], owner.userId],
      ]);
      const memberHistory = await historyOf(rows[0].id);
      expect(memberHistory.map((h) => [h.modelName, h.action, h.subjectUserId])).toEqual([['TeamMember', 'create', owner.userId]]);
    });

    it('refuses bad input, signed-out callers and projects the caller does not own, storing nothing', async () => {
      const others = await project(carol.userId, `${tok} carol's`);
      const before = await database.db.select({ n: count() }).from(teams);
      const beforeRows = await database.db.select({ n: count() }).from(teamMembers);
      const cases: [Who, unknown, number, string?][] = [
        [owner, { name: '' }, 400, M.teamNameRequired],
        [owner, { name: '    ' }, 400, M.teamNameRequired],
        [owner, {}, 400, M.teamNameRequired],
        [owner, { name: 'x'.repeat(121) }, 400, M.teamNameTooLong],
        [owner, { name: 'X', tags: 'not a list' }, 400],
        [owner, { name: 'X', tags: ['x'.repeat(41)] }, 400],
        [owner, { name: 'X', description: 5 }, 400],
        [owner, { name: 'X', projectId: others.id }, 403, M.teamProjectNotOwned],
        [owner, { name: 'X', projectId: UNKNOWN }, 404, M.projectNotFound],
        [owner, { name: 'X', projectId: 'nope' }, 404, M.projectNotFound],
        [null, { name: 'X' }, 401, M.signInRequired],
      ];
      for (const [who, data, status, message] of cases) refused(await api.create(who, data), status, message);
      expect(await database.db.select({ n: count() }).from(teams)).toEqual(before);
      expect(await database.db.select({ n: count() }).from(teamMembers)).toEqual(beforeRows);
    });

    it('hides an adult project the owner may not see and attaches none', async () => {
      const adult = await project(carol.userId, 'Hidden', { type: 'adult' });
      refused(await api.create(owner, { name: 'X', projectId: adult.id }), 404, M.projectNotFound);
    });
  });

  describe('GET /teams', () => {
    it('searches name, description and tags, filters by tag and project, newest first, pages, and counts only active members', async () => {
      const w = door === 'rest' ? 'obsidian' : 'feldspar';
      const p = await project(owner.userId, 'Glass project');
      const a = await newTeam(owner, { name: `${w} glassblowers`, description: 'hot shop', tags: [`${w}-glass`], projectId: p.id });
      const b = await newTeam(owner, { name: `${w} pottery circle`, tags: [`${w}-ceramics`, 'glaze'] });
      const c = await newTeam(carol, { name: `${w} weekend glaze club`, description: 'kilns and wheels' });
      const ids = (r: Res) => r.body.items.map((i: { _id: string }) => i._id);

      const all = await api.list(null, { q: w });
      api.ok(all);
      expect(ids(all)).toEqual([c._id, b._id, a._id]);
      expect(all.body).toMatchObject({ total: 3, page: 1, limit: 20, nextCursor: null });
      expect(ids(await api.list(null, { q: `${w} kilns` }))).toEqual([c._id]);
      expect(ids(await api.list(null, { q: `${w} glaze` }))).toEqual([c._id, b._id]);
      expect(ids(await api.list(null, { q: `${w} glassbl` }))).toEqual([a._id]);
      expect(ids(await api.list(null, { tag: ` ${w.toUpperCase()}-Ceramics ` }))).toEqual([b._id]);
      expect(ids(await api.list(null, { q: w, tag: 'glaze' }))).toEqual([b._id]);
      expect(ids(await api.list(null, { projectId: p.id }))).toEqual([a._id]);
      expect((await api.list(null, { projectId: 'nope' })).body).toMatchObject({ items: [], total: 0 });
      const listed = (await api.list(null, { projectId: p.id })).body.items[0];
      expect(listed).toMatchObject({ projectTitle: 'Glass project', ownerId: { _id: owner.userId } });

      const page1 = await api.list(null, { q: w, limit: 2 });
      expect(ids(page1)).toEqual([c._id, b._id]);
      expect(page1.body.total).toBe(3);
      expect(ids(await api.list(null, { q: w, limit: 2, page: 2 }))).toEqual([a._id]);
      expect(ids(await api.list(null, { q: w, limit: 2, cursor: page1.body.nextCursor }))).toEqual([a._id]);
      refused(await api.list(null, { limit: 0 }), 400, M.limitInvalid);
      refused(await api.list(null, { cursor: 'garbage' }), 400, M.cursorInvalid);

      // member count and the first three (active) members: owner first
      await api.invite(owner, a._id, { username: u('dave') }); // invited: not counted
      await api.request(erin, a._id); // requested: not counted
      for (const who of [mgr, carol, frank]) await api.invite(owner, a._id, { userId: who.userId, status: 'active' });
      const withMembers = (await api.list(null, { projectId: p.id })).body.items[0];
      expect(withMembers.memberCount).toBe(4);
      expect(withMembers.members.map((m: { userId: string }) => m.userId)).toEqual([owner.userId, mgr.userId, carol.userId]);
      expect(withMembers.members.every((m: { status: string }) => m.status === 'active')).toBe(true);
      expect(withMembers.myMembership).toBeNull();
      expect((await api.list(dave, { projectId: p.id })).body.items[0].myMembership).toEqual({ status: 'invited', role: 'member' });
    });
  });

  describe('GET /teams/{id} and /teams/{id}/members', () => {
    it('shows visitors active members only, a person their own row too, and the owner and managers every row', async () => {
      const t = await staffedTeam();
      await api.invite(owner, t._id, { username: u('dave') });
      await api.request(erin, t._id);
      const users = (r: Res) =>
        (r.body.members ?? r.body.items).map((m: { userId: string; status: string }) => `${m.userId === owner.userId ? 'owner' : m.userId}:${m.status}`);
      const active = ['owner:active', `${mgr.userId}:active`, `${carol.userId}:active`];

      const visitor = await api.get(null, t._id);
      api.ok(visitor);
      expect(users(visitor)).toEqual(active);
      expect(visitor.body.memberCount).toBe(3);
      expect(users(await api.members(null, t._id))).toEqual(active);
      expect(users(await api.get(frank, t._id))).toEqual(active);
      expect(users(await api.get(carol, t._id))).toEqual(active);
      const asDave = await api.get(dave, t._id);
      expect(users(asDave)).toEqual([...active, `${dave.userId}:invited`]);
      expect(asDave.body.myMembership).toEqual({ status: 'invited', role: 'member' });
      const everyone = [...active, `${dave.userId}:invited`, `${erin.userId}:requested`];
      expect(users(await api.get(owner, t._id))).toEqual(everyone);
      expect(users(await api.get(mgr, t._id))).toEqual(everyone);
      expect(users(await api.members(mgr, t._id))).toEqual(everyone);

      refused(await api.get(null, UNKNOWN), 404, M.teamNotFound);
      refused(await api.get(null, 'not-an-id'), 404, M.teamNotFound);
      refused(await api.members(null, UNKNOWN), 404, M.teamNotFound);
    });
  });

  describe('PUT /teams/{id}', () => {
    it('lets the owner edit name, description, tags, project link and cover, recording the changed fields', async () => {
      const t = await newTeam();
      const p = await project(owner.userId, 'Linked');
      const [cover] = await uploadImages(app, owner, 1, 'cover');
      const res = await api.update(owner, t._id, { name: ' Renamed ', description: 'New words', tags: ['Synth'], projectId: p.id, imageUrl: cover.url });
      api.ok(res);
      expect(res.body).toMatchObject({
        name: 'Renamed',
        description: 'New words',
        tags: ['synth'],
        projectId: p.id,
        projectTitle: 'Linked',
        imageUrl: cover.url,
        images: [{ url: cover.url, alt: 'Renamed' }],
      });
      const detached = await api.update(owner, t._id, { projectId: null, imageUrl: null });
      expect(detached.body).toMatchObject({ projectId: null, projectTitle: null, imageUrl: null, images: [] });
      const same = await api.update(owner, t._id, { name: 'Renamed' });
      api.ok(same);
      const history = (await historyOf(t._id)).map((h) => [h.action, [...h.fields].sort()]);
      expect(history).toEqual([
        ['create', ['description', 'name', 'tags']],
        ['update', ['description', 'imageUrl', 'name', 'projectId', 'tags']],
        ['update', ['imageUrl', 'projectId']],
      ]);
    });

    it("refuses other people, managers, signed-out callers, bad input, others' projects and covers, changing nothing", async () => {
      const t = await staffedTeam();
      const others = await project(carol.userId, 'Not yours');
      const [carolsImage] = await uploadImages(app, carol, 1, 'cover');
      const before = await snapshot(t._id);
      const cases: [Who, string, unknown, number, string?][] = [
        [mgr, t._id, { name: 'Mine' }, 403, M.teamOwnerOnly],
        [frank, t._id, { name: 'Mine' }, 403, M.teamOwnerOnly],
        [null, t._id, { name: 'Mine' }, 401, M.signInRequired],
        [owner, UNKNOWN, { name: 'Mine' }, 404, M.teamNotFound],
        [owner, t._id, { name: '  ' }, 400, M.teamNameRequired],
        [owner, t._id, { tags: 'x' }, 400],
        [owner, t._id, { projectId: others.id }, 403, M.teamProjectNotOwned],
        [owner, t._id, { projectId: UNKNOWN }, 404, M.projectNotFound],
        [owner, t._id, { imageUrl: '/uploads/not-ours.png' }, 400, M.imageNotUploaded],
        [owner, t._id, { imageUrl: carolsImage.url }, 400, M.imageNotUploaded],
        [owner, t._id, { name: 'Fine', imageUrl: 'https://elsewhere.example/x.png' }, 400, M.imageNotUploaded],
      ];
      for (const [who, id, data, status, message] of cases) refused(await api.update(who, id, data), status, message);
      expect(await snapshot(t._id)).toEqual(before);
    });
  });

  describe('DELETE /teams/{id}', () => {
    it('lets only the owner delete; memberships go with the team; history records it', async () => {
      const t = await staffedTeam();
      const before = await snapshot(t._id);
      refused(await api.remove(mgr, t._id), 403, M.teamOwnerOnly);
      refused(await api.remove(frank, t._id), 403, M.teamOwnerOnly);
      refused(await api.remove(null, t._id), 401, M.signInRequired);
      refused(await api.remove(owner, UNKNOWN), 404, M.teamNotFound);
      expect(await snapshot(t._id)).toEqual(before);

      const res = await api.remove(owner, t._id);
      api.ok(res, 204);
      if (door === 'rest') expect(res.body).toBeUndefined();
      else expect(res.body).toEqual({ deleted: true });
      refused(await api.get(null, t._id), 404, M.teamNotFound);
      expect(await database.db.select().from(teamMembers).where(eq(teamMembers.teamId, t._id))).toEqual([]);
      expect((await historyOf(t._id)).map((h) => h.action)).toEqual(['create', 'delete']);
      refused(await api.remove(owner, t._id), 404, M.teamNotFound);
    });
  });

  describe('membership', () => {
    it('walks invite -> accept and request -> accept, and refuses what the current state does not allow', async () => {
      const t = await newTeam();
      const id = t._id;

      const invited = await api.invite(owner, id, { username: u('carol') });
      api.ok(invited, 201);
      expect(invited.body).toMatchObject({ userId: carol.userId, username: u('carol'), role: 'member', status: 'invited', isOwner: false });
      refused(await api.invite(owner, id, { username: u('carol') }), 409, M.teamAlreadyInvited);
      refused(await api.invite(owner, id, { userId: carol.userId, status: 'active' }), 409, M.teamAlreadyInvited);
      const accepted = await api.accept(carol, id);
      api.ok(accepted);
      expect(accepted.body).toMatchObject({ userId: carol.userId, status: 'active', role: 'member' });
      refused(await api.accept(carol, id), 409, M.teamYouAreMember);
      refused(await api.invite(owner, id, { username: u('carol') }), 409, M.teamAlreadyMember);
      refused(await api.request(carol, id), 409, M.teamYouAreMember);

      const requested = await api.request(dave, id);
      api.ok(requested, 201);
      expect(requested.body).toMatchObject({ userId: dave.userId, status: 'requested', role: 'member' });
      refused(await api.request(dave, id), 409, M.teamAlreadyRequested);
      refused(await api.accept(dave, id), 409, M.teamAlreadyRequested);
      const approved = await api.updateMember(owner, id, dave.userId, { status: 'active' });
      api.ok(approved);
      expect(approved.body.status).toBe('active');
      api.ok(await api.updateMember(owner, id, dave.userId, { status: 'active' })); // already active: nothing to do

      // invited, then asks to join: both sides agree -> active
      const byEmail = await api.invite(owner, id, { email: `  ${erin.email.toUpperCase()} ` });
      api.ok(byEmail, 201);
      expect(byEmail.body).toMatchObject({ userId: erin.userId, status: 'invited' });
      refused(await api.updateMember(owner, id, erin.userId, { status: 'active' }), 409, M.teamMemberNotRequested);
      const joined = await api.request(erin, id);
      api.ok(joined, 201);
      expect(joined.body.status).toBe('active');

      // asked to join, then invited: active with the invite's role
      await api.request(frank, id);
      const met = await api.invite(owner, id, { username: u('frank'), role: 'manager' });
      api.ok(met, 201);
      expect(met.body).toMatchObject({ status: 'active', role: 'manager' });

      refused(await api.request(owner, id), 409, M.teamYouAreMember);
      refused(await api.accept(owner, id), 409, M.teamYouAreMember);
      refused(await api.invite(owner, id, { userId: owner.userId }), 409, M.teamAlreadyMember);
      refused(await api.accept(gina, id), 404, M.teamNoInvite);
      for (const call of [api.request, api.accept]) {
        refused(await call(null, id), 401, M.signInRequired);
        refused(await call(gina, UNKNOWN), 404, M.teamNotFound);
      }

      expect((await api.get(null, id)).body.memberCount).toBe(5);
      const rows = await database.db.select().from(teamMembers).where(eq(teamMembers.teamId, id));
      expect(rows).toHaveLength(5);
      expect(new Set(rows.map((r) => r.userId)).size).toBe(5);

      // history: one TeamMember entry per real change, about the member
      const carolRow = rows.find((r) => r.userId === carol.userId)!;
      const h = await historyOf(carolRow.id);
      expect(h.map((e) => [e.modelName, e.action, e.fields, e.actorId, e.subjectUserId])).toEqual([
        ['TeamMember', 'create', ['teamId', 'userId', 'role', 'status'], owner.userId, carol.userId],
        ['TeamMember', 'update', ['status'], carol.userId, carol.userId],
      ]);
      const daveRow = rows.find((r) => r.userId === dave.userId)!;
      expect((await historyOf(daveRow.id)).map((e) => [e.action, e.fields, e.actorId])).toEqual([
        ['create', ['teamId', 'userId', 'role', 'status'], dave.userId],
        ['update', ['status'], owner.userId],
      ]);
    });

    it('lets an active manager invite members only; members, pending managers, outsiders and visitors may not invite', async () => {
      const t = await staffedTeam();
      const id = t._id;
      const invited = await api.invite(mgr, id, { username: u('dave') });
      api.ok(invited, 201);
      expect(invited.body).toMatchObject({ status: 'invited', role: 'member' });
      await api.request(erin, id);
      const met = await api.invite(mgr, id, { userId: erin.userId });
      expect(met.body).toMatchObject({ status: 'active', role: 'member' });
      api.ok(await api.invite(owner, id, { username: u('gina'), role: 'manager' }), 201); // gina: invited manager, not yet active

      const before = await snapshot(id);
      const cases: [Who, unknown, number, string?][] = [
        [mgr, { username: u('frank'), role: 'manager' }, 403, M.teamOnlyOwnerMakesManager],
        [mgr, { username: u('frank'), status: 'active' }, 403, M.teamOnlyOwnerAddsActive],
        [carol, { username: u('frank') }, 403, M.teamInviteNotAllowed],
        [gina, { username: u('frank') }, 403, M.teamInviteNotAllowed],
        [frank, { username: u('frank') }, 403, M.teamInviteNotAllowed],
        [null, { username: u('frank') }, 401, M.signInRequired],
        [owner, { username: 'nobody_here' }, 404, M.teamInviteeNotFound],
        [owner, { email: 'nobody@example.com' }, 404, M.teamInviteeNotFound],
        [owner, { username: 'nobody@example.com' }, 404, M.teamInviteeNotFound],
        [owner, { userId: UNKNOWN }, 404, M.teamInviteeNotFound],
        [owner, { userId: 'nope' }, 404, M.teamInviteeNotFound],
        [owner, {}, 400, M.inviteIdentifierRequired],
        [owner, { username: '   ', email: '' }, 400, M.inviteIdentifierRequired],
        [owner, { username: u('frank'), role: 'boss' }, 400, M.teamRoleInvalid],
        [owner, { username: u('frank'), status: 'requested' }, 400, M.teamInviteStatusInvalid],
      ];
      for (const [who, data, status, message] of cases) refused(await api.invite(who, id, data), status, message);
      refused(await api.invite(owner, UNKNOWN, { username: u('frank') }), 404, M.teamNotFound);
      expect(await snapshot(id)).toEqual(before);

      // the owner may add someone directly as an active manager; a username holding @ is taken as an email
      const direct = await api.invite(owner, id, { username: frank.email, status: 'active', role: 'manager' });
      api.ok(direct, 201);
      expect(direct.body).toMatchObject({ userId: frank.userId, status: 'active', role: 'manager' });
    });

    it('lets only the owner change roles and accept requests; the owner row is fixed', async () => {
      const t = await staffedTeam();
      const id = t._id;
      const up = await api.updateMember(owner, id, carol.userId, { role: 'manager' });
      api.ok(up);
      expect(up.body).toMatchObject({ userId: carol.userId, role: 'manager', status: 'active' });
      const down = await api.updateMember(owner, id, carol.userId, { role: 'member' });
      expect(down.body.role).toBe('member');
      const carolRow = await rowOf(id, carol.userId);
      const entries = (await historyOf(carolRow.id)).length;
      api.ok(await api.updateMember(owner, id, carol.userId, { role: 'member' }));
      expect((await historyOf(carolRow.id)).length).toBe(entries); // nothing changed, nothing recorded
      await api.request(dave, id);
      const both = await api.updateMember(owner, id, dave.userId, { status: 'active', role: 'manager' });
      expect(both.body).toMatchObject({ status: 'active', role: 'manager' });

      const before = await snapshot(id);
      const cases: [Who, string, unknown, number, string?][] = [
        [owner, owner.userId, { role: 'member' }, 403, M.teamOwnerRowFixed],
        [mgr, carol.userId, { role: 'manager' }, 403, M.teamOwnerOnly],
        [carol, carol.userId, { role: 'manager' }, 403, M.teamOwnerOnly],
        [null, carol.userId, { role: 'manager' }, 401, M.signInRequired],
        [owner, gina.userId, { role: 'manager' }, 404, M.teamMemberNotFound],
        [owner, 'nope', { role: 'manager' }, 404, M.teamMemberNotFound],
        [owner, carol.userId, {}, 400, M.teamMemberUpdateEmpty],
        [owner, carol.userId, { status: 'invited' }, 400, M.teamMemberStatusInvalid],
        [owner, carol.userId, { role: 'boss' }, 400, M.teamRoleInvalid],
      ];
      for (const [who, memberId, data, status, message] of cases) refused(await api.updateMember(who, id, memberId, data), status, message);
      refused(await api.updateMember(owner, UNKNOWN, carol.userId, { role: 'member' }), 404, M.teamNotFound);
      expect(await snapshot(id)).toEqual(before);
    });

    it('lets the owner remove members, withdraw invites and decline requests; people leave; the owner neither leaves nor is removed', async () => {
      const t = await staffedTeam();
      const id = t._id;
      await api.invite(owner, id, { username: u('frank') });
      await api.request(gina, id);
      await api.invite(owner, id, { username: u('dave'), status: 'active' });
      await api.invite(owner, id, { username: u('erin') });

      const before = await snapshot(id);
      refused(await api.removeMember(owner, id, owner.userId), 403, M.teamOwnerCannotBeRemoved);
      refused(await api.removeMember(mgr, id, carol.userId), 403, M.teamOwnerOnly);
      refused(await api.removeMember(carol, id, dave.userId), 403, M.teamOwnerOnly);
      refused(await api.removeMember(null, id, carol.userId), 401, M.signInRequired);
      refused(await api.removeMember(owner, id, UNKNOWN), 404, M.teamMemberNotFound);
      refused(await api.removeMember(owner, id, 'nope'), 404, M.teamMemberNotFound);
      refused(await api.removeMember(owner, UNKNOWN, carol.userId), 404, M.teamNotFound);
      refused(await api.leave(owner, id), 403, M.teamOwnerCannotLeave);
      refused(await api.leave(null, id), 401, M.signInRequired);
      refused(await api.leave(owner, UNKNOWN), 404, M.teamNotFound);
      expect(await snapshot(id)).toEqual(before);

      api.ok(await api.removeMember(owner, id, carol.userId), 204); // active member removed
      api.ok(await api.removeMember(owner, id, frank.userId), 204); // invite withdrawn
      refused(await api.accept(frank, id), 404, M.teamNoInvite);
      api.ok(await api.removeMember(owner, id, gina.userId), 204); // request declined
      refused(await api.removeMember(owner, id, gina.userId), 404, M.teamMemberNotFound);
      api.ok(await api.leave(dave, id), 204); // an active member leaves
      refused(await api.leave(dave, id), 404, M.teamNotMember);
      api.ok(await api.leave(erin, id), 204); // an invited person declines
      refused(await api.leave(gina, id), 404, M.teamNotMember);

      const rows = await database.db.select().from(teamMembers).where(eq(teamMembers.teamId, id));
      expect(rows.map((r) => r.userId).sort()).toEqual([owner.userId, mgr.userId].sort());
      expect((await api.get(null, id)).body.memberCount).toBe(2);
      const deletes = await database.db
        .select()
        .from(changeHistory)
        .where(and(eq(changeHistory.modelName, 'TeamMember'), eq(changeHistory.action, 'delete')));
      for (const who of [carol, frank, gina, dave, erin]) expect(deletes.some((d) => d.subjectUserId === who.userId)).toBe(true);
      // a person who left can ask again: the same single row comes back
      api.ok(await api.request(dave, id), 201);
      expect(
        await database.db
          .select({ n: count() })
          .from(teamMembers)
          .where(and(eq(teamMembers.teamId, id), eq(teamMembers.userId, dave.userId))),
      ).toEqual([{ n: 1 }]);
    });

    it('refuses invites, requests and accepts between blocked people, storing nothing', async () => {
      const t = await staffedTeam();
      const id = t._id;
      const before = await snapshot(id);

      await block(owner.userId, dave.userId);
      refused(await api.invite(owner, id, { username: u('dave') }), 403, M.teamInviteBlocked);
      refused(await api.invite(mgr, id, { username: u('dave') }), 403, M.teamInviteBlocked); // blocked with the owner
      refused(await api.request(dave, id), 403, M.teamJoinBlocked);
      await unblock(owner.userId, dave.userId);

      await block(dave.userId, owner.userId);
      refused(await api.invite(owner, id, { userId: dave.userId }), 403, M.teamInviteBlocked);
      refused(await api.request(dave, id), 403, M.teamJoinBlocked);
      await unblock(dave.userId, owner.userId);

      await block(erin.userId, mgr.userId); // blocked with the manager who invites, not the owner
      refused(await api.invite(mgr, id, { username: u('erin') }), 403, M.teamInviteBlocked);
      expect(await snapshot(id)).toEqual(before);
      api.ok(await api.invite(owner, id, { username: u('erin') }), 201); // the owner is not blocked with erin
      api.ok(await api.request(dave, id), 201);

      // invited, then blocked: the invite cannot be accepted
      api.ok(await api.invite(owner, id, { username: u('frank') }), 201);
      await block(owner.userId, frank.userId);
      const mid = await snapshot(id);
      refused(await api.accept(frank, id), 403, M.teamJoinBlocked);
      expect(await snapshot(id)).toEqual(mid);
      await unblock(owner.userId, frank.userId);
      await unblock(erin.userId, mgr.userId);
    });
  });

  describe('POST and DELETE /teams/{id}/tags/{tag}', () => {
    it('adds and removes normalised looking-for tags idempotently; only the owner', async () => {
      const t = await newTeam(owner, { tags: ['drums'] });
      const id = t._id;
      const added = await api.addTag(owner, id, '  Sound Design ');
      api.ok(added);
      expect(added.body).toEqual({ tags: ['drums', 'sound design'] });
      expect((await api.addTag(owner, id, 'sound design')).body).toEqual({ tags: ['drums', 'sound design'] });
      const removed = await api.removeTag(owner, id, 'DRUMS');
      api.ok(removed);
      expect(removed.body).toEqual({ tags: ['sound design'] });
      expect((await api.removeTag(owner, id, 'drums')).body).toEqual({ tags: ['sound design'] });
      expect((await api.get(null, id)).body.tags).toEqual(['sound design']);
      expect((await historyOf(id)).map((h) => [h.action, h.fields])).toEqual([
        ['create', ['name', 'description', 'tags']],
        ['update', ['tags']],
        ['update', ['tags']],
      ]);

      const staffed = await staffedTeam();
      const before = await snapshot(staffed._id);
      for (const call of [api.addTag, api.removeTag]) {
        refused(await call(mgr, staffed._id, 'x'), 403, M.teamOwnerOnly);
        refused(await call(frank, staffed._id, 'x'), 403, M.teamOwnerOnly);
        refused(await call(null, staffed._id, 'x'), 401, M.signInRequired);
        refused(await call(owner, UNKNOWN, 'x'), 404, M.teamNotFound);
        refused(await call(owner, staffed._id, 'x'.repeat(41)), 400, M.tagTooLong);
        refused(await call(owner, staffed._id, '   '), 400, M.tagRequired);
      }
      await api.update(owner, staffed._id, { tags: Array.from({ length: 30 }, (_, i) => `t${i}`) });
      const full = await snapshot(staffed._id);
      refused(await api.addTag(owner, staffed._id, 'one-more'), 400, M.tooManyTags);
      expect(await snapshot(staffed._id)).toEqual(full);
      expect(before.rows).toEqual(full.rows);
    });
  });

  describe('GET /teams/{id}/suggested', () => {
    it('suggests people by shared tags, most first, never members, the owner or people blocked with the owner', async () => {
      const tg = (s: string) => `${tok}-${s}`;
      const names = ['s3', 's2', 's1', 'snone', 'sinvited', 'srequested', 'sactive', 'sblocked', 'sblocker'];
      const ppl = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await signUp(app, { username: u(n) })] as const)));
      const setTags = (p: Person, tags: string[]) => database.db.update(users).set({ tags }).where(eq(users.id, p.userId));
      await setTags(ppl.s3, [tg('synth'), tg('mixing'), tg('vocals'), 'unrelated']);
      await setTags(ppl.s2, [tg('vocals'), tg('mixing')]);
      await setTags(ppl.s1, [tg('synth')]);
      await setTags(ppl.snone, ['unrelated']);
      for (const n of ['sinvited', 'srequested', 'sactive', 'sblocked', 'sblocker']) await setTags(ppl[n], [tg('synth'), tg('mixing'), tg('vocals')]);
      await setTags(owner, [tg('synth'), tg('mixing'), tg('vocals')]);

      const t = await staffedTeam();
      const id = t._id;
      await api.update(owner, id, { tags: [tg('synth'), tg('mixing'), tg('vocals')] });
      await api.invite(owner, id, { userId: ppl.sinvited.userId });
      await api.request(ppl.srequested, id);
      await api.invite(owner, id, { userId: ppl.sactive.userId, status: 'active' });
      await block(owner.userId, ppl.sblocked.userId);
      await block(ppl.sblocker.userId, owner.userId);

      const res = await api.suggested(owner, id);
      api.ok(res);
      expect(res.body.items.map((p: { username: string }) => p.username)).toEqual([u('s3'), u('s2'), u('s1')]);
      expect(res.body.items[0].sharedTags).toEqual([tg('mixing'), tg('synth'), tg('vocals')].sort());
      expect(res.body.items[1].sharedTags).toEqual([tg('mixing'), tg('vocals')]);
      expect(Object.keys(res.body.items[0]).sort()).toEqual(['_id', 'avatarUrl', 'createdAt', 'imageUrl', 'name', 'sharedTags', 'tags', 'username']);
      expect(JSON.stringify(res.body)).not.toMatch(/email|phone|isAdmin|hasAdultAccess/);
      expect((await api.suggested(mgr, id)).body.items.map((p: { username: string }) => p.username)).toEqual([u('s3'), u('s2'), u('s1')]);

      // no looking-for tags: the attached project's tags, or those of a given project
      const p1 = await project(owner.userId, 'Vocals project', { tags: [tg('vocals')] });
      const p2 = await project(carol.userId, 'Synth project', { tags: [tg('synth')] });
      const bare = await newTeam(owner, { projectId: p1.id });
      // (members of the other team are not members of this one; people blocked with the owner stay out)
      const usernames = (r: Res) => r.body.items.map((p: { username: string }) => p.username).sort();
      expect(usernames(await api.suggested(owner, bare._id))).toEqual(['s3', 's2', 'sinvited', 'srequested', 'sactive'].map(u).sort());
      expect(usernames(await api.suggested(owner, bare._id, p2.id))).toEqual(['s3', 's1', 'sinvited', 'srequested', 'sactive'].map(u).sort());
      const nothing = await newTeam(owner);
      expect((await api.suggested(owner, nothing._id)).body).toEqual({ items: [] });

      refused(await api.suggested(carol, id), 403, M.teamSuggestNotAllowed);
      refused(await api.suggested(frank, id), 403, M.teamSuggestNotAllowed);
      refused(await api.suggested(null, id), 401, M.signInRequired);
      refused(await api.suggested(owner, UNKNOWN), 404, M.teamNotFound);
      refused(await api.suggested(owner, bare._id, UNKNOWN), 404, M.projectNotFound);
      await unblock(owner.userId, ppl.sblocked.userId);
      await unblock(ppl.sblocker.userId, owner.userId);
    });
  });

  describe('GET /teams/mine', () => {
    it('lists teams I own or have any row in, with my status and role; signed out is 401', async () => {
      const hank = await signUp(app, { username: u('hank') });
      const own = await newTeam(hank, { name: 'Hank own' });
      const invitedTo = await newTeam(owner, { name: 'Invites hank' });
      await api.invite(owner, invitedTo._id, { userId: hank.userId });
      const asked = await newTeam(carol, { name: 'Hank asked' });
      await api.request(hank, asked._id);
      const joined = await newTeam(dave, { name: 'Hank joined' });
      await api.invite(dave, joined._id, { userId: hank.userId, status: 'active' });
      await newTeam(erin, { name: 'Not hank' });

      const res = await api.mine(hank);
      api.ok(res);
      expect(res.body.total).toBe(4);
      expect(res.body.items.map((t: { name: string; myMembership: unknown }) => [t.name, t.myMembership])).toEqual([
        ['Hank joined', { status: 'active', role: 'member' }],
        ['Hank asked', { status: 'requested', role: 'member' }],
        ['Invites hank', { status: 'invited', role: 'member' }],
        ['Hank own', { status: 'active', role: 'manager' }],
      ]);
      expect(res.body.items[3]._id).toBe(own._id);
      refused(await api.mine(null), 401, M.signInRequired);
    });
  });
});

describe("a person's teams and a project's teams (teams.ofUser, teams.ofProject, and the service)", () => {
  it('lists the teams a person is active in, and the teams of a project with the first three members', async () => {
    const [ivy, jay, kim, lee, max] = await Promise.all(['of_ivy', 'of_jay', 'of_kim', 'of_lee', 'of_max'].map((n) => signUp(app, { username: n })));
    const [p] = await database.db.insert(projects).values({ ownerId: ivy.userId, title: 'Of project' }).returning();
    const a = (await call(app, ivy, { method: 'POST', url: '/api/teams', payload: { name: 'Ivy A', projectId: p.id } })).json();
    const b = (await call(app, ivy, { method: 'POST', url: '/api/teams', payload: { name: 'Ivy B', projectId: p.id } })).json();
    const c = (await call(app, kim, { method: 'POST', url: '/api/teams', payload: { name: 'Kim C' } })).json();
    for (const who of [jay, kim, lee])
      await call(app, ivy, { method: 'POST', url: `/api/teams/${a._id}/members`, payload: { userId: who.userId, status: 'active' } });
    await call(app, ivy, { method: 'POST', url: `/api/teams/${b._id}/members`, payload: { userId: jay.userId } }); // invited only
    await call(app, max, { method: 'POST', url: `/api/teams/${c._id}/members/request` }); // requested only

    const ofJay = await trpc(app, null, 'query', 'teams.ofUser', { userId: jay.userId });
    expect(ofJay.status).toBe(200);
    expect(ofJay.data.items.map((t: { name: string }) => t.name)).toEqual(['Ivy A']);
    const ofKim = await trpc(app, null, 'query', 'teams.ofUser', { userId: kim.userId });
    expect(ofKim.data.items.map((t: { name: string }) => t.name)).toEqual(['Kim C', 'Ivy A']);
    expect((await trpc(app, null, 'query', 'teams.ofUser', { userId: max.userId })).data).toEqual({ items: [], total: 0, nextCursor: null });
    expect((await trpc(app, null, 'query', 'teams.ofUser', { userId: UNKNOWN })).status).toBe(404);
    expect((await trpc(app, null, 'query', 'teams.ofUser', { userId: 'nope' })).error?.message).toBe(M.userNotFound);

    const ofProject = await trpc(app, null, 'query', 'teams.ofProject', { projectId: p.id });
    expect(ofProject.status).toBe(200);
    expect(ofProject.data.total).toBe(2);
    const [first, second] = ofProject.data.items;
    expect(first).toMatchObject({ name: 'Ivy B', memberCount: 1 });
    expect(second).toMatchObject({ name: 'Ivy A', memberCount: 4, projectTitle: 'Of project' });
    expect(second.members.map((m: { userId: string; role: string }) => [m.userId, m.role])).toEqual([
      [ivy.userId, 'manager'],
      [jay.userId, 'member'],
      [kim.userId, 'member'],
    ]);
    expect((await trpc(app, null, 'query', 'teams.ofProject', { projectId: UNKNOWN })).error?.message).toBe(M.projectNotFound);

    // the service functions another module wires (GET /api/public/users/{id}/teams)
    const actor = { user: null, session: null, ip: '127.0.0.1' };
    expect((await app.services.teams.teamsOfUser(actor, jay.userId, { limit: 20 })).items.map((t) => t._id)).toEqual([a._id]);
    expect((await app.services.teams.teamsOfProject(actor, p.id, { limit: 20 })).items.map((t) => t._id)).toEqual([b._id, a._id]);

    // an adult project's teams are hidden from people without access
    const [adult] = await database.db.insert(projects).values({ ownerId: ivy.userId, title: 'Adult', type: 'adult' }).returning();
    await database.db.update(users).set({ hasAdultAccess: true }).where(eq(users.id, ivy.userId));
    expect((await trpc(app, null, 'query', 'teams.ofProject', { projectId: adult.id })).status).toBe(404);
    // and the teams list filtered by that project answers as for an unknown one (nothing), on both doors
    const hiddenTeam = await call(app, ivy, { method: 'POST', url: '/api/teams', payload: { name: 'Of the adult project', projectId: adult.id } });
    expect(hiddenTeam.statusCode).toBe(201);
    const byProject = await call(app, null, { method: 'GET', url: `/api/teams?projectId=${adult.id}` });
    expect(byProject.json()).toMatchObject({ items: [], total: 0 });
    expect((await trpc(app, null, 'query', 'teams.list', { projectId: adult.id })).data).toMatchObject({ items: [], total: 0 });
    const forOwner = await call(app, ivy, { method: 'GET', url: `/api/teams?projectId=${adult.id}` });
    expect(forOwner.json()).toMatchObject({ total: 1, items: [{ name: 'Of the adult project' }] });
  });
});

describe('concurrent membership changes', () => {
  it('never makes two rows or skips a state when the same step arrives twice at once', async () => {
    const [own, pat, quinn, ray] = await Promise.all(['cc_own', 'cc_pat', 'cc_quinn', 'cc_ray'].map((n) => signUp(app, { username: n })));
    const t = (await call(app, own, { method: 'POST', url: '/api/teams', payload: { name: 'Race' } })).json();
    const url = `/api/teams/${t._id}/members`;

    const invites = await Promise.all([1, 2, 3].map(() => call(app, own, { method: 'POST', url, payload: { userId: pat.userId } })));
    expect(invites.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);

    const accepts = await Promise.all([1, 2].map(() => call(app, pat, { method: 'POST', url: `${url}/accept` })));
    expect(accepts.map((r) => r.statusCode).sort()).toEqual([200, 409]);

    // a request and an invite of the same person at once: one row, active
    const [req, inv] = await Promise.all([
      call(app, quinn, { method: 'POST', url: `${url}/request` }),
      call(app, own, { method: 'POST', url, payload: { userId: quinn.userId } }),
    ]);
    expect([req.statusCode, inv.statusCode]).toEqual([201, 201]);

    const requests = await Promise.all([1, 2, 3].map(() => call(app, ray, { method: 'POST', url: `${url}/request` })));
    expect(requests.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);

    const rows = await database.db.select().from(teamMembers).where(eq(teamMembers.teamId, t._id));
    expect(rows.map((r) => [r.userId, r.status]).sort()).toEqual(
      [
        [own.userId, 'active'],
        [pat.userId, 'active'],
        [quinn.userId, 'active'],
        [ray.userId, 'requested'],
      ].sort(),
    );
  });
});
