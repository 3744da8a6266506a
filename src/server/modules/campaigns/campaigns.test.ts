import { count, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_COUNT_CAP } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { campaigns, changeHistory, supports, users } from '../../db/schema';
import { buildTestApp, call, openTestDatabase, signUp, signUpVerified, trpc, uploadImages, type Client } from '../../../../test/helpers';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let alice: Awaited<ReturnType<typeof signUp>>;
let bob: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  alice = await signUp(app, { username: 'alice' });
  bob = await signUpVerified(app, database, { username: 'bob' });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const campaignCount = async () => (await database.db.select({ n: count() }).from(campaigns))[0].n;
const post = (who: Client | null, payload: unknown) => call(app, who, { method: 'POST', url: '/api/campaigns', payload: payload as object });
const get = (who: Client | null, url: string) => call(app, who, { method: 'GET', url });

async function create(who: Client, payload: Record<string, unknown>) {
  const res = await post(who, payload);
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

describe('POST /api/campaigns', () => {
  it('creates a campaign with defaults, normalised tags and the owner as an object', async () => {
    const res = await post(alice, { title: '  Community garden  ', description: 'Plant trees together', tags: [' Garden', 'garden', '', 'Green '] });
    expect(res.statusCode).toBe(201);
    const c = res.json();
    expect(c).toMatchObject({
      title: 'Community garden',
      description: 'Plant trees together',
      tags: ['garden', 'green'],
      type: 'other',
      targetType: 'amount',
      goalAmount: 0,
      currency: 'USD',
      actionMode: 'donation',
      imageUrl: null,
      images: [],
      executionDate: null,
      isPast: false,
      coordination: 'Open',
      totalRaised: 0,
      support: 0,
      supporters: 0,
      donated: 0,
      ownerId: { _id: alice.userId, username: 'alice' },
    });
    expect(c._id).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(c)).not.toContain(alice.email);
    const history = await database.db.select().from(changeHistory).where(eq(changeHistory.key, c._id));
    expect(history).toEqual([expect.objectContaining({ modelName: 'Campaign', action: 'create', actorId: alice.userId })]);
  });

  it('stores the goal in cents and answers it in major units', async () => {
    const c = await create(alice, { title: 'Goal', goalAmount: 1234.5, currency: 'EUR' });
    expect(c.goalAmount).toBe(1234.5);
    const [row] = await database.db.select().from(campaigns).where(eq(campaigns.id, c._id));
    expect(row.goalAmount).toBe(123450);
    expect(row.currency).toBe('EUR');
    expect((await create(alice, { title: 'Empty goal', goalAmount: '' })).goalAmount).toBe(0);
    expect((await create(alice, { title: 'String goal', goalAmount: '250' })).goalAmount).toBe(250);
  });

  it('keeps a cover and a gallery uploaded by the owner', async () => {
    const [cover] = await uploadImages(app, alice, 1, 'cover');
    const gallery = await uploadImages(app, alice, 2, 'gallery');
    const c = await create(alice, { title: 'With images', imageUrl: cover.url, images: gallery });
    expect(c.imageUrl).toBe(cover.url);
    expect(c.images).toEqual(gallery.map((g) => ({ url: g.url, alt: g.alt })));
    const detail = await get(null, `/api/campaigns/${c._id}`);
    expect(detail.json().images).toHaveLength(2);
  });

  it('shows the execution date as coordination and knows when it is past', async () => {
    const future = await create(alice, { title: 'Future', executionDate: '2031-12-05T10:00:00.000Z' });
    expect(future.coordination).toBe('Executes 5 Dec 2031 - 0 supporters');
    expect(future.isPast).toBe(false);
    const past = await create(alice, { title: 'Past', executionDate: '2020-01-02' });
    expect(past.isPast).toBe(true);
  });

  it.each([
    [{}, 'Title is required'],
    [{ title: '   ' }, 'Title is required'],
    [{ title: 'x'.repeat(201) }, 'Title can be at most 200 characters'],
    [{ title: 'T', goalAmount: -1 }, 'Goal must be a number of at least 0'],
    [{ title: 'T', goalAmount: 'lots' }, 'Goal must be a number of at least 0'],
    [{ title: 'T', goalAmount: 10.555 }, 'Goal must be a number of at least 0'],
    [{ title: 'T', currency: 'JPY' }, 'Currency must be USD, EUR or GBP'],
    [{ title: 'T', type: 'cooking' }, 'Choose a category'],
    [{ title: 'T', actionMode: 'maybe' }, 'Mode must be support, donation or both'],
    [{ title: 'T', executionDate: 'soon' }, 'Enter a valid execution date'],
    [{ title: 'T', imageUrl: 'https://evil.example/pixel.gif' }, 'Images must be uploaded to Kindling first'],
    [{ title: 'T', images: [{ url: '/uploads/gallery/not-there.webp' }] }, 'Images must be uploaded to Kindling first'],
  ])('refuses %j with 400 and stores nothing', async (payload, message) => {
    const before = await campaignCount();
    const res = await post(alice, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: message });
    expect(await campaignCount()).toBe(before);
  });

  it("refuses another person's uploads", async () => {
    const [bobs] = await uploadImages(app, bob, 1, 'cover');
    const before = await campaignCount();
    const res = await post(alice, { title: 'Borrowed cover', imageUrl: bobs.url });
    expect(res.statusCode).toBe(400);
    expect(await campaignCount()).toBe(before);
  });

  it('needs a signed-in person', async () => {
    const before = await campaignCount();
    const res = await post(null, { title: 'Anonymous' });
    expect(res.statusCode).toBe(401);
    expect(await campaignCount()).toBe(before);
  });
});

