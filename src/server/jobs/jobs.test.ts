import { existsSync } from 'node:fs';
import path from 'node:path';
import { desc, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { M } from '../../shared/messages';
import { buildApp } from '../app';
import { campaigns, donations, emailOutbox, images, jobRuns, subscriptions } from '../db/schema';
import { uploadsDir } from '../storage/storage';
import { createSandboxProvider, sandboxKey } from '../payments/sandbox';
import type { PaymentProvider } from '../payments/port';
import { buildTestApp, call, openTestDatabase, signUp, signUpVerified, testConfig, testDataDir, trpc, uploadImages } from '../../../test/helpers';
import { setAdmin } from '../modules/users/admin-grant';
import { periodOf } from '../modules/donations/service';
import { RUN_LOCK_KEY } from './runner';
import { checkContract } from '../../../test/contract';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let admin: Awaited<ReturnType<typeof signUp>>;
let donor: Awaited<ReturnType<typeof signUp>>;
let owner: Awaited<ReturnType<typeof signUp>>;
let campaignId: string;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  admin = await signUp(app, { username: 'j_admin' });
  donor = await signUpVerified(app, database, { username: 'j_donor' });
  owner = await signUp(app, { username: 'j_owner' });
  await setAdmin(database.db, admin.email, true);
  campaignId = (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Monthly garden', actionMode: 'both' } })).json()._id;
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

let keys = 0;
/** A monthly donation whose next month is due now. */
async function dueSubscription(): Promise<string> {
  const res = await call(app, donor, {
    method: 'POST',
    url: `/api/campaigns/${campaignId}/donations`,
    headers: { 'idempotency-key': `jobs-${Date.now()}-${++keys}` },
    payload: { amount: 7, monthly: true, card: '4242424242424242' },
  });
  expect(res.statusCode).toBe(201);
  const [newest] = await database.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.donorId, donor.userId))
    .orderBy(desc(subscriptions.createdAt))
    .limit(1);
  // as if it had started a month ago: its first charge paid last month, this month is due now
  const lastMonth = new Date();
  lastMonth.setUTCDate(1);
  lastMonth.setUTCMonth(lastMonth.getUTCMonth() - 1);
  await database.db
    .update(donations)
    .set({ period: periodOf(lastMonth) })
    .where(eq(donations.subscriptionId, newest.id));
  await database.db
    .update(subscriptions)
    .set({ nextChargeAt: new Date(Date.now() - 60_000) })
    .where(eq(subscriptions.id, newest.id));
  return newest.id;
}
const charges = async (subId: string) => (await database.db.select().from(donations).where(eq(donations.subscriptionId, subId))).length;

describe('the admin cron calls', () => {
  it('are refused to non-admins (403) and signed-out people (401) on both doors', async () => {
    for (const [method, url] of [
      ['GET', '/api/admin/cron/status'],
      ['POST', '/api/admin/cron/run'],
    ] as const) {
      expect((await call(app, donor, { method, url })).statusCode).toBe(403);
      expect((await call(app, null, { method, url })).statusCode).toBe(401);
    }
    expect((await trpc(app, donor, 'query', 'cron.status')).status).toBe(403);
    expect((await trpc(app, null, 'mutation', 'cron.run')).status).toBe(401);
    expect(await database.db.select().from(jobRuns)).toEqual([]);
  });

  it('run the jobs now: the due month is charged once, reminders are sent, and the run is recorded', async () => {
    const sub = await dueSubscription();
    await database.db
      .update(campaigns)
      .set({ executionDate: new Date(Date.now() + 6 * 3600_000) })
      .where(eq(campaigns.id, campaignId));
    await call(app, donor, { method: 'POST', url: `/api/campaigns/${campaignId}/support`, payload: {} });
    const res = await call(app, admin, { method: 'POST', url: '/api/admin/cron/run' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'succeeded', counts: { charged: 1, succeeded: 1, failed: 0, reminded: 1 }, error: null });
    expect(await charges(sub)).toBe(2);
    expect((await database.db.select().from(emailOutbox).where(eq(emailOutbox.kind, 'campaign_reminder'))).map((m) => m.to)).toEqual([donor.email]);
    // again: nothing is due any more
    const again = await trpc(app, admin, 'mutation', 'cron.run');
    expect(again.data).toMatchObject({ status: 'succeeded', counts: { charged: 0, reminded: 0 } });
    expect(await charges(sub)).toBe(2);
    const status = await call(app, admin, { method: 'GET', url: '/api/admin/cron/status' });
    expect(status.json()).toMatchObject({ running: false, nextRunAt: null });
    expect(status.json().runs.map((r: { counts: { charged: number } }) => r.counts.charged)).toEqual([0, 1]);
    expect((await trpc(app, admin, 'query', 'cron.status')).data.runs).toHaveLength(2);
  });
});

