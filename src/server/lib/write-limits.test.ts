import { count, eq, type SQL } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, multipart, openTestDatabase, pngImage, signUp, trpc, type Client } from '../../../test/helpers';
import { campaigns, comments, images, teams } from '../db/schema';
import { createGate } from '../modules/uploads/gate';
import { WRITE_BUDGETS } from './rate-limit';

/** The per-account write budgets, on (tests elsewhere turn them off to build fixtures). */
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database, { writeLimits: true, uploadsPerHour: 3, uploadQuotaBytes: 400_000 });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const rows = async (table: typeof campaigns | typeof comments | typeof teams | typeof images, where?: SQL) =>
  Number((await database.db.select({ n: count() }).from(table).where(where))[0].n);

function expect429(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
  expect(res.statusCode).toBe(429);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.json()).toEqual({ error: expect.stringMatching(/too often|Too many/) });
}

describe('write budgets per account', () => {
  it('stop a burst of comments at 10 a minute on both doors, store nothing more, and leave others alone', async () => {
    const spammer = await signUp(app, { username: 'wl_spammer' });
    const other = await signUp(app, { username: 'wl_other' });
    const campaignId = (await call(app, other, { method: 'POST', url: '/api/campaigns', payload: { title: 'Target' } })).json()._id;
    const limit = WRITE_BUDGETS.comment[0].limit;
    for (let i = 0; i < limit; i++) {
      const ok = await call(app, spammer, { method: 'POST', url: `/api/campaigns/${campaignId}/comments`, payload: { text: `c${i}` } });
      expect(ok.statusCode).toBe(201);
    }
    // from a new address too: the budget is the account's
    const refused = await call(
      app,
      { ...spammer, ip: '10.99.0.1' },
      { method: 'POST', url: `/api/campaigns/${campaignId}/comments`, payload: { text: 'one more' } },
    );
    expect429(refused);
    const viaTrpc = await trpc(app, spammer, 'mutation', 'comments.create', { campaignId, data: { text: 'and another' } });
    expect(viaTrpc.status).toBe(429);
    expect(viaTrpc.headers['retry-after']).toBeDefined();
    expect(await rows(comments, eq(comments.userId, spammer.userId))).toBe(limit);
    // someone else still comments
    expect((await call(app, other, { method: 'POST', url: `/api/campaigns/${campaignId}/comments`, payload: { text: 'hi' } })).statusCode).toBe(201);
  });

  it('stop campaign, project and team creation at 10 an hour each', async () => {
    const maker: Client & { userId: string } = await signUp(app, { username: 'wl_maker' });
    for (const [url, payload] of [
      ['/api/campaigns', { title: 'C' }],
      ['/api/projects', { title: 'P' }],
      ['/api/teams', { name: 'T' }],
    ] as const) {
      for (let i = 0; i < 10; i++) expect((await call(app, maker, { method: 'POST', url, payload })).statusCode, url).toBe(201);
      expect429(await call(app, maker, { method: 'POST', url, payload }));
    }
    expect(await rows(campaigns, eq(campaigns.ownerId, maker.userId))).toBe(10);
    expect(await rows(teams, eq(teams.ownerId, maker.userId))).toBe(10);
    const viaTrpc = await trpc(app, maker, 'mutation', 'campaigns.create', { title: 'C' });
    expect(viaTrpc.status).toBe(429);
  });

  it('stop invites, follows, favorites and blocks past their budgets', async () => {
    const busy = await signUp(app, { username: 'wl_busy' });
    const teamId = (await call(app, busy, { method: 'POST', url: '/api/teams', payload: { name: 'Inviters' } })).json()._id;
    for (let i = 0; i < WRITE_BUDGETS.invite[0].limit; i++) {
      // an invite to an unknown address spends the budget too (it is how addresses would be probed)
      const res = await call(app, busy, { method: 'POST', url: `/api/teams/${teamId}/members`, payload: { email: `wl.invitee${i}@example.com` } });
      expect(res.statusCode, res.body).toBe(404);
    }
    expect429(await call(app, busy, { method: 'POST', url: `/api/teams/${teamId}/members`, payload: { email: 'wl.late@example.com' } }));

    const projectId = (await call(app, busy, { method: 'POST', url: '/api/projects', payload: { title: 'Followed' } })).json()._id;
    for (let i = 0; i < WRITE_BUDGETS.follow[0].limit; i++) {
      expect((await call(app, busy, { method: i % 2 ? 'DELETE' : 'POST', url: `/api/project-follow/${projectId}` })).statusCode).toBe(200);
    }
    expect429(await call(app, busy, { method: 'POST', url: `/api/project-follow/${projectId}` }));

    for (let i = 0; i < WRITE_BUDGETS.favorite[0].limit; i++) {
      expect((await call(app, busy, { method: 'POST', url: '/api/favorites', payload: { targetType: 'project', targetId: projectId } })).statusCode).toBe(200);
    }
    expect429(await call(app, busy, { method: 'POST', url: '/api/favorites', payload: { targetType: 'project', targetId: projectId } }));

    const target = await signUp(app, { username: 'wl_target' });
    for (let i = 0; i < WRITE_BUDGETS.block[0].limit; i++) {
      expect((await call(app, busy, { method: 'POST', url: '/api/blocks', payload: { userId: target.userId } })).statusCode).toBeLessThan(300);
    }
    expect429(await call(app, busy, { method: 'POST', url: '/api/blocks', payload: { userId: target.userId } }));
  });
});