describe('GET /api/campaigns/{id}', () => {
  it('answers 404 for an unknown or malformed id', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const res = await get(null, `/api/campaigns/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Campaign not found' });
    }
  });

  it('computes raised, donors, supporters and the viewer’s own donations from real rows', async () => {
    const c = await create(alice, { title: 'Funded', actionMode: 'both', executionDate: '2031-01-15' });
    const gift = await call(app, bob, {
      method: 'POST',
      url: `/api/campaigns/${c._id}/donations`,
      headers: { 'idempotency-key': `gift-${c._id}` },
      payload: { amount: 10.5, card: '4242 4242 4242 4242' },
    });
    expect(gift.statusCode).toBe(201);
    await database.db.insert(supports).values([
      { campaignId: c._id, userId: bob.userId, confirmedAt: new Date() },
      { campaignId: c._id, email: 'guest@example.com' },
    ]);
    const asBob = (await get(bob, `/api/campaigns/${c._id}`)).json();
    expect(asBob).toMatchObject({ totalRaised: 10.5, donors: 1, supporters: 1, support: 1, donated: 10.5, coordination: 'Executes 15 Jan 2031 - 1 supporter' });
    const asVisitor = (await get(null, `/api/campaigns/${c._id}`)).json();
    expect(asVisitor).toMatchObject({ totalRaised: 10.5, donors: 1, donated: 0 });
  });
});

describe('PUT /api/campaigns/{id}', () => {
  it('lets the owner edit text, tags, images and the execution date, with history', async () => {
    const c = await create(alice, { title: 'Before', tags: ['one'] });
    const gallery = await uploadImages(app, alice, 1);
    const res = await call(app, alice, {
      method: 'PUT',
      url: `/api/campaigns/${c._id}`,
      payload: { title: 'After', tags: ['Two', 'two'], images: gallery, executionDate: '2032-03-01' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ title: 'After', tags: ['two'], images: [{ url: gallery[0].url }] });
    expect(new Date(res.json().executionDate).toISOString()).toBe('2032-03-01T00:00:00.000Z');
    const history = await database.db.select().from(changeHistory).where(eq(changeHistory.key, c._id));
    const update = history.find((h) => h.action === 'update')!;
    expect(update.fields.sort()).toEqual(['executionDate', 'images', 'tags', 'title']);
    // clearing the date
    const cleared = await call(app, alice, { method: 'PUT', url: `/api/campaigns/${c._id}`, payload: { executionDate: null } });
    expect(cleared.json().executionDate).toBeNull();
  });

  it("refuses someone else's campaign (403), signed-out callers (401) and bad input (400), changing nothing", async () => {
    const c = await create(alice, { title: 'Mine' });
    const other = await call(app, bob, { method: 'PUT', url: `/api/campaigns/${c._id}`, payload: { title: 'Stolen' } });
    expect(other.statusCode).toBe(403);
    expect(other.json()).toEqual({ error: 'Only the owner can do that' });
    const anon = await call(app, null, { method: 'PUT', url: `/api/campaigns/${c._id}`, payload: { title: 'Stolen' } });
    expect(anon.statusCode).toBe(401);
    const bad = await call(app, alice, { method: 'PUT', url: `/api/campaigns/${c._id}`, payload: { title: '' } });
    expect(bad.statusCode).toBe(400);
    const missing = await call(app, alice, { method: 'PUT', url: '/api/campaigns/00000000-0000-4000-8000-000000000000', payload: { title: 'x' } });
    expect(missing.statusCode).toBe(404);
    expect((await get(null, `/api/campaigns/${c._id}`)).json().title).toBe('Mine');
  });
});

describe("the edit form's locks: currency and goal kind once money has moved", () => {
  it('tells the owner only, and both doors refuse a locked change with 409, changing nothing', async () => {
    const c = await create(alice, { title: 'Lock me', currency: 'USD' });
    const locks = (who: Client | null, id = c._id) => trpc(app, who, 'query', 'campaigns.editLocks', { id });
    expect((await locks(alice)).data).toEqual({ currencyLocked: false, targetTypeLocked: false });
    // before any money, the currency may change
    expect((await call(app, alice, { method: 'PUT', url: `/api/campaigns/${c._id}`, payload: { currency: 'EUR' } })).json().currency).toBe('EUR');

    const gift = await call(app, bob, {
      method: 'POST',
      url: `/api/campaigns/${c._id}/donations`,
      headers: { 'idempotency-key': `lock-${c._id}` },
      payload: { amount: 3, card: '4242 4242 4242 4242' },
    });
    expect(gift.statusCode).toBe(201);
    expect((await locks(alice)).data).toEqual({ currencyLocked: true, targetTypeLocked: true });

    // a stranger, a visitor, an unknown or malformed id: the answers update gives them
    const stranger = await locks(bob);
    expect(stranger.status).toBe(403);
    expect(stranger.error?.message).toBe(M.notOwner);
    expect((await locks(null)).status).toBe(401);
    expect((await locks(alice, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await locks(alice, 'not-an-id')).status).toBe(404);

    const before = (await get(alice, `/api/campaigns/${c._id}`)).json();
    const rest = await call(app, alice, { method: 'PUT', url: `/api/campaigns/${c._id}`, payload: { title: 'Renamed in vain', currency: 'GBP' } });
    expect(rest.statusCode).toBe(409);
    expect(rest.json()).toEqual({ error: M.currencyLocked });
    const viaTrpc = await trpc(app, alice, 'mutation', 'campaigns.update', { id: c._id, data: { title: 'Renamed in vain', targetType: 'supporters' } });
    expect(viaTrpc.status).toBe(409);
    expect(viaTrpc.error?.message).toBe(M.currencyLocked);
    const after = (await get(alice, `/api/campaigns/${c._id}`)).json();
    expect(after).toMatchObject({ title: 'Lock me', currency: 'EUR', targetType: 'amount', updatedAt: before.updatedAt, totalRaised: 3 });
    const history = await database.db.select().from(changeHistory).where(eq(changeHistory.key, c._id));
    expect(history.filter((h) => h.action === 'update')).toHaveLength(1);

    // the same values as before are no change: the edit form sends them with the rest
    const saved = await trpc(app, alice, 'mutation', 'campaigns.update', { id: c._id, data: { title: 'Renamed', currency: 'EUR', targetType: 'amount' } });
    expect(saved.data).toMatchObject({ title: 'Renamed', currency: 'EUR' });
  });
});

describe('adult campaigns', () => {
  it('are offered only to people with adult access and hidden from everyone else', async () => {
    const refused = await post(bob, { title: 'Not allowed', type: 'adult' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: M.adultNotAllowed });

    const carol = await signUp(app, { username: 'carol' });
    await database.db.update(users).set({ hasAdultAccess: true }).where(eq(users.id, carol.userId));
    const adult = await create(carol, { title: 'Grown-up zine', type: 'adult', description: 'uniqueadultword' });

    expect((await get(null, `/api/campaigns/${adult._id}`)).statusCode).toBe(404);
    expect((await get(bob, `/api/campaigns/${adult._id}`)).statusCode).toBe(404);
    expect((await get(carol, `/api/campaigns/${adult._id}`)).statusCode).toBe(200);

    const forBob = (await get(bob, '/api/campaigns?q=uniqueadultword')).json();
    expect(forBob).toMatchObject({ items: [], total: 0 });
    const forCarol = (await get(carol, '/api/campaigns?q=uniqueadultword')).json();
    expect(forCarol.total).toBe(1);

    const all = (await get(null, '/api/campaigns?limit=100')).json();
    const allForCarol = (await get(carol, '/api/campaigns?limit=100')).json();
    expect(allForCarol.total).toBe(all.total + 1);
    expect(all.items.some((i: { type: string }) => i.type === 'adult')).toBe(false);
  });

  it('move in and out of the lists when their owner changes the category', async () => {
    const gwen = await signUp(app, { username: 'gwen' });
    await database.db.update(users).set({ hasAdultAccess: true }).where(eq(users.id, gwen.userId));
    const c = await create(gwen, { title: 'Changing category', type: 'art' });
    const before = (await get(null, '/api/campaigns')).json().total;
    const toAdult = await call(app, gwen, { method: 'PUT', url: `/api/campaigns/${c._id}`, payload: { type: 'adult' } });
    expect(toAdult.statusCode).toBe(200);
    expect(toAdult.json().type).toBe('adult');
    expect((await get(null, '/api/campaigns')).json().total).toBe(before - 1);
    expect((await get(null, `/api/campaigns/${c._id}`)).statusCode).toBe(404);
    const back = await trpc(app, gwen, 'mutation', 'campaigns.update', { id: c._id, data: { type: 'music' } });
    expect(back.data.type).toBe('music');
    expect((await get(null, '/api/campaigns')).json().total).toBe(before);
  });
});

describe('GET /api/campaigns: paging', () => {
  let dave: Awaited<ReturnType<typeof signUp>>;
  beforeAll(async () => {
    dave = await signUp(app, { username: 'dave' });
    for (let i = 1; i <= 45; i++) await create(dave, { title: `Paging item ${i}`, tags: ['pagingtag'] });
  });

  it('lists newest first, 20 a page, with the total', async () => {
    const p1 = (await get(null, '/api/campaigns?q=pagingtag')).json();
    expect(p1.total).toBe(45);
    expect(p1.items).toHaveLength(20);
    expect(p1.items[0].title).toBe('Paging item 45');
    expect(p1.page).toBe(1);
    const p3 = (await get(null, '/api/campaigns?q=pagingtag&page=3')).json();
    expect(p3.items.map((i: { title: string }) => i.title)).toEqual(['Paging item 5', 'Paging item 4', 'Paging item 3', 'Paging item 2', 'Paging item 1']);
    expect(p3.nextCursor).toBeNull();
    // an exactly full last page says there is nothing more
    const fullLast = (await get(null, '/api/campaigns?q=pagingtag&limit=15&page=3')).json();
    expect(fullLast.items).toHaveLength(15);
    expect(fullLast.nextCursor).toBeNull();
    const firstOfThree = (await get(null, '/api/campaigns?q=pagingtag&limit=15')).json();
    expect(firstOfThree.nextCursor).not.toBeNull();
    const beyond = (await get(null, '/api/campaigns?q=pagingtag&page=4')).json();
    expect(beyond).toMatchObject({ items: [], total: 45 });
  });

  it('pages by cursor exactly as by page number', async () => {
    const byPage: string[] = [];
    for (let page = 1; page <= 3; page++)
      byPage.push(...(await get(null, `/api/campaigns?q=pagingtag&page=${page}`)).json().items.map((i: { _id: string }) => i._id));
    const byCursor: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/api/campaigns?q=pagingtag${cursor ? `&cursor=${cursor}` : ''}`;
      const body = (await get(null, url)).json();
      byCursor.push(...body.items.map((i: { _id: string }) => i._id));
      cursor = body.nextCursor;
    } while (cursor);
    expect(byCursor).toEqual(byPage);
    expect(new Set(byCursor).size).toBe(45);
  });

  it('caps the limit and refuses nonsense paging with 400', async () => {
    const capped = (await get(null, '/api/campaigns?limit=1000')).json();
    expect(capped.limit).toBe(100);
    for (const [qs, message] of [
      ['page=0', M.pageInvalid],
      ['page=abc', M.pageInvalid],
      ['limit=0', M.limitInvalid],
      ['limit=-5', M.limitInvalid],
      ['cursor=garbage', M.cursorInvalid],
    ]) {
      const res = await get(null, `/api/campaigns?${qs}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: message });
    }
  });
});

describe('GET /api/campaigns: search', () => {
  let ids: Record<string, string>;
  beforeAll(async () => {
    const erin = await signUp(app, { username: 'erin' });
    ids = {
      photo: (await create(erin, { title: 'Street photography walk', description: 'We shoot the city at dawn', tags: ['urban'] }))._id,
      mural: (await create(erin, { title: 'Mural for the school', description: 'Children are painting the big wall', tags: ['kids', 'art-class'] }))._id,
      synth: (await create(erin, { title: 'Modular synth meetup', description: 'Patch cables everywhere', tags: ['music'] }))._id,
      choir: (await create(erin, { title: 'Choir night', type: 'music' }))._id,
    };
  });
  const found = async (q: string) => (await get(null, `/api/campaigns?q=${encodeURIComponent(q)}&limit=100`)).json().items.map((i: { _id: string }) => i._id);

  it('finds by a word of the title, the description (any form of the word) and a tag', async () => {
    expect(await found('photography')).toEqual([ids.photo]);
    expect(await found('paint')).toEqual([ids.mural]);
    expect(await found('paintings')).toEqual([ids.mural]);
    expect(await found('urban')).toEqual([ids.photo]);
    expect(await found('art-class')).toEqual([ids.mural]);
    expect(await found('MUSIC')).toEqual(expect.arrayContaining([ids.synth, ids.choir]));
  });

  it("finds a category's campaigns by its name, and only those beside the word's other matches", async () => {
    const items = (await get(null, '/api/campaigns?q=music&limit=100')).json().items as { _id: string; type: string; tags: string[] }[];
    expect(items.map((i) => i._id)).toContain(ids.choir);
    for (const i of items) expect(i.type === 'music' || i.tags.includes('music')).toBe(true);
    expect(await found('choir')).toEqual([ids.choir]);
    expect(await found('photo')).toEqual([ids.photo]);
  });

  it('finds partial words and parts of titles', async () => {
    expect(await found('phot')).toEqual([ids.photo]);
    expect(await found('odular')).toEqual([ids.synth]);
    expect(await found('street walk')).toEqual([ids.photo]);
  });

  it('keeps a repeated search total right through every kind of change', async () => {
    const heidi = await signUp(app, { username: 'heidi' });
    await database.db.update(users).set({ hasAdultAccess: true }).where(eq(users.id, heidi.userId));
    const total = async (who: Client | null) => (await get(who, '/api/campaigns?q=quokka')).json().total;
    const viaTrpc = async (who: Client | null) => (await trpc(app, who, 'query', 'campaigns.list', { q: 'quokka' })).data.total;
    expect(await total(null)).toBe(0);
    const a = await create(heidi, { title: 'Quokka count' });
    expect(await total(null)).toBe(1);
    expect(await total(null)).toBe(1);
    const b = await create(heidi, { title: 'Second survey', description: 'more quokka sightings' });
    expect(await total(null)).toBe(2);
    expect(await viaTrpc(null)).toBe(2);
    // an edit that drops the word, through either door
    await call(app, heidi, { method: 'PUT', url: `/api/campaigns/${a._id}`, payload: { title: 'Wallaby count' } });
    expect(await total(null)).toBe(1);
    await trpc(app, heidi, 'mutation', 'campaigns.update', { id: a._id, data: { tags: ['quokka'] } });
    expect(await viaTrpc(null)).toBe(2);
    // moving one to adult: gone for others, still counted for who may see it
    await call(app, heidi, { method: 'PUT', url: `/api/campaigns/${b._id}`, payload: { type: 'adult' } });
    expect(await total(null)).toBe(1);
    expect(await total(heidi)).toBe(2);
    // a change made straight in the database, and a delete
    await database.db.update(campaigns).set({ title: 'Quokka again' }).where(eq(campaigns.id, a._id));
    expect(await total(null)).toBe(1);
    await database.db.delete(campaigns).where(eq(campaigns.id, a._id));
    expect(await total(null)).toBe(0);
    expect(await total(heidi)).toBe(1);
    // an unrelated change does not disturb it either
    await create(heidi, { title: 'Unrelated' });
    expect(await total(heidi)).toBe(1);
  });

  it(`counts a search exactly up to ${SEARCH_COUNT_CAP} matches, and caps the total there (totalCapped) beyond`, async () => {
    const few = (await get(null, '/api/campaigns?q=photography')).json();
    expect(few).toMatchObject({ total: 1, totalCapped: false });
    await database.db.execute(sql`
      insert into campaigns (owner_id, title, created_at)
      select ${alice.userId}::uuid, 'Capword campaign ' || g, now() - g * interval '1 second' from generate_series(1, ${SEARCH_COUNT_CAP + 5}) g`);
    const many = (await get(null, '/api/campaigns?q=capword')).json();
    expect(many).toMatchObject({ total: SEARCH_COUNT_CAP, totalCapped: true });
    expect(many.items).toHaveLength(20);
    expect(many.nextCursor).not.toBeNull();
    const unfiltered = (await get(null, '/api/campaigns')).json();
    expect(unfiltered.totalCapped).toBe(false);
    expect(unfiltered.total).toBeGreaterThan(SEARCH_COUNT_CAP);
    // a category or status view counts the same way (an exact count of a large category reads all of it)
    const someGames = (await get(null, '/api/campaigns?type=game')).json();
    expect(someGames.totalCapped).toBe(false);
    await database.db.execute(sql`
      insert into campaigns (owner_id, title, type, created_at)
      select ${alice.userId}::uuid, 'Board game ' || g, 'game', now() - g * interval '1 second' from generate_series(1, ${SEARCH_COUNT_CAP + 5}) g`);
    for (const url of ['/api/campaigns?type=game', '/api/campaigns?type=game&sort=funded', '/api/campaigns?status=active']) {
      const capped = (await get(null, url)).json();
      expect({ url, total: capped.total, totalCapped: capped.totalCapped, items: capped.items.length }).toEqual({
        url,
        total: SEARCH_COUNT_CAP,
        totalCapped: true,
        items: 20,
      });
    }
    // a person's own campaigns are counted exactly
    const own = (await get(null, `/api/public/users/${alice.userId}/campaigns`)).json();
    expect(own.totalCapped).toBe(false);
    expect(own.total).toBeGreaterThan(2 * SEARCH_COUNT_CAP);
  });

  it(`counts a search's title pieces with its words around the cap of ${SEARCH_COUNT_CAP}, and pages through both`, async () => {
    // words alone under the cap: the title pieces ("Apiecetestb": no word starting with the text) take it past
    await database.db.execute(sql`
      insert into campaigns (owner_id, title, created_at)
      select ${alice.userId}::uuid, 'Piecetest campaign ' || g, now() - interval '1 day' - g * interval '1 second' from generate_series(1, ${SEARCH_COUNT_CAP - 1}) g`);
    await database.db.execute(sql`
      insert into campaigns (owner_id, title, created_at)
      select ${alice.userId}::uuid, 'Apiecetestb ' || g, now() - g * interval '1 second' from generate_series(1, 3) g`);
    const totals = async () => ({
      rest: (await get(null, '/api/campaigns?q=piecetest')).json(),
      trpc: (await trpc(app, null, 'query', 'campaigns.list', { q: 'piecetest' })).data,
    });
    for (const answer of Object.values(await totals())) expect(answer).toMatchObject({ total: SEARCH_COUNT_CAP, totalCapped: true });
    // words alone past the cap: the total is the cap's, and the pages still hold the pieces, newest first
    await database.db.execute(sql`
      insert into campaigns (owner_id, title, created_at)
      select ${alice.userId}::uuid, 'Piecetest more ' || g, now() - interval '2 days' - g * interval '1 second' from generate_series(1, 5) g`);
    for (const answer of Object.values(await totals())) expect(answer).toMatchObject({ total: SEARCH_COUNT_CAP, totalCapped: true });
    const titles: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { title: string }[]; nextCursor: string | null } = (
        await get(null, `/api/campaigns?q=piecetest&limit=50${cursor ? `&cursor=${cursor}` : ''}`)
      ).json();
      titles.push(...page.items.map((c: { title: string }) => c.title));
      cursor = page.nextCursor;
    } while (cursor);
    expect(titles.slice(0, 3)).toEqual(['Apiecetestb 1', 'Apiecetestb 2', 'Apiecetestb 3']);
    expect(titles).toHaveLength(SEARCH_COUNT_CAP - 1 + 3 + 5);
    expect(new Set(titles).size).toBe(titles.length);
    expect(titles.at(-1)).toBe('Piecetest more 5');
  });

  it('answers an empty list for no match, and treats odd characters as text', async () => {
    expect(await found('zzzznothing')).toEqual([]);
    for (const q of ["it's", '%', '_', 'a & b | !c', '((', '"quoted"', '\\']) {
      const res = await get(null, `/api/campaigns?q=${encodeURIComponent(q)}`);
      expect(res.statusCode).toBe(200);
    }
    expect(await found('%')).toEqual([]);
  });
});

