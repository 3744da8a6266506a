import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaigns, favorites, users } from '../../db/schema';
import { buildTestApp, call, openTestDatabase, signUp, trpc, type Client } from '../../../../test/helpers';
import { checkCap, checkPaging, groupedTimes, insertPeople, newestFirst, restPages, trpcPages, walk } from '../users/paging-checks';

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
    expect(
      await database.db
        .select()
        .from(favorites)
        .where(and(eq(favorites.targetType, 'project'), eq(favorites.targetId, p._id))),
    ).toEqual([]);

    await database.db.update(users).set({ hasAdultAccess: true }).where(eq(users.id, bob.userId));
    const adult = (await call(app, bob, { method: 'POST', url: '/api/campaigns', payload: { title: 'Adult', type: 'adult' } })).json();
    expect((await fav(alice, 'POST', 'campaign', adult._id)).statusCode).toBe(404);
  });

  it('works through tRPC with the same rules', async () => {
    const c = (await call(app, bob, { method: 'POST', url: '/api/campaigns', payload: { title: 'tRPC fav' } })).json();
    expect((await trpc(app, alice, 'mutation', 'favorites.add', { targetType: 'campaign', targetId: c._id })).data.targetId).toBe(c._id);
    expect((await trpc(app, alice, 'query', 'favorites.ids', { type: 'campaign', targetIds: [c._id] })).data.ids).toEqual([c._id]);
    expect((await trpc(app, null, 'query', 'favorites.ids', { type: 'campaign', targetIds: [c._id] })).data.ids).toEqual([]);
    expect((await trpc(app, alice, 'query', 'favorites.list', { type: 'campaign' })).data.items.map((f: { targetId: string }) => f.targetId)).toContain(c._id);
    expect((await trpc(app, alice, 'mutation', 'favorites.remove', { targetType: 'campaign', targetId: c._id })).data).toEqual({ favorited: false });
    expect((await trpc(app, null, 'mutation', 'favorites.add', { targetType: 'campaign', targetId: c._id })).status).toBe(401);
    expect((await trpc(app, alice, 'mutation', 'favorites.add', { targetType: 'campaign', targetId: '00000000-0000-4000-8000-000000000000' })).status).toBe(
      404,
    );
  });
});

describe('favorites.ids: which of the ids a page shows are my favorites', () => {
  let asker: Awaited<ReturnType<typeof signUp>>;
  let other: Awaited<ReturnType<typeof signUp>>;
  /** 5 campaigns; asker favorites the 1st, 3rd and 5th */
  let made: string[];
  const ask = (who: Client | null, input: unknown) => trpc(app, who, 'query', 'favorites.ids', input);
  const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

  beforeAll(async () => {
    asker = await signUp(app, { username: 'f_asker' });
    other = await signUp(app, { username: 'f_other' });
    made = (
      await database.db
        .insert(campaigns)
        .values(Array.from({ length: 5 }, (_, i) => ({ ownerId: bob.userId, title: `Asked ${i}` })))
        .returning({ id: campaigns.id })
    ).map((c) => c.id);
    for (const id of [made[0], made[2], made[4]]) expect((await fav(asker, 'POST', 'campaign', id)).statusCode).toBe(200);
    // the 2nd is someone else's favorite
    expect((await fav(other, 'POST', 'campaign', made[1])).statusCode).toBe(200);
  });

  it('answers the favorited subset of the asked ids, in the order asked', async () => {
    const res = await ask(asker, { type: 'campaign', targetIds: [made[4], made[1], made[0], made[3], made[2]] });
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ ids: [made[4], made[0], made[2]] });
    expect((await ask(asker, { type: 'campaign', targetIds: [made[1], made[3]] })).data).toEqual({ ids: [] });
    expect((await ask(asker, { type: 'campaign', targetIds: [] })).data).toEqual({ ids: [] });
    // only what was asked: favorites not asked about are not told
    expect((await ask(asker, { type: 'campaign', targetIds: [made[0]] })).data).toEqual({ ids: [made[0]] });
  });

  it('answers only for the asked type, only my own favorites, and none when signed out', async () => {
    expect((await ask(asker, { type: 'project', targetIds: made })).data).toEqual({ ids: [] });
    expect((await ask(other, { type: 'campaign', targetIds: made })).data).toEqual({ ids: [made[1]] });
    expect((await ask(null, { type: 'campaign', targetIds: made })).data).toEqual({ ids: [] });
  });

  it('treats ids that are not uuids as not favorites, and a repeated id once', async () => {
    const res = await ask(asker, { type: 'campaign', targetIds: ['not-an-id', '', made[0], "x' or 1=1 --", made[0], made[0].toUpperCase()] });
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ ids: [made[0]] });
  });

  it('answers up to 100 ids, and refuses 101 with a 400 that says so', async () => {
    const hundred = [...made, ...Array.from({ length: 95 }, (_, i) => uuid(i))];
    const ok = await ask(asker, { type: 'campaign', targetIds: hundred });
    expect(ok.status).toBe(200);
    expect(ok.data).toEqual({ ids: [made[0], made[2], made[4]] });
    const over = await ask(asker, { type: 'campaign', targetIds: [...hundred, uuid(100)] });
    expect(over.status).toBe(400);
    expect(over.error?.message).toBe('targetIds can hold at most 100 ids');
    expect(over.data).toBeUndefined();
  });

  it('refuses a question without ids or with an unknown type (400)', async () => {
    expect((await ask(asker, { type: 'campaign' })).status).toBe(400);
    const badType = await ask(asker, { type: 'team', targetIds: made });
    expect(badType.status).toBe(400);
    expect(badType.error?.message).toBe('targetType must be campaign, project or profile');
  });
});

