import { and, count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { changeHistory, favorites, projectFollows, projects, teams, users } from '../../db/schema';
import { buildTestApp, call, openTestDatabase, signUp, trpc, uploadImages, type Client } from '../../../../test/helpers';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let alice: Awaited<ReturnType<typeof signUp>>;
let bob: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  alice = await signUp(app, { username: 'p_alice' });
  bob = await signUp(app, { username: 'p_bob' });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const projectCount = async () => (await database.db.select({ n: count() }).from(projects))[0].n;
async function create(who: Client, payload: Record<string, unknown>) {
  const res = await call(app, who, { method: 'POST', url: '/api/projects', payload });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

describe('POST /api/projects', () => {
  it('creates a project with the campaign fields plus targetType', async () => {
    const [cover] = await uploadImages(app, alice, 1, 'cover');
    const gallery = await uploadImages(app, alice, 1);
    const res = await call(app, alice, {
      method: 'POST',
      url: '/api/projects',
      payload: { title: 'Open-source loom', targetType: 'supporters', goalAmount: 50, tags: ['Weaving'], imageUrl: cover.url, images: gallery, type: 'code' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      title: 'Open-source loom',
      targetType: 'supporters',
      goalAmount: 50,
      tags: ['weaving'],
      type: 'code',
      imageUrl: cover.url,
      coverUrl: cover.url,
      images: [{ url: gallery[0].url, secure_url: gallery[0].url, alt: gallery[0].alt }],
      totalRaised: 0,
      supporters: 0,
      following: false,
      ownerId: { _id: alice.userId, username: 'p_alice' },
    });
  });

  it('refuses bad input, signed-out callers and adult without access, storing nothing', async () => {
    const before = await projectCount();
    for (const [who, payload, status] of [
      [alice, { title: '' }, 400],
      [alice, { title: 'X', targetType: 'likes' }, 400],
      [alice, { title: 'X', goalAmount: -3 }, 400],
      [null, { title: 'X' }, 401],
      [alice, { title: 'X', type: 'adult' }, 403],
      [alice, { title: 'X', targetType: 'supporters', goalAmount: 12.5 }, 400],
    ] as const) {
      const res = await call(app, who, { method: 'POST', url: '/api/projects', payload });
      expect(res.statusCode).toBe(status);
      expect(res.json().error).toBeTruthy();
    }
    expect(await projectCount()).toBe(before);
  });
});

describe('PUT and DELETE /api/projects/{id}', () => {
  it('lets the owner edit and delete; a delete takes its follows and favorites and frees its teams', async () => {
    const p = await create(alice, { title: 'Editable', tags: ['old'] });
    const edited = await call(app, alice, { method: 'PUT', url: `/api/projects/${p._id}`, payload: { title: 'Edited', tags: ['new'] } });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({ title: 'Edited', tags: ['new'] });

    await call(app, bob, { method: 'POST', url: `/api/project-follow/${p._id}` });
    await database.db.insert(favorites).values({ userId: bob.userId, targetType: 'project', targetId: p._id });
    const [team] = await database.db.insert(teams).values({ ownerId: alice.userId, name: 'Loom crew', projectId: p._id }).returning();

    const del = await call(app, alice, { method: 'DELETE', url: `/api/projects/${p._id}` });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await call(app, null, { method: 'GET', url: `/api/projects/${p._id}` })).statusCode).toBe(404);
    expect(await database.db.select().from(projectFollows).where(eq(projectFollows.projectId, p._id))).toEqual([]);
    expect(
      await database.db
        .select()
        .from(favorites)
        .where(and(eq(favorites.targetType, 'project'), eq(favorites.targetId, p._id))),
    ).toEqual([]);
    const [detached] = await database.db.select().from(teams).where(eq(teams.id, team.id));
    expect(detached.projectId).toBeNull();
    const history = await database.db.select().from(changeHistory).where(eq(changeHistory.key, p._id));
    expect(history.map((h) => h.action).sort()).toEqual(['create', 'delete', 'update']);
  });

  it("refuses someone else's project: edit and delete are 403, signed out 401, unknown 404", async () => {
    const p = await create(alice, { title: 'Not yours' });
    const edit = await call(app, bob, { method: 'PUT', url: `/api/projects/${p._id}`, payload: { title: 'Mine' } });
    expect(edit.statusCode).toBe(403);
    const del = await call(app, bob, { method: 'DELETE', url: `/api/projects/${p._id}` });
    expect(del.statusCode).toBe(403);
    expect((await call(app, null, { method: 'DELETE', url: `/api/projects/${p._id}` })).statusCode).toBe(401);
    expect((await call(app, null, { method: 'PUT', url: `/api/projects/${p._id}`, payload: { title: 'x' } })).statusCode).toBe(401);
    expect((await call(app, alice, { method: 'DELETE', url: '/api/projects/00000000-0000-4000-8000-000000000000' })).statusCode).toBe(404);
    const bad = await call(app, alice, { method: 'PUT', url: `/api/projects/${p._id}`, payload: { currency: 'BTC' } });
    expect(bad.statusCode).toBe(400);
    expect((await call(app, null, { method: 'GET', url: `/api/projects/${p._id}` })).json().title).toBe('Not yours');
  });
});

describe('GET /api/projects filters', () => {
  it('narrows by my, ownerId and projectId', async () => {
    const frank = await signUp(app, { username: 'p_frank' });
    const a = await create(frank, { title: 'Frank one' });
    const b = await create(frank, { title: 'Frank two' });
    const mine = (await call(app, frank, { method: 'GET', url: '/api/projects?my=true' })).json();
    expect(mine.items.map((i: { _id: string }) => i._id)).toEqual([b._id, a._id]);
    expect(mine.total).toBe(2);
    expect((await call(app, null, { method: 'GET', url: '/api/projects?my=true' })).statusCode).toBe(401);
    // a page is full: a cursor only when there is more
    expect((await call(app, frank, { method: 'GET', url: '/api/projects?my=true&limit=2' })).json().nextCursor).toBeNull();
    const first = (await call(app, frank, { method: 'GET', url: '/api/projects?my=true&limit=1' })).json();
    expect(first.nextCursor).not.toBeNull();
    const second = (await call(app, frank, { method: 'GET', url: `/api/projects?my=true&limit=1&cursor=${first.nextCursor}` })).json();
    expect(second.items.map((i: { _id: string }) => i._id)).toEqual([a._id]);
    expect(second.nextCursor).toBeNull();
    const byOwner = (await call(app, null, { method: 'GET', url: `/api/projects?ownerId=${frank.userId}` })).json();
    expect(byOwner.total).toBe(2);
    const one = (await call(app, null, { method: 'GET', url: `/api/projects?projectId=${a._id}` })).json();
    expect(one.items.map((i: { _id: string }) => i._id)).toEqual([a._id]);
    expect((await call(app, null, { method: 'GET', url: '/api/projects?ownerId=nobody' })).json()).toMatchObject({ items: [], total: 0 });
  });

  it('searches and hides adult projects from people without access', async () => {
    const gina = await signUp(app, { username: 'p_gina' });
    await database.db.update(users).set({ hasAdultAccess: true }).where(eq(users.id, gina.userId));
    const hidden = await create(gina, { title: 'Velvet room', type: 'adult', description: 'speakeasy' });
    const visible = await create(gina, { title: 'Velvet curtains', description: 'speakeasy decor' });
    const forBob = (await call(app, bob, { method: 'GET', url: '/api/projects?q=speakeasy' })).json();
    expect(forBob.items.map((i: { _id: string }) => i._id)).toEqual([visible._id]);
    const forGina = (await call(app, gina, { method: 'GET', url: '/api/projects?q=speakeasy' })).json();
    expect(forGina.total).toBe(2);
    expect((await call(app, bob, { method: 'GET', url: `/api/projects/${hidden._id}` })).statusCode).toBe(404);
  });

  it('leave and rejoin the public list when their owner changes the category', async () => {
    const hana = await signUp(app, { username: 'p_hana' });
    await database.db.update(users).set({ hasAdultAccess: true }).where(eq(users.id, hana.userId));
    const p = await create(hana, { title: 'Shifting category' });
    const before = (await call(app, null, { method: 'GET', url: '/api/projects' })).json().total;
    const toAdult = await call(app, hana, { method: 'PUT', url: `/api/projects/${p._id}`, payload: { type: 'adult' } });
    expect(toAdult.statusCode).toBe(200);
    expect((await call(app, null, { method: 'GET', url: '/api/projects' })).json().total).toBe(before - 1);
    const back = await trpc(app, hana, 'mutation', 'projects.update', { id: p._id, data: { type: 'music' } });
    expect(back.data.type).toBe('music');
    expect((await call(app, null, { method: 'GET', url: '/api/projects' })).json().total).toBe(before);
  });
});

describe('POST and DELETE /api/project-follow/{id}', () => {
  it('follows and unfollows idempotently with the follower count', async () => {
    const p = await create(alice, { title: 'Followable' });
    const f1 = await call(app, bob, { method: 'POST', url: `/api/project-follow/${p._id}` });
    expect(f1.json()).toEqual({ following: true, followers: 1 });
    const f2 = await call(app, bob, { method: 'POST', url: `/api/project-follow/${p._id}` });
    expect(f2.json()).toEqual({ following: true, followers: 1 });
    const asBob = (await call(app, bob, { method: 'GET', url: `/api/projects/${p._id}` })).json();
    expect(asBob).toMatchObject({ following: true, supporters: 1 });
    expect((await call(app, alice, { method: 'GET', url: `/api/projects/${p._id}` })).json().following).toBe(false);
    const u1 = await call(app, bob, { method: 'DELETE', url: `/api/project-follow/${p._id}` });
    expect(u1.json()).toEqual({ following: false, followers: 0 });
    const u2 = await call(app, bob, { method: 'DELETE', url: `/api/project-follow/${p._id}` });
    expect(u2.json()).toEqual({ following: false, followers: 0 });
    expect((await call(app, null, { method: 'POST', url: `/api/project-follow/${p._id}` })).statusCode).toBe(401);
    expect((await call(app, bob, { method: 'POST', url: '/api/project-follow/00000000-0000-4000-8000-000000000000' })).statusCode).toBe(404);
  });
});

describe('the tRPC door', () => {
  it('creates, lists, updates, follows and deletes with the same rules', async () => {
    const created = await trpc(app, alice, 'mutation', 'projects.create', { title: 'tRPC project', targetType: 'supporters' });
    expect(created.data.targetType).toBe('supporters');
    const id = created.data._id;
    expect((await trpc(app, alice, 'query', 'projects.list', { my: true })).data.items.map((i: { _id: string }) => i._id)).toContain(id);
    expect((await trpc(app, null, 'query', 'projects.list', { my: true })).status).toBe(401);
    expect((await trpc(app, bob, 'mutation', 'projects.update', { id, data: { title: 'No' } })).status).toBe(403);
    expect((await trpc(app, alice, 'mutation', 'projects.update', { id, data: { title: 'Yes' } })).data.title).toBe('Yes');
    expect((await trpc(app, bob, 'mutation', 'projects.follow', { id })).data).toEqual({ following: true, followers: 1 });
    expect((await trpc(app, bob, 'mutation', 'projects.unfollow', { id })).data).toEqual({ following: false, followers: 0 });
    expect((await trpc(app, bob, 'mutation', 'projects.delete', { id })).status).toBe(403);
    expect((await trpc(app, alice, 'mutation', 'projects.delete', { id })).data).toEqual({ deleted: true });
    expect((await trpc(app, null, 'query', 'projects.get', { id })).status).toBe(404);
  });
});

describe('GET /api/tags', () => {
  it('suggests tags in use, best match first, six by default, and forgets unused ones', async () => {
    const hank = await signUp(app, { username: 'p_hank' });
    await create(hank, { title: 'T1', tags: ['zeta', 'zetaphone', 'alphazeta'] });
    await create(hank, { title: 'T2', tags: ['zetaphone'] });
    const p = await create(hank, { title: 'T3', tags: ['zetaonly'] });
    const res = await call(app, null, { method: 'GET', url: '/api/tags?q=Zeta' });
    expect(res.json().tags).toEqual(['zeta', 'zetaphone', 'zetaonly', 'alphazeta']);
    await call(app, hank, { method: 'DELETE', url: `/api/projects/${p._id}` });
    expect((await call(app, null, { method: 'GET', url: '/api/tags?q=zetaonly' })).json().tags).toEqual([]);
    for (let i = 0; i < 8; i++) await create(hank, { title: `M${i}`, tags: [`manytag${i}`] });
    expect((await call(app, null, { method: 'GET', url: '/api/tags?q=manytag' })).json().tags).toHaveLength(6);
    expect((await trpc(app, null, 'query', 'tags.search', { q: 'zetaph' })).data.tags).toEqual(['zetaphone']);
  });
});

describe('GET /api/public/users/suggested', () => {
  it('suggests people by shared tags, most shared first, never the owner or private fields', async () => {
    const owner = await signUp(app, { username: 's_owner' });
    const two = await signUp(app, { username: 's_two' });
    const one = await signUp(app, { username: 's_one' });
    await signUp(app, { username: 's_none' });
    await database.db
      .update(users)
      .set({ tags: ['ceramics', 'kiln', 'glaze'] })
      .where(eq(users.id, owner.userId));
    await database.db
      .update(users)
      .set({ tags: ['kiln', 'glaze', 'music'] })
      .where(eq(users.id, two.userId));
    await database.db
      .update(users)
      .set({ tags: ['glaze'] })
      .where(eq(users.id, one.userId));
    const p = await create(owner, { title: 'Pottery studio', tags: ['kiln', 'glaze', 'ceramics'] });
    expect((await call(app, null, { method: 'GET', url: `/api/public/users/suggested?projectId=${p._id}` })).statusCode).toBe(401);
    expect((await call(app, one, { method: 'GET', url: `/api/public/users/suggested?projectId=${p._id}` })).statusCode).toBe(403);
    const res = await call(app, owner, { method: 'GET', url: `/api/public/users/suggested?projectId=${p._id}` });
    expect(res.statusCode).toBe(200);
    const items = res.json().items;
    expect(items.map((u: { username: string }) => u.username)).toEqual(['s_two', 's_one']);
    expect(items[0].sharedTags).toEqual(['glaze', 'kiln']);
    expect(JSON.stringify(items)).not.toMatch(/email|phone|isAdmin|hasAdultAccess/);
    expect((await call(app, owner, { method: 'GET', url: '/api/public/users/suggested?projectId=nope' })).statusCode).toBe(404);
    expect((await call(app, owner, { method: 'GET', url: '/api/public/users/suggested' })).statusCode).toBe(400);
    expect((await trpc(app, owner, 'query', 'users.suggested', { projectId: p._id })).data.items).toHaveLength(2);
    expect((await trpc(app, two, 'query', 'users.suggested', { projectId: p._id })).status).toBe(403);
  });

  it('never suggests anyone the owner blocked or who blocked the owner, through either door', async () => {
    const owner = await signUp(app, { username: 'sb_owner' });
    const blockedByOwner = await signUp(app, { username: 'sb_blocked' });
    const blocksOwner = await signUp(app, { username: 'sb_blocker' });
    const fine = await signUp(app, { username: 'sb_fine' });
    for (const who of [blockedByOwner, blocksOwner, fine]) {
      await database.db
        .update(users)
        .set({ tags: ['loomwork'] })
        .where(eq(users.id, who.userId));
    }
    const p = await create(owner, { title: 'Loom circle', tags: ['loomwork'] });
    const viaRest = async () =>
      (await call(app, owner, { method: 'GET', url: `/api/public/users/suggested?projectId=${p._id}` }))
        .json()
        .items.map((u: { username: string }) => u.username);
    const viaTrpc = async () =>
      (await trpc(app, owner, 'query', 'users.suggested', { projectId: p._id })).data.items.map((u: { username: string }) => u.username);
    expect(await viaRest()).toEqual(['sb_blocked', 'sb_blocker', 'sb_fine']);
    expect((await call(app, owner, { method: 'POST', url: '/api/blocks', payload: { userId: blockedByOwner.userId } })).statusCode).toBe(201);
    expect((await call(app, blocksOwner, { method: 'POST', url: '/api/blocks', payload: { userId: owner.userId } })).statusCode).toBe(201);
    expect(await viaRest()).toEqual(['sb_fine']);
    expect(await viaTrpc()).toEqual(['sb_fine']);
    // unblocked, they are suggested again
    await call(app, owner, { method: 'DELETE', url: `/api/blocks/${blockedByOwner.userId}` });
    expect(await viaTrpc()).toEqual(['sb_blocked', 'sb_fine']);
  });
});

describe('discover projects: category and most followed, on both doors', () => {
  it('filters by category, sorts by followers (then newest id), pages by cursor and refuses bad values with 400', async () => {
    const judy = await signUp(app, { username: 'judy' });
    const quiet = await create(judy, { title: 'Findme quiet', type: 'research' });
    const loved = await create(judy, { title: 'Findme loved', type: 'design' });
    for (const who of [alice, bob]) await call(app, who, { method: 'POST', url: `/api/project-follow/${loved._id}` });
    const ids = (body: { items: { _id: string }[] }) => body.items.map((i) => i._id);
    const rest = async (qs: string) => (await call(app, null, { method: 'GET', url: `/api/projects?${qs}` })).json();
    expect(ids(await rest('q=findme&sort=supported'))).toEqual([loved._id, quiet._id]);
    expect(ids(await rest('q=findme'))).toEqual([loved._id, quiet._id]);
    expect(ids(await rest('type=research&q=findme'))).toEqual([quiet._id]);
    // the category's name is a search word
    expect(ids(await rest('q=research'))).toContain(quiet._id);
    expect(ids((await trpc(app, null, 'query', 'projects.list', { q: 'findme', sort: 'supported', type: 'design' })).data)).toEqual([loved._id]);
    const first = await rest('q=findme&sort=supported&limit=1');
    expect(ids(first)).toEqual([loved._id]);
    expect(ids(await rest(`q=findme&sort=supported&limit=1&cursor=${first.nextCursor}`))).toEqual([quiet._id]);
    // unfollowing moves it back
    for (const who of [alice, bob]) await call(app, who, { method: 'DELETE', url: `/api/project-follow/${loved._id}` });
    expect(ids(await rest('q=findme&sort=supported'))).toEqual([loved._id, quiet._id].sort().reverse());
    for (const [qs, input, message] of [
      ['sort=ending', { sort: 'ending' }, M.projectSortInvalid],
      ['type=cooking', { type: 'cooking' }, M.typeInvalid],
      [`sort=newest&cursor=${first.nextCursor}`, { sort: 'newest', cursor: first.nextCursor }, M.cursorInvalid],
    ] as const) {
      const res = await call(app, null, { method: 'GET', url: `/api/projects?${qs}` });
      expect(res.statusCode, qs).toBe(400);
      expect(res.json().error).toBe(message);
      const viaTrpc = await trpc(app, null, 'query', 'projects.list', input);
      expect(viaTrpc.status).toBe(400);
      expect(viaTrpc.error?.message).toBe(message);
    }
  });
});