describe('the tRPC door', () => {
  it('lists, reads, creates and updates with the same rules', async () => {
    const created = await trpc(app, alice, 'mutation', 'campaigns.create', { title: 'Via tRPC', tags: ['Trpc'] });
    expect(created.status).toBe(200);
    expect(created.data).toMatchObject({ title: 'Via tRPC', tags: ['trpc'], ownerId: { _id: alice.userId } });
    const id = created.data._id;
    const listed = await trpc(app, null, 'query', 'campaigns.list', { q: 'trpc' });
    expect(listed.data.items.map((i: { _id: string }) => i._id)).toContain(id);
    expect((await trpc(app, null, 'query', 'campaigns.get', { id })).data.title).toBe('Via tRPC');
    expect((await trpc(app, null, 'query', 'campaigns.get', { id: 'nope' })).status).toBe(404);

    expect((await trpc(app, null, 'mutation', 'campaigns.create', { title: 'Anon' })).status).toBe(401);
    const bad = await trpc(app, alice, 'mutation', 'campaigns.create', { title: '' });
    expect(bad.status).toBe(400);
    expect(bad.error?.message).toBe('Title is required');

    const updated = await trpc(app, alice, 'mutation', 'campaigns.update', { id, data: { title: 'Renamed' } });
    expect(updated.data.title).toBe('Renamed');
    const stolen = await trpc(app, bob, 'mutation', 'campaigns.update', { id, data: { title: 'Mine now' } });
    expect(stolen.status).toBe(403);
    expect((await trpc(app, null, 'query', 'campaigns.get', { id })).data.title).toBe('Renamed');
  });
});