describe('uploads', () => {
  const upload = async (who: Client, n: number) => {
    const files = [];
    for (let i = 0; i < n; i++) files.push({ field: 'files', filename: `u${i}.png`, data: await pngImage(64 + i, 40), contentType: 'image/png' });
    const body = multipart(files);
    return call(app, who, { method: 'POST', url: '/api/upload/campaign/multi', payload: body.payload, headers: body.headers });
  };

  it('are limited per account per hour, counted by file', async () => {
    const uploader = await signUp(app, { username: 'wl_uploader' });
    expect((await upload(uploader, 2)).statusCode).toBe(201);
    expect((await upload(uploader, 1)).statusCode).toBe(201);
    expect429(await upload(uploader, 1));
    expect(await rows(images, eq(images.ownerId, uploader.userId))).toBe(3);
  });

  it('stop at the account quota, before reading the body once it is full, storing nothing', async () => {
    const filler = await signUp(app, { username: 'wl_filler' });
    // fill the account straight in the database up to just under its 400,000 bytes
    await database.db.insert(images).values({
      ownerId: filler.userId,
      storageKey: 'gallery/wl-filler.webp',
      url: '/uploads/gallery/wl-filler.webp',
      kind: 'gallery',
      width: 1,
      height: 1,
      bytes: 399_990,
      contentType: 'image/webp',
    });
    const over = await upload(filler, 1);
    expect(over.statusCode).toBe(413);
    expect(over.json()).toEqual({ error: 'Your images have used all of your upload space (0 MB)' });
    await database.db.update(images).set({ bytes: 400_000 }).where(eq(images.ownerId, filler.userId));
    // full: refused before the body is read (an empty, non-multipart body gets the same answer)
    const full = await call(app, filler, { method: 'POST', url: '/api/upload/avatar', payload: '' });
    expect(full.statusCode).toBe(413);
    expect(await rows(images, eq(images.ownerId, filler.userId))).toBe(1);
  });

  it('wait their turn in a bounded queue', async () => {
    const gate = createGate(1, 1);
    const first = await gate.enter();
    let secondIn = false;
    const second = gate.enter().then((leave) => {
      secondIn = true;
      return leave;
    });
    expect(gate.waiting).toBe(1);
    await expect(gate.enter()).rejects.toMatchObject({ status: 429, retryAfter: 5 });
    expect(secondIn).toBe(false);
    first();
    first(); // ending twice changes nothing
    const leaveSecond = await second;
    expect(secondIn).toBe(true);
    expect(gate.active).toBe(1);
    leaveSecond();
    expect(gate.active).toBe(0);
  });
});
