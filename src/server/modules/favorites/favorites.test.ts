import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { favorites, users } from '../../db/schema';
import { buildTestApp, call, openTestDatabase, signUp, trpc, type Client } from '../../../../test/helpers';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let alice: Awaited<ReturnType<typeof signUp>>;
let bob: Awaited<ReturnType<typeof signUp>>;
let campaignId: string;
let projectId: string;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  alice = await signUp(app, { username: 'f_alice' });
  bob = await signUp(app, { username: 'f_bob' });
  campaignId = (await call(app, bob, { method: 'POST', url: '/api/campaigns', payload: { title: 'Bob’s campaign' } })).json()._id;
  projectId = (await call(app, bob, { method: 'POST', url: '/api/projects', payload: { title: 'Bob’s project' } })).json()._id;
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const fav = (who: Client | null, method: 'POST' | 'DELETE', targetType: string, targetId: string) =>
  call(app, who, { method, url: '/api/favorites', payload: { targetType, targetId } });
const rows = (userId: string) => database.db.select().from(favorites).where(eq(favorites.userId, userId));

describe('favorites', () => {
  it('adds a campaign, a project and a profile once each, even when added twice', async () => {
    for (const [type, id] of [
      ['campaign', campaignId],
      ['project', projectId],
      ['profile', bob.userId],
    ]) {
      const first = await fav(alice, 'POST', type, id);
      expect(first.statusCode).toBe(200);
      expect(first.json()).toMatchObject({ targetType: type, targetId: id });
      const again = await fav(alice, 'POST', type, id);
      expect(again.json()._id).toBe(first.json()._id);
    }
    expect(await rows(alice.userId)).toHaveLength(3);
  });

  it('lists them by type with the thing itself, newest first, and never another person’s', async () => {
    const all = (await call(app, alice, { method: 'GET', url: '/api/favorites' })).json().items;
    expect(all.map((f: { targetType: string }) => f.targetType)).toEqual(['profile', 'project', 'campaign']);
    const campaignsOnly = (await call(app, alice, { method: 'GET', url: '/api/favorites?type=campaign' })).json().items;
    expect(campaignsOnly).toHaveLength(1);
    expect(campaignsOnly[0].campaign).toMatchObject({ _id: campaignId, title: 'Bob’s campaign' });
    const profile = (await call(app, alice, { method: 'GET', url: '/api/favorites?type=profile' })).json().items[0];
    expect(profile.profile).toMatchObject({ _id: bob.userId, username: 'f_bob' });
    expect(JSON.stringify(profile)).not.toContain(bob.email);
    expect((await call(app, bob, { method: 'GET', url: '/api/favorites' })).json().items).toEqual([]);
  });

  it('removes a favorite (and removing again is fine)', async () => {
    expect((await fav(alice, 'DELETE', 'profile', bob.userId)).json()).toEqual({ favorited: false });
    expect((await fav(alice, 'DELETE', 'profile', bob.userId)).statusCode).toBe(200);
    expect((await rows(alice.userId)).map((r) => r.targetType).sort()).toEqual(['campaign', 'project']);
  });

  it('refuses unknown targets (404), bad input (400) and signed-out callers (401), storing nothing', async () => {
    const before = (await rows(alice.userId)).length;
    expect((await fav(alice, 'POST', 'campaign', '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await fav(alice, 'POST', 'project', campaignId)).statusCode).toBe(404);
    expect((await fav(alice, 'POST', 'profile', 'not-an-id')).statusCode).toBe(404);
    const bad = await fav(alice, 'POST', 'team', campaignId);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'targetType must be campaign, project or profile' });
    expect((await call(app, alice, { method: 'POST', url: '/api/favorites', payload: {} })).statusCode).toBe(400);
    expect((await fav(null, 'POST', 'campaign', campaignId)).statusCode).toBe(401);
    expect((await call(app, null, { method: 'GET', url: '/api/favorites' })).statusCode).toBe(401);
    expect((await rows(alice.userId)).length).toBe(before);
  });

  it('drops the favorite of a deleted project, and hides an adult target from someone without access', async () => {
    const p = (await call(app, bob, { method: 'POST', url: '/api/projects', payload: { title: 'Short-lived' } })).json();
    await fav(alice, 'POST', 'project', p._id);
    await call(app, bob, { method: 'DELETE', url: `/api/projects/${p._id}` });
    const list = (await call(app, alice, { method: 'GET', url: '/api/favorites?type=project' })).json().items;
    expect(list.map((f: { targetId: string }) => f.targetId)).not.toContain(p._id);
    expect(await database.db.select().from(favorites).where(and(eq(favorites.targetType, 'project'), eq(favorites.targetId, p._id)))).toEqual([]);

    await database.db.update(users).set({ hasAdultAccess: true }).where(eq(users.id, bob.userId));
    const adult = (await call(app, bob, { method: 'POST', url: '/api/campaigns', payload: { title: 'Adult', type: 'adult' } })).json();
    expect((await fav(alice, 'POST', 'campaign', adult._id)).statusCode).toBe(404);
  });

  it('works through tRPC with the same rules', async () => {
    const c = (await call(app, bob, { method: 'POST', url: '/api/campaigns', payload: { title: 'tRPC fav' } })).json();
    expect((await trpc(app, alice, 'mutation', 'favorites.add', { targetType: 'campaign', targetId: c._id })).data.targetId).toBe(c._id);
    expect((await trpc(app, alice, 'query', 'favorites.ids', { type: 'campaign' })).data.ids).toContain(c._id);
    expect((await trpc(app, null, 'query', 'favorites.ids', { type: 'campaign' })).data.ids).toEqual([]);
    expect((await trpc(app, alice, 'query', 'favorites.list', { type: 'campaign' })).data.items.map((f: { targetId: string }) => f.targetId)).toContain(c._id);
    expect((await trpc(app, alice, 'mutation', 'favorites.remove', { targetType: 'campaign', targetId: c._id })).data).toEqual({ favorited: false });
    expect((await trpc(app, null, 'mutation', 'favorites.add', { targetType: 'campaign', targetId: c._id })).status).toBe(401);
    expect((await trpc(app, alice, 'mutation', 'favorites.add', { targetType: 'campaign', targetId: '00000000-0000-4000-8000-000000000000' })).status).toBe(404);
  });
});
