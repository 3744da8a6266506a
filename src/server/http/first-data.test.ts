import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignDonationsInput, campaignPayoutsInput, campaignSupportersInput, fundsInput, HOME_CAMPAIGNS } from '../../shared/first-queries';
import { PAGE_SIZE } from '../../shared/constants';
import { buildApp } from '../app';
import { users } from '../db/schema';
import { call, login, openTestDatabase, register, testConfig, uploadImages, type Client } from '../../../test/helpers';

/*
 * The page the server sends carries the answers its first paint needs (first-data.ts): who is
 * signed in on every page, and the public pages' own reads, under the query keys the client's
 * tRPC hooks use, so the page shows them without asking again.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let dist: string;
let owner: Client & { userId: string };
let other: Client & { userId: string };

const INDEX = '<!doctype html><html lang="en"><head><title>Kindling</title></head><body><div id="root"></div></body></html>';

interface Dehydrated {
  queries: { queryKey: unknown; state: { data: unknown; status: string } }[];
}

/** The page at `url` for `who`: its HTML and the dehydrated answers in it. */
async function page(url: string, who: Client | null = null) {
  const res = await call(app, who, { method: 'GET', url, headers: { accept: 'text/html' } });
  const html = res.body;
  const m = html.match(/<script type="application\/json" id="first-data">([^<]*)<\/script>/);
  if (!m) throw new Error(`no first data in ${url}: ${html}`);
  const state = superjson.deserialize<Dehydrated>(JSON.parse(m[1]));
  const answer = (key: unknown) => state.queries.find((q) => JSON.stringify(q.queryKey) === JSON.stringify(key))?.state.data;
  return { res, html, state, answer };
}

const ME = [['auth', 'me'], { type: 'query' }];

async function createCampaign(who: Client, payload: Record<string, unknown>) {
  const res = await call(app, who, { method: 'POST', url: '/api/campaigns', payload });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return res.json() as { _id: string; title: string; imageUrl: string };
}

beforeAll(async () => {
  database = await openTestDatabase();
  dist = mkdtempSync(path.join(os.tmpdir(), 'kindling-first-data-'));
  writeFileSync(path.join(dist, 'index.html'), INDEX);
  app = await buildApp({ config: testConfig(), db: database.db, client: 'built', clientDist: dist, logger: false });
  await app.ready();
  const email = await register(app, { username: 'first_owner' });
  owner = await login(app, email);
  other = await login(app, await register(app, { username: 'first_other' }));
});
afterAll(async () => {
  await app?.close();
  await database?.close();
  rmSync(dist, { recursive: true, force: true });
});