describe('deep pages by number', () => {
  it('answer what OFFSET answers, on both doors, before and after the page marks are taken', async () => {
    const frank = await signUp(app, { username: 'frank' });
    // 2,100 campaigns dated in the past, so a page deep in the list is past the first page mark
    await database.db.execute(sql`
      insert into campaigns (owner_id, title, created_at)
      select ${frank.userId}::uuid, 'Deep ' || g, now() - interval '1 day' - g * interval '1 minute'
      from generate_series(1, 2100) g`);
    const expected = async (page: number, limit: number) => {
      const rows = await database.db
        .select({ id: campaigns.id })
        .from(campaigns)
        .where(sql`${campaigns.type} <> 'adult'`)
        .orderBy(sql`${campaigns.createdAt} desc, ${campaigns.id} desc`)
        .limit(limit)
        .offset((page - 1) * limit);
      return rows.map((r) => r.id);
    };
    const ids = (body: { items: { _id: string }[] }) => body.items.map((i) => i._id);
    for (const [page, limit] of [
      [80, 20],
      [21, 100],
      [106, 20],
    ]) {
      const want = await expected(page, limit);
      expect(want.length).toBeGreaterThan(0);
      const first = (await get(null, `/api/campaigns?page=${page}&limit=${limit}`)).json();
      expect(ids(first)).toEqual(want);
      await app.services.campaigns.pageMarksSettled();
      const again = (await get(null, `/api/campaigns?page=${page}&limit=${limit}`)).json();
      expect(ids(again)).toEqual(want);
      expect(again.total).toBe(first.total);
      const viaTrpc = await trpc(app, bob, 'query', 'campaigns.list', { page, limit });
      expect(ids(viaTrpc.data)).toEqual(want);
    }
    // past the end: nothing, and the total
    const total = (await get(null, '/api/campaigns')).json().total;
    const beyond = (await get(null, `/api/campaigns?page=${Math.ceil(total / 20) + 1}`)).json();
    expect(beyond).toMatchObject({ items: [], total, nextCursor: null });
  });
});