describe('cleaning up uploads', () => {
  it('deletes uploads older than a day that nothing references, with their files, and keeps the rest', async () => {
    const [used, cover, orphan, fresh] = [
      ...(await uploadImages(app, owner, 1, 'gallery')),
      ...(await uploadImages(app, owner, 1, 'cover')),
      ...(await uploadImages(app, owner, 1, 'gallery')),
      ...(await uploadImages(app, owner, 1, 'gallery')),
    ];
    const made = await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'With pictures', imageUrl: cover.url, images: [used] } });
    expect(made.statusCode).toBe(201);
    const dayAndMore = new Date(Date.now() - 25 * 3600_000);
    await database.db
      .update(images)
      .set({ createdAt: dayAndMore })
      .where(inArray(images.url, [used.url, cover.url, orphan.url]));
    const fileOf = async (url: string) => {
      const [row] = await database.db.select().from(images).where(eq(images.url, url));
      return row ? path.join(uploadsDir(testDataDir()), ...row.storageKey.split('/')) : null;
    };
    const orphanFile = (await fileOf(orphan.url))!;
    expect(existsSync(orphanFile)).toBe(true);
    const run = await call(app, admin, { method: 'POST', url: '/api/admin/cron/run' });
    expect(run.json().counts.cleaned).toBe(1);
    expect(await fileOf(orphan.url)).toBeNull();
    expect(existsSync(orphanFile)).toBe(false);
    for (const kept of [used, cover, fresh]) {
      const file = await fileOf(kept.url);
      expect(file && existsSync(file)).toBe(true);
    }
    // the campaign's pictures are still served
    expect((await call(app, null, { method: 'GET', url: used.url })).statusCode).toBe(200);
  });
});

describe('one run at a time', () => {
  it('two app instances on one database triggered at once make exactly one run; the other answers 409', async () => {
    // app A's provider holds its charge until the test lets it go, so A's run is under way when B is asked
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const charging = new Promise<void>((resolve) => (entered = resolve));
    let sandbox: PaymentProvider | undefined;
    const held: PaymentProvider = {
      ...createSandboxProvider({
        key: sandboxKey(testDataDir()),
        deliver: (name, body, headers) => app.services.donations.receiveWebhook(name, body, headers).then(() => {}),
      }),
      async chargeSaved(p) {
        entered();
        await gate;
        return sandbox!.chargeSaved(p);
      },
    };
    sandbox = createSandboxProvider({
      key: sandboxKey(testDataDir()),
      deliver: (name, body, headers) => app.services.donations.receiveWebhook(name, body, headers).then(() => {}),
    });
    const second = await database.reopen();
    const appA = checkContract(await buildApp({ config: testConfig(), db: database.db, client: 'none', logger: false, payments: held }));
    const appB = checkContract(await buildApp({ config: testConfig(), db: second.db, client: 'none', logger: false }));
    try {
      const sub = await dueSubscription();
      const runA = appA.jobs.runNow();
      await charging;
      expect(await appB.jobs.runNow()).toBeNull();
      const refused = await call(appB, admin, { method: 'POST', url: '/api/admin/cron/run' });
      expect([refused.statusCode, refused.json()]).toEqual([409, { error: M.cronRunInProgress }]);
      expect((await call(appB, admin, { method: 'GET', url: '/api/admin/cron/status' })).json().running).toBe(true);
      release();
      expect(await runA).toMatchObject({ status: 'succeeded', counts: { charged: 1 } });
      expect(await charges(sub)).toBe(2);
      // and once A is done, B may run
      expect(await appB.jobs.runNow()).toMatchObject({ status: 'succeeded', counts: { charged: 0 } });
    } finally {
      await appA.close();
      await appB.close();
      await second.close();
    }
  });

  it('a provider that throws fails the charge, not the run, and the next run goes ahead', async () => {
    const failing: PaymentProvider = {
      ...createSandboxProvider({ key: sandboxKey(testDataDir()), deliver: async () => {} }),
      async chargeSaved() {
        throw new Error('the provider fell over');
      },
    };
    const broken = checkContract(await buildApp({ config: testConfig(), db: database.db, client: 'none', logger: false, payments: failing }));
    try {
      const sub = await dueSubscription();
      // a provider that throws is a failed charge, not a failed run
      expect(await broken.jobs.runNow()).toMatchObject({ status: 'succeeded', counts: { charged: 1, failed: 1 } });
      expect((await database.db.select().from(subscriptions).where(eq(subscriptions.id, sub)))[0].failedAttempts).toBe(1);
    } finally {
      await broken.close();
    }
    // the next run is free to go (the retry is two days away, so nothing is charged)
    expect(await app.jobs.runNow()).toMatchObject({ status: 'succeeded', counts: { charged: 0 } });
  });

  it.runIf(inject('dbKind') === 'postgres')('a process that dies mid-run leaves no lock behind (PostgreSQL)', async () => {
    // another process's run: a connection holding the run lock in an open transaction
    const other = await database.reopen();
    const client = (other.db as unknown as { $client: Sql }).$client;
    const conn = await client.reserve();
    try {
      await conn`begin`;
      await conn`select pg_advisory_xact_lock(${RUN_LOCK_KEY})`;
      const [{ pid }] = await conn<{ pid: number }[]>`select pg_backend_pid() as pid`;
      expect(await app.jobs.runNow()).toBeNull();
      expect((await call(app, admin, { method: 'GET', url: '/api/admin/cron/status' })).json().running).toBe(true);
      // the process dies: its connection goes, and the lock with it
      const mine = (database.db as unknown as { $client: Sql }).$client;
      await mine`select pg_terminate_backend(${pid})`;
      // the backend goes away on its own time: wait until it has (a condition, not a time)
      await expect
        .poll(async () => (await mine<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where pid = ${pid}`)[0].n, { interval: 20 })
        .toBe(0);
      // and the next run takes the lock (polled: the lock goes with the backend's exit)
      await expect.poll(async () => (await app.jobs.runNow())?.status ?? 'locked', { interval: 20 }).toBe('succeeded');
    } finally {
      conn.release();
      await other.close().catch(() => {});
    }
  });
});