describe('the first data of a page', () => {
  it('tells every page who is signed in: nobody for a visitor, the person for their session cookie', async () => {
    for (const url of ['/', '/login', '/account', '/no/such/page']) {
      const { answer, res } = await page(url);
      expect(answer(ME), url).toBeNull();
      expect(res.headers['cache-control'], url).toBe('private, no-cache');
    }
    const signedIn = await page('/account', { cookie: owner.cookie, ip: owner.ip });
    expect(signedIn.answer(ME)).toMatchObject({ _id: owner.userId, username: 'first_owner' });
    // only the session's own fields, as the tRPC door answers them
    expect(JSON.stringify(signedIn.answer(ME))).not.toMatch(/passwordHash|argon2/);
    // a cookie that names no session: a visitor (and the cookie is cleared)
    const stale = await page('/account', { cookie: 'session=not-a-session', ip: owner.ip });
    expect(stale.answer(ME)).toBeNull();
    expect(stale.res.headers['set-cookie']).toMatch(/session=;/);
  });

  it('carries the campaign of a campaign page, and has the browser fetch its cover at once', async () => {
    const [cover] = await uploadImages(app, owner, 1, 'cover');
    const c = await createCampaign(owner, { title: 'Seeds for the </script><script>alert(1)</script> garden', imageUrl: cover.url });
    const { html, answer } = await page(`/campaigns/${c._id}`);
    // the text cannot end the data block early
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    expect(answer([['campaigns', 'get'], { input: { id: c._id }, type: 'query' }])).toMatchObject({ _id: c._id, title: c.title, imageUrl: cover.url });
    expect(html).toContain(`<link rel="preload" as="image" href="${cover.url}" fetchpriority="high"></head>`);

    // a campaign that is not there, or not for this visitor: only the session; the page asks itself and shows its error
    await database.db.update(users).set({ hasAdultAccess: true }).where(eq(users.id, owner.userId));
    const adult = await createCampaign(owner, { title: 'Grown-up zine', type: 'adult' });
    for (const id of [adult._id, '7f3c2a', '00000000-0000-4000-8000-000000000000']) {
      const missing = await page(`/campaigns/${id}`);
      expect(missing.state.queries, id).toHaveLength(1);
      expect(missing.html, id).not.toContain('rel="preload"');
    }
    // its owner, who may see it, gets it in the page
    const forOwner = await page(`/campaigns/${adult._id}`, { cookie: owner.cookie, ip: owner.ip });
    expect(forOwner.answer([['campaigns', 'get'], { input: { id: adult._id }, type: 'query' }])).toMatchObject({ title: 'Grown-up zine' });
  });

  it('carries the campaign, its figures and the owner’s panels on its owner’s dashboard, and only the session for anyone else', async () => {
    const c = await createCampaign(owner, { title: 'Dashboard first paint' });
    const key = (days: number) => [['stats', 'campaign'], { input: { campaignId: c._id, days }, type: 'query' }];
    // the panels' reads, with the inputs the panels ask with
    const panels = [
      [['payouts', 'balance'], { input: fundsInput(c._id), type: 'query' }],
      [['payouts', 'ofCampaign'], { input: campaignPayoutsInput(c._id), type: 'infinite' }],
      [['donations', 'ofCampaign'], { input: campaignDonationsInput(c._id), type: 'infinite' }],
      [['supports', 'list'], { input: campaignSupportersInput(c._id), type: 'infinite' }],
    ];
    const mine = await page(`/campaigns/${c._id}/dashboard?days=90`, { cookie: owner.cookie, ip: owner.ip });
    expect(mine.answer([['campaigns', 'get'], { input: { id: c._id }, type: 'query' }])).toMatchObject({ _id: c._id });
    expect(mine.answer(key(90))).toMatchObject({ raised: 0, donors: 0 });
    expect(mine.answer(panels[0])).toMatchObject({ available: 0 });
    for (const list of panels.slice(1)) expect(mine.answer(list), JSON.stringify(list[0])).toMatchObject({ pages: [{ items: [] }], pageParams: [null] });
    const visitor = await page(`/campaigns/${c._id}/dashboard`);
    expect(visitor.answer(key(30))).toBeUndefined();
    for (const read of panels) expect(visitor.answer(read)).toBeUndefined();
    const stranger = await page(`/campaigns/${c._id}/dashboard`, { cookie: other.cookie, ip: other.ip });
    for (const read of [key(30), ...panels]) expect(stranger.answer(read)).toBeUndefined();
  });

  it('carries the newest campaigns of the home page and the first page of the list, for its search', async () => {
    await createCampaign(owner, { title: 'Radio for the estate', tags: ['radio'] });
    const home = await page('/');
    const newest = home.answer([['campaigns', 'list'], { input: { limit: HOME_CAMPAIGNS }, type: 'query' }]) as { items: { title: string }[] };
    expect(newest.items[0].title).toBe('Radio for the estate');
    expect(newest.items.length).toBeLessThanOrEqual(HOME_CAMPAIGNS);

    const list = await page('/campaigns');
    const all = list.answer([['campaigns', 'list'], { input: { q: '', limit: PAGE_SIZE }, type: 'infinite' }]) as {
      pages: { items: unknown[] }[];
      pageParams: unknown[];
    };
    expect(all.pageParams).toEqual([null]);
    expect(all.pages[0].items.length).toBeGreaterThan(1);

    const search = await page('/campaigns?q=radio');
    const found = search.answer([['campaigns', 'list'], { input: { q: 'radio', limit: PAGE_SIZE }, type: 'infinite' }]) as {
      pages: { items: { title: string }[] }[];
    };
    expect(found.pages[0].items.map((i) => i.title)).toEqual(['Radio for the estate']);

    // the discover choices: the page's first data is the filtered list, under the key the page asks
    // with (defaults and values the page does not offer left out)
    await createCampaign(owner, { title: 'Bass lines for the block', type: 'music' });
    const music = await page('/campaigns?type=music&sort=funded&status=bogus');
    const musicList = music.answer([['campaigns', 'list'], { input: { q: '', limit: PAGE_SIZE, type: 'music', sort: 'funded' }, type: 'infinite' }]) as {
      pages: { items: { title: string; type: string }[] }[];
    };
    expect(musicList.pages[0].items.map((i) => i.title)).toEqual(['Bass lines for the block']);
  });

  it('answers a repeat visit with 304 while the page says the same, and with the new page once it changed', async () => {
    const first = await page('/');
    const etag = first.res.headers.etag as string;
    const again = await call(app, null, { method: 'GET', url: '/', headers: { accept: 'text/html', 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    await createCampaign(owner, { title: 'A newer campaign' });
    const changed = await call(app, null, { method: 'GET', url: '/', headers: { accept: 'text/html', 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.body).toContain('A newer campaign');
  });
});