describe('discover: category, status and sort on both doors', () => {
  let ids: Record<string, string>;
  // each door answers the same list for the same parameters
  const both = async (who: Client | null, params: Record<string, string | number>) => {
    const qs = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
    const rest = await get(who, `/api/campaigns?${qs}`);
    const viaTrpc = await trpc(app, who, 'query', 'campaigns.list', params);
    return { rest, viaTrpc };
  };
  const listed = async (params: Record<string, string | number>) => {
    const { rest, viaTrpc } = await both(null, { limit: 100, ...params });
    expect(rest.statusCode).toBe(200);
    const items = rest.json().items.map((i: { _id: string }) => i._id);
    expect(viaTrpc.data.items.map((i: { _id: string }) => i._id)).toEqual(items);
    return items as string[];
  };

  beforeAll(async () => {
    const ivan = await signUp(app, { username: 'ivan' });
    const day = 86_400_000;
    ids = {
      soon: (await create(ivan, { title: 'Discover soon', type: 'film', executionDate: new Date(Date.now() + day).toISOString() }))._id,
      later: (await create(ivan, { title: 'Discover later', type: 'film', executionDate: new Date(Date.now() + 9 * day).toISOString() }))._id,
      undated: (await create(ivan, { title: 'Discover undated', type: 'podcast' }))._id,
      gone: (await create(ivan, { title: 'Discover gone', type: 'film' }))._id,
    };
    // a date that has passed (the form takes none), money and supporters straight in the tables
    await database.db
      .update(campaigns)
      .set({ executionDate: new Date(Date.now() - day) })
      .where(eq(campaigns.id, ids.gone));
    await database.db.execute(sql`insert into campaign_totals (campaign_id, currency, shard, raised, refunded) values
      (${ids.undated}::uuid, 'USD', 0, 900000, 0), (${ids.later}::uuid, 'USD', 1, 800000, 100)`);
    await database.db.insert(supports).values([
      { campaignId: ids.soon, email: 'one@example.com', confirmedAt: new Date() },
      { campaignId: ids.soon, email: 'two@example.com', confirmedAt: new Date() },
      { campaignId: ids.later, email: 'one@example.com', confirmedAt: new Date() },
      { campaignId: ids.gone, email: 'three@example.com' },
    ]);
  });

  it('filters by category and status, and combines them with a search', async () => {
    const film = await listed({ type: 'film' });
    expect(film).toEqual(expect.arrayContaining([ids.soon, ids.later, ids.gone]));
    expect(film).not.toContain(ids.undated);
    expect(await listed({ q: 'discover', type: 'film', status: 'past' })).toEqual([ids.gone]);
    expect(await listed({ q: 'discover', status: 'active' })).toEqual([ids.undated, ids.later, ids.soon]);
    // a category's name is a search word
    expect(await listed({ q: 'podcast' })).toContain(ids.undated);
    // empty values mean "all", as a form sends them
    expect(await listed({ q: 'discover', type: '', status: '', sort: '' })).toHaveLength(4);
  });

  it('sorts by ending, funded and supported, each key then id, and pages each by cursor', async () => {
    expect(await listed({ q: 'discover', sort: 'ending' })).toEqual([ids.soon, ids.later]);
    expect((await listed({ q: 'discover', sort: 'funded' })).slice(0, 2)).toEqual([ids.undated, ids.later]);
    expect((await listed({ q: 'discover', sort: 'supported' })).slice(0, 2)).toEqual([ids.soon, ids.later]);
    for (const sort of ['newest', 'ending', 'funded', 'supported']) {
      const all = await listed({ q: 'discover', sort });
      const walked: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { items: { _id: string }[]; nextCursor: string | null } = (
          await get(null, `/api/campaigns?q=discover&sort=${sort}&limit=1${cursor ? `&cursor=${cursor}` : ''}`)
        ).json();
        walked.push(...page.items.map((i: { _id: string }) => i._id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(walked, sort).toEqual(all);
    }
  });

  it('refuses a bad category, status, sort or cursor with 400 and its message, on both doors', async () => {
    const cursorOfFunded = (await get(null, '/api/campaigns?sort=funded&limit=1')).json().nextCursor;
    for (const [params, message] of [
      [{ type: 'cooking' }, M.typeInvalid],
      [{ status: 'soon' }, M.statusInvalid],
      [{ sort: 'cheapest' }, M.sortInvalid],
      [{ cursor: 'not-a-cursor' }, M.cursorInvalid],
      [{ sort: 'newest', cursor: cursorOfFunded }, M.cursorInvalid],
    ] as const) {
      const { rest, viaTrpc } = await both(null, params);
      expect(rest.statusCode, JSON.stringify(params)).toBe(400);
      expect(rest.json().error).toBe(message);
      expect(viaTrpc.status).toBe(400);
      expect(viaTrpc.error?.message).toBe(message);
    }
  });

  it('keeps funded and supported up to date as money and supports move', async () => {
    const first = async (sort: string) => (await listed({ q: 'discover', sort }))[0];
    await database.db.execute(sql`update campaign_totals set raised = raised + 500000 where campaign_id = ${ids.later}::uuid`);
    expect(await first('funded')).toBe(ids.later);
    await database.db.update(supports).set({ confirmedAt: new Date() }).where(eq(supports.campaignId, ids.gone));
    await database.db.insert(supports).values({ campaignId: ids.gone, email: 'four@example.com', confirmedAt: new Date() });
    await database.db.insert(supports).values({ campaignId: ids.gone, email: 'five@example.com', confirmedAt: new Date() });
    expect(await first('supported')).toBe(ids.gone);
  });
});