describe('favorites, paged (both doors)', () => {
  type Row = { id: string; targetId: string; createdAt: Date };
  let pager: Awaited<ReturnType<typeof signUp>>;
  let capper: Awaited<ReturnType<typeof signUp>>;
  /** pager's 45 campaign favorites, newest first */
  let expected: Row[];
  /** capper's 105 profile favorites, newest first */
  let expectedCap: Row[];

  beforeAll(async () => {
    pager = await signUp(app, { username: 'f_pager' });
    capper = await signUp(app, { username: 'f_capper' });
    // the rows are not the subject: straight into the tables
    const made = await database.db
      .insert(campaigns)
      .values(Array.from({ length: 45 }, (_, i) => ({ ownerId: bob.userId, title: `Paged campaign ${i}` })))
      .returning({ id: campaigns.id });
    const times = groupedTimes(45);
    expected = newestFirst(
      await database.db
        .insert(favorites)
        .values(made.map((c, i) => ({ userId: pager.userId, targetType: 'campaign' as const, targetId: c.id, createdAt: times[i] })))
        .returning(),
    );
    const people = await insertPeople(database.db, 105, 'fp');
    const capTimes = groupedTimes(105);
    expectedCap = newestFirst(
      await database.db
        .insert(favorites)
        .values(people.map((id, i) => ({ userId: capper.userId, targetType: 'profile' as const, targetId: id, createdAt: capTimes[i] })))
        .returning(),
    );
  });

  const ids = (body: { items: { targetId: string }[] }) => body.items.map((f) => f.targetId);
  const doors = (who: Client | null, type?: string) => ({
    rest: restPages(app, who, `/api/favorites${type ? `?type=${type}` : ''}`, ids),
    trpc: trpcPages(app, who, 'favorites.list', type ? { type } : {}, ids),
  });

  it.each(['rest', 'trpc'] as const)('pages 20 at a time by cursor, newest first, with or without a type (%s)', async (door) => {
    await checkPaging(
      doors(pager, 'campaign')[door],
      expected.map((r) => r.targetId),
      20,
    );
    expect((await walk(doors(pager)[door], 20)).ids).toEqual(expected.map((r) => r.targetId));
    // the thing itself comes with each
    const first = await call(app, pager, { method: 'GET', url: '/api/favorites?type=campaign&limit=1' });
    expect(first.json().items[0]).toMatchObject({ targetId: expected[0].targetId, campaign: { _id: expected[0].targetId } });
    expect(Object.keys(first.json()).sort()).toEqual(['items', 'nextCursor']);
    // another type: none
    expect((await walk(doors(pager, 'project')[door])).ids).toEqual([]);
  });

  it.each(['rest', 'trpc'] as const)('caps a limit above 100 at 100 (%s)', async (door) => {
    await checkCap(
      doors(capper, 'profile')[door],
      expectedCap.map((r) => r.targetId),
    );
  });

  it.each(['rest', 'trpc'] as const)('never shows another person’s favorites, with or without their cursor; signed out is 401 (%s)', async (door) => {
    const mine = await doors(pager, 'campaign')[door]({ limit: 20 });
    const theirs = await doors(bob, 'campaign')[door]({ limit: 20, cursor: mine.nextCursor });
    expect(theirs.status).toBe(200);
    expect(theirs.ids).toEqual([]);
    expect(theirs.nextCursor).toBeNull();
    expect((await doors(null, 'campaign')[door]({})).status).toBe(401);
    expect((await doors(null, 'campaign')[door]({ cursor: mine.nextCursor })).status).toBe(401);
  });

  it('goes on past a page whose favorites are all hidden: an empty page with a cursor, then the rest', async () => {
    const hider = await signUp(app, { username: 'f_hider' });
    const adult = await database.db
      .insert(campaigns)
      .values(Array.from({ length: 20 }, (_, i) => ({ ownerId: bob.userId, title: `Adult ${i}`, type: 'adult' as const })))
      .returning({ id: campaigns.id });
    const plain = await database.db
      .insert(campaigns)
      .values(Array.from({ length: 5 }, (_, i) => ({ ownerId: bob.userId, title: `Plain ${i}` })))
      .returning({ id: campaigns.id });
    const base = Date.parse('2031-05-01T12:00:00.000Z');
    // the 20 newest are adult campaigns, which the hider may not see
    await database.db
      .insert(favorites)
      .values([...adult, ...plain].map((c, i) => ({ userId: hider.userId, targetType: 'campaign' as const, targetId: c.id, createdAt: new Date(base - i) })));
    const fetch = doors(hider, 'campaign').rest;
    const first = await fetch({ limit: 20 });
    expect(first.ids).toEqual([]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await fetch({ limit: 20, cursor: first.nextCursor });
    expect(second.ids.sort()).toEqual(plain.map((c) => c.id).sort());
    expect(second.nextCursor).toBeNull();
  });
});
