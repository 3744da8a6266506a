import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { desc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildTestApp, multipart, PASSWORD, pngImage, signUpVerified } from '../../test/helpers';
import { CONDITION_WAIT_MS } from '../../test/limits';
import { type Database, openPostgres } from './db/client';
import { donations, subscriptions } from './db/schema';
import { compiled } from '../../test/processes';
import { projectRoot } from './http/client-app';
import { periodOf } from './modules/donations/service';
import { setAdmin } from './modules/users/admin-grant';

/**
 * Two instances, proven (issue #31 point 9): two real app processes on one PostgreSQL database
 * and one S3 server (s3rver, the S3 protocol spoken to the real SDK), each the app as main.ts
 * builds it (config from the environment, the database checked and migrated under its lock,
 * buildApp, the health addresses, the drain on SIGTERM), without the built client, which this
 * test does not need. Nothing of one process is on the other's request path:
 * - a session made on one works on the other (sessions are rows);
 * - an image uploaded through one is served by the other (the bucket);
 * - a rate-limit budget spent on one holds on the other (rate_limits rows);
 * - a campaign created on one is found by list and search on the other at once;
 * - the scheduled jobs asked of both at once run once (the advisory lock): a due month is charged once;
 * - one is drained by SIGTERM under a steady load while the other keeps answering: the load moves
 *   to the other once the first's /readyz says 503 (what a balancer does), every request that was
 *   sent gets an answer, none a 5xx, and the drained one exits 0.
 * PostgreSQL only: PGlite is one process's database.
 */

const postgres = inject('dbKind') === 'postgres';
/** The most times a condition is asked (each 50 ms or slower): far above what any needs. */
const MAX_POLLS = CONDITION_WAIT_MS / 50;
const BUCKET = 'kindling-two';

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
// s3rver ships no type declarations
const S3rver = createRequire(import.meta.url)('s3rver') as new (opts: Record<string, unknown>) => S3rverInstance;

const SERVER = `
(async () => {
  const { loadConfig } = await import(${JSON.stringify(path.join(projectRoot, 'src/server/config.ts'))});
  const { openCheckedDatabase } = await import(${JSON.stringify(path.join(projectRoot, 'src/server/db/client.ts'))});
  const { buildApp } = await import(${JSON.stringify(path.join(projectRoot, 'src/server/app.ts'))});
  const { shutdownOnSignals } = await import(${JSON.stringify(path.join(projectRoot, 'src/server/lifecycle.ts'))});
  const config = loadConfig(process.env);
  const database = await openCheckedDatabase({ databaseUrl: config.databaseUrl, directDatabaseUrl: config.directDatabaseUrl, prepare: config.databasePrepare, dataDir: config.dataDir });
  await database.migrate();
  const app = await buildApp({ config, db: database.db, client: 'none' });
  shutdownOnSignals(app, { drainMs: config.shutdownDrainMs, timeoutMs: config.shutdownTimeoutMs, closeDatabase: () => database.close() });
  await app.listen({ port: config.port, host: config.host });
  process.stdout.write('listening ' + app.server.address().port + '\\n');
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
`;

interface Server {
  base: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  stop: () => Promise<number | null>;
}

let url: string;
let s3: S3rverInstance;
let s3Port: number;
let s3Dir: string;
let database: Database;
let app: FastifyInstance;
let dropDatabase: () => Promise<void>;
const dataDirs: string[] = [];
let servers: Server[] = [];
let serverFile: string;

