import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocks, changeHistory, users } from '../../db/schema';
import { buildTestApp, call, openTestDatabase, signUp, trpc } from '../../../../test/helpers';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let alice: Awaited<ReturnType<typeof signUp>>;
let bob: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  alice = await signUp(app, { username: 'u_alice' });
  bob = await signUp(app, { username: 'u_bob' });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const profile = (who: Parameters<typeof call>[1], payload: object) => call(app, who, { method: 'PUT', url: '/api/user/profile', payload });

describe('PUT /api/user/profile', () => {
  it('updates username, phone, name and tags, with history of the changed fields', async () => {
    const res = await profile(alice, { username: 'Alice_Prime', phone: '+1 555 0100', name: 'Alice Prime', tags: ['Painting', 'painting', ' Murals '] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ username: 'alice_prime', phone: '+1 555 0100', name: 'Alice Prime', tags: ['painting', 'murals'], email: alice.email });
    const history = await database.db.select().from(changeHistory).where(eq(changeHistory.key, alice.userId));
    expect(history.at(-1)?.fields.sort()).toEqual(['name', 'phone', 'tags', 'username']);
    const cleared = await profile(alice, { phone: '' });
    expect(cleared.json().phone).toBeNull();
  });

  it('refuses a taken username with 409, bad values with 400 and signed-out callers with 401, changing nothing', async () => {
    const taken = await profile(bob, { username: 'ALICE_PRIME' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({ error: 'That username is already taken' });
    expect((await profile(bob, { username: 'no spaces please' })).statusCode).toBe(400);
    expect((await profile(bob, { phone: 'call me maybe' })).statusCode).toBe(400);
    expect((await profile(bob, { tags: 'not-a-list' })).statusCode).toBe(400);
    expect((await profile(null, { username: 'ghost' })).statusCode).toBe(401);
    const [b] = await database.db.select().from(users).where(eq(users.id, bob.userId));
    expect(b.username).toBe('u_bob');
  });

  it('works through tRPC', async () => {
    expect((await trpc(app, bob, 'mutation', 'users.updateProfile', { tags: ['Sculpture'] })).data.tags).toEqual(['sculpture']);
    expect((await trpc(app, null, 'mutation', 'users.updateProfile', { tags: [] })).status).toBe(401);
    expect((await trpc(app, bob, 'mutation', 'users.updateProfile', { username: 'alice_prime' })).status).toBe(409);
  });
});

describe('public profiles', () => {
  let people: Record<string, string>;
  beforeAll(async () => {
    people = {};
    for (const [username, name, tags] of [
      ['dir_ana', 'Ana Lima', ['film', 'sound']],
      ['dir_bo', 'Bo Chen', ['film']],
      ['dir_cy', 'Cy Twombly', ['sound', 'paint']],
      ['dir_dee', 'Dee Jones', []],
    ] as const) {
      const u = await signUp(app, { username });
      await profile(u, { name, tags: [...tags] });
      people[username] = u.userId;
    }
  });
  const names = (body: { items: { username: string }[] }) => body.items.map((u) => u.username);

  it('never shows email, phone or flags', async () => {
    const res = await call(app, null, { method: 'GET', url: `/api/public/users/${alice.userId}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ _id: alice.userId, username: 'alice_prime', name: 'Alice Prime' });
    expect(Object.keys(res.json()).sort()).toEqual(['_id', 'avatarUrl', 'createdAt', 'imageUrl', 'name', 'tags', 'username']);
    const list = await call(app, null, { method: 'GET', url: '/api/public/users?limit=50' });
    expect(JSON.stringify(list.json())).not.toMatch(/@example\.com|phone|isAdmin|hasAdultAccess|role/);
    expect((await call(app, null, { method: 'GET', url: '/api/public/users/00000000-0000-4000-8000-000000000000' })).statusCode).toBe(404);
  });

  it('searches by name or username, whole or partial', async () => {
    expect(names((await call(app, null, { method: 'GET', url: '/api/public/users?q=lima' })).json())).toEqual(['dir_ana']);
    expect(names((await call(app, null, { method: 'GET', url: '/api/public/users?q=dir_b' })).json())).toEqual(['dir_bo']);
    expect(names((await call(app, null, { method: 'GET', url: '/api/public/users?q=twom' })).json())).toEqual(['dir_cy']);
  });

  it('filters by tags, any or all', async () => {
    const any = (await call(app, null, { method: 'GET', url: '/api/public/users?tags=film,sound' })).json();
    expect(names(any).sort()).toEqual(['dir_ana', 'dir_bo', 'dir_cy']);
    const all = (await call(app, null, { method: 'GET', url: '/api/public/users?tags=film&tags=sound&match=all' })).json();
    expect(names(all)).toEqual(['dir_ana']);
    expect(all.total).toBe(1);
    const single = (await call(app, null, { method: 'GET', url: '/api/public/users?tag=Paint' })).json();
    expect(names(single)).toEqual(['dir_cy']);
    expect((await call(app, null, { method: 'GET', url: '/api/public/users?match=some' })).statusCode).toBe(400);
  });

  it('pages 10, 20 or 50 at a time and caps bigger limits', async () => {
    const p1 = (await call(app, null, { method: 'GET', url: '/api/public/users?limit=2' })).json();
    const p2 = (await call(app, null, { method: 'GET', url: '/api/public/users?limit=2&page=2' })).json();
    expect(p1.items).toHaveLength(2);
    expect(p1.total).toBe(p2.total);
    expect(new Set([...names(p1), ...names(p2)]).size).toBe(4);
    expect((await call(app, null, { method: 'GET', url: '/api/public/users?limit=500' })).json().limit).toBe(50);
    expect((await call(app, null, { method: 'GET', url: '/api/public/users?page=0' })).statusCode).toBe(400);
  });

  it("lists a person's campaigns", async () => {
    await call(app, bob, { method: 'POST', url: '/api/campaigns', payload: { title: 'Bob campaign one' } });
    const res = await call(app, null, { method: 'GET', url: `/api/public/users/${bob.userId}/campaigns` });
    expect(res.json().items.map((c: { title: string }) => c.title)).toEqual(['Bob campaign one']);
    expect((await call(app, null, { method: 'GET', url: '/api/public/users/00000000-0000-4000-8000-000000000000/campaigns' })).statusCode).toBe(404);
    const viaTrpc = await trpc(app, null, 'query', 'users.campaigns', { userId: bob.userId });
    expect(viaTrpc.data.total).toBe(1);
    expect((await trpc(app, null, 'query', 'users.list', { q: 'lima' })).data.items[0].username).toBe('dir_ana');
    expect((await trpc(app, null, 'query', 'users.get', { id: people.dir_bo })).data.name).toBe('Bo Chen');
  });

  it('lists the teams a person is an active member of', async () => {
    const team = (await call(app, bob, { method: 'POST', url: '/api/teams', payload: { name: 'Bob band' } })).json();
    const res = await call(app, null, { method: 'GET', url: `/api/public/users/${bob.userId}/teams` });
    expect(res.statusCode).toBe(200);
    expect(res.json().items.map((t: { _id: string }) => t._id)).toEqual([team._id]);
    expect(res.json().items[0]).toMatchObject({ name: 'Bob band', memberCount: 1 });
    // an invite is not membership yet
    await call(app, bob, { method: 'POST', url: `/api/teams/${team._id}/members`, payload: { username: 'dir_ana' } });
    expect((await call(app, null, { method: 'GET', url: `/api/public/users/${people.dir_ana}/teams` })).json().items).toEqual([]);
    expect((await call(app, null, { method: 'GET', url: '/api/public/users/00000000-0000-4000-8000-000000000000/teams' })).statusCode).toBe(404);
  });
});

describe('blocks', () => {
  it('blocks, lists and unblocks; blocking twice is fine', async () => {
    const res = await call(app, alice, { method: 'POST', url: '/api/blocks', payload: { userId: bob.userId } });
    expect(res.statusCode).toBe(201);
    expect((await call(app, alice, { method: 'POST', url: '/api/blocks', payload: { userId: bob.userId } })).statusCode).toBe(201);
    const list = (await call(app, alice, { method: 'GET', url: '/api/blocks' })).json();
    expect(list.blocked).toHaveLength(1);
    expect(list.blocked[0]).toMatchObject({ userId: bob.userId, username: 'u_bob' });
    expect(JSON.stringify(list)).not.toContain(bob.email);
    expect((await call(app, bob, { method: 'GET', url: '/api/blocks' })).json().blocked).toEqual([]);
    const un = await call(app, alice, { method: 'DELETE', url: `/api/blocks/${bob.userId}` });
    expect(un.json()).toEqual({ blocked: false, userId: bob.userId });
    expect(await database.db.select().from(blocks).where(eq(blocks.blockerId, alice.userId))).toEqual([]);
  });

  it('refuses blocking yourself (400), an unknown person (404) and signed-out callers (401)', async () => {
    expect((await call(app, alice, { method: 'POST', url: '/api/blocks', payload: { userId: alice.userId } })).json()).toEqual({
      error: 'You cannot block yourself',
    });
    expect((await call(app, alice, { method: 'POST', url: '/api/blocks', payload: { userId: '00000000-0000-4000-8000-000000000000' } })).statusCode).toBe(404);
    expect((await call(app, alice, { method: 'POST', url: '/api/blocks', payload: {} })).statusCode).toBe(400);
    expect((await call(app, null, { method: 'POST', url: '/api/blocks', payload: { userId: bob.userId } })).statusCode).toBe(401);
    expect((await call(app, null, { method: 'GET', url: '/api/blocks' })).statusCode).toBe(401);
    expect((await call(app, null, { method: 'DELETE', url: `/api/blocks/${bob.userId}` })).statusCode).toBe(401);
  });

  it('works through tRPC', async () => {
    expect((await trpc(app, bob, 'mutation', 'blocks.block', { userId: alice.userId })).data).toEqual({ blocked: true, userId: alice.userId });
    expect((await trpc(app, bob, 'query', 'blocks.list')).data.blocked[0].userId).toBe(alice.userId);
    expect((await trpc(app, bob, 'mutation', 'blocks.unblock', { userId: alice.userId })).data.blocked).toBe(false);
    expect((await trpc(app, null, 'query', 'blocks.list')).status).toBe(401);
  });
});