/** One app process on the test's database and bucket; resolves once it listens (its own line on stdout). */
function startServer(env: Record<string, string> = {}): Promise<Server> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kindling-two-'));
  dataDirs.push(dataDir);
  return new Promise((resolve, reject) => {
    // the app's own process (compiled: test/processes.ts), which the signals reach directly
    const child = spawn(process.execPath, [serverFile], {
      cwd: projectRoot,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: 'test',
        DATABASE_URL: url,
        // each its own directory: nothing shared but the database and the bucket
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        APP_URL: 'http://127.0.0.1',
        LOG_LEVEL: 'warn',
        SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'),
        JOBS: 'off',
        TRUST_PROXY: 'true',
        RATE_LIMIT_PER_MINUTE: '10',
        WRITE_LIMITS: 'off',
        CLIENT_CONCURRENCY: '0',
        CLIENT_RATE: '0',
        SHUTDOWN_DRAIN_SECONDS: '1',
        SHUTDOWN_TIMEOUT_SECONDS: '30',
        S3_BUCKET: BUCKET,
        S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
        S3_FORCE_PATH_STYLE: 'true',
        // s3rver checks the key's name, not the signature
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const server: Server = {
      base: '',
      child,
      output: () => out,
      exited,
      stop: async () => {
        if (child.exitCode === null) child.kill('SIGTERM');
        return exited;
      },
    };
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /^listening (\d+)$/m.exec(out);
      if (m && !server.base) {
        server.base = `http://127.0.0.1:${m[1]}`;
        resolve(server);
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    void exited.then((code) => reject(new Error(`the server exited (${code}) before listening:\n${out}`)));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < MAX_POLLS; i++) {
    if (await done()) return;
    await sleep(50);
  }
  throw new Error(`${what}: not after ${MAX_POLLS} polls`);
}

/** A request to one instance as a client at `ip` (the instances trust X-Forwarded-For, as behind a balancer). */
async function ask(
  server: Server,
  pathname: string,
  init: { method?: string; token?: string; ip?: string; json?: unknown; body?: Buffer; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { 'x-forwarded-for': init.ip ?? '10.9.0.1', ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(server.base + pathname, {
    method: init.method ?? 'GET',
    headers,
    body: init.json !== undefined ? JSON.stringify(init.json) : init.body && new Uint8Array(init.body),
  });
  const type = res.headers.get('content-type') ?? '';
  const body: unknown = type.includes('json') ? await res.json() : Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body };
}

beforeAll(async () => {
  if (!postgres) return;
  // a database of this file's own, as openTestDatabase makes it, whose address the processes are given
  const { default: pg } = await import('postgres');
  const admin = pg(inject('pgAdminUrl'), { max: 1, onnotice: () => {} });
  const name = `${inject('pgDbPrefix')}two${Math.random().toString(36).slice(2, 10)}`;
  await admin.unsafe(`create database ${name} template ${inject('pgTemplate')}`);
  const u = new URL(inject('pgAdminUrl'));
  u.pathname = `/${name}`;
  url = u.toString();
  database = await openPostgres(url, { max: 5 });
  dropDatabase = async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
  s3Dir = mkdtempSync(path.join(os.tmpdir(), 'kindling-two-s3-'));
  serverFile = await compiled({ name: 'instance', source: SERVER });
  s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3Dir, configureBuckets: [{ name: BUCKET }] });
  s3Port = (await s3.run()).port;
  // fixtures the processes do not make themselves (a verified account, an admin) come through an app in this process
  app = await buildTestApp(database);
  servers = await Promise.all([startServer(), startServer()]);
});
afterAll(async () => {
  for (const s of servers) await s.stop();
  await app?.close();
  await database?.close();
  await dropDatabase?.();
  await s3?.close();
  for (const dir of [...dataDirs, s3Dir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!postgres)('two instances on one database and one bucket', () => {
  it('share sessions, images, rate limits, new campaigns and the scheduled jobs, with nothing between them', async () => {
    const [a, b] = servers;
    for (const s of servers) expect((await ask(s, '/readyz')).status).toBe(200);

    // a session made on A works on B, and signing out on B ends it on A
    const person = await signUpVerified(app, database, { username: 'two_instances' });
    const login = await ask(a, '/api/auth/login', { method: 'POST', json: { email: person.email, password: PASSWORD }, ip: '10.9.1.1' });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const token = (login.body as { token: string }).token;
    expect(((await ask(b, '/api/auth/me', { token })).body as { _id: string })._id).toBe(person.userId);

    // an image uploaded through A is served by B, the same bytes
    const png = await pngImage(400, 300);
    const form = multipart([{ field: 'files', filename: 'two.png', data: png, contentType: 'image/png' }]);
    const uploaded = await ask(a, '/api/upload/campaign/multi?kind=gallery', {
      method: 'POST',
      token,
      body: form.payload,
      headers: form.headers as Record<string, string>,
    });
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
    const image = (uploaded.body as { images: { url: string }[] }).images[0];
    const fromA = await ask(a, image.url);
    const fromB = await ask(b, image.url);
    expect([fromA.status, fromB.status]).toEqual([200, 200]);
    expect(fromB.headers.get('content-type')).toBe('image/webp');
    expect((fromB.body as Buffer).equals(fromA.body as Buffer)).toBe(true);

    // a campaign created on A is found on B at once, by list and by search
    const created = await ask(a, '/api/campaigns', { method: 'POST', token, json: { title: 'Harbour lanterns for two instances', images: [image] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = (created.body as { _id: string })._id;
    const listed = await ask(b, '/api/campaigns?limit=5');
    expect((listed.body as { items: { _id: string }[] }).items.map((c) => c._id)).toContain(id);
    const found = await ask(b, '/api/campaigns?q=lanterns%20harbour');
    expect((found.body as { items: { _id: string }[] }).items.map((c) => c._id)).toEqual([id]);
    expect(((await ask(b, `/api/campaigns/${id}`)).body as { title: string }).title).toBe('Harbour lanterns for two instances');

    // a rate-limit budget spent on A holds on B: 10 a minute for one address, the 11th refused wherever it lands
    const ip = '10.9.2.2';
    for (let i = 0; i < 10; i++) {
      const s = i % 2 === 0 ? a : b;
      expect((await ask(s, '/api/auth/forgot-password', { method: 'POST', json: { email: `nobody${i}@example.com` }, ip })).status).toBe(200);
    }
    const refused = await ask(b, '/api/auth/forgot-password', { method: 'POST', json: { email: 'nobody@example.com' }, ip });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);

    // the scheduled jobs asked of both at once, three times each: a due month is charged once
    const admin = await signUpVerified(app, database, { username: 'two_admin' });
    await setAdmin(database.db, admin.email, true);
    const gift = await ask(a, `/api/campaigns/${id}/donations`, {
      method: 'POST',
      token: admin.token,
      json: { amount: 7, monthly: true, card: '4242424242424242' },
      headers: { 'idempotency-key': 'two-instances-monthly' },
    });
    expect(gift.status, JSON.stringify(gift.body)).toBe(201);
    const [sub] = await database.db.select().from(subscriptions).where(eq(subscriptions.donorId, admin.userId)).orderBy(desc(subscriptions.createdAt)).limit(1);
    const lastMonth = new Date();
    lastMonth.setUTCDate(1);
    lastMonth.setUTCMonth(lastMonth.getUTCMonth() - 1);
    await database.db
      .update(donations)
      .set({ period: periodOf(lastMonth) })
      .where(eq(donations.subscriptionId, sub.id));
    await database.db
      .update(subscriptions)
      .set({ nextChargeAt: new Date(Date.now() - 60_000) })
      .where(eq(subscriptions.id, sub.id));
    const runs = await Promise.all([a, b, a, b, a, b].map((s) => ask(s, '/api/admin/cron/run', { method: 'POST', token: admin.token })));
    expect(
      runs.every((r) => r.status === 200 || r.status === 409),
      JSON.stringify(runs.map((r) => r.status)),
    ).toBe(true);
    expect(runs.some((r) => r.status === 200)).toBe(true);
    const charged = runs.filter((r) => r.status === 200).map((r) => (r.body as { counts: { charged: number } }).counts.charged);
    expect(charged.reduce((n, c) => n + c, 0)).toBe(1);
    expect(await database.db.select().from(donations).where(eq(donations.subscriptionId, sub.id))).toHaveLength(2);
  });

  it('one drained by SIGTERM under a steady load while the other keeps answering: every request answered, none a 5xx', async () => {
    const [a, b] = servers;
    // the balancer: A while its /readyz says 200, else B, asking A's readiness between requests
    let aReady = true;
    let stop = false;
    const answers: { to: 'a' | 'b'; status: number }[] = [];
    const failures: string[] = [];
    const pollReady = (async () => {
      while (!stop && aReady) {
        try {
          aReady = (await fetch(`${a.base}/readyz`)).status === 200;
        } catch {
          aReady = false;
        }
        await sleep(20);
      }
    })();
    const client = async (n: number) => {
      while (!stop) {
        const to = aReady ? 'a' : 'b';
        try {
          const res = await fetch(`${(to === 'a' ? a : b).base}/api/campaigns?limit=3`, { headers: { 'x-forwarded-for': `10.9.3.${n}` } });
          await res.arrayBuffer();
          answers.push({ to, status: res.status });
        } catch (err) {
          failures.push(`${to}: ${(err as Error).cause ?? err}`);
        }
      }
    };
    const load = [1, 2, 3, 4].map(client);
    await until('A answered some of the load', async () => answers.filter((x) => x.to === 'a').length >= 20);
    a.child.kill('SIGTERM');
    await until('the balancer saw A leave', async () => !aReady);
    const bBefore = answers.filter((x) => x.to === 'b').length;
    await until('B took the load', async () => answers.filter((x) => x.to === 'b').length >= bBefore + 40);
    const code = await a.exited;
    stop = true;
    await Promise.all([...load, pollReady]);

    expect(code, a.output().slice(-3000)).toBe(0);
    expect(failures).toEqual([]);
    expect(answers.filter((x) => x.status >= 500)).toEqual([]);
    expect(answers.filter((x) => x.to === 'a').length).toBeGreaterThanOrEqual(20);
    // B kept answering, and still does
    expect((await ask(b, '/readyz')).status).toBe(200);
    servers = [b];
  });
});
