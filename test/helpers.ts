import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { expect, inject } from 'vitest';
import { buildApp } from '../src/server/app';
import { loadConfig, type Config } from '../src/server/config';
import { openPglite, openPostgres, type Database } from '../src/server/db/client';
import { emailOutbox, ledgerEntries } from '../src/server/db/schema';
import { checkContract } from './contract';
import { pooledUrl, throughPooler } from './pgbouncer';

export const ORIGIN = 'http://localhost:3000';

/** A database of this test file's own, cloned from the migrated template (or PGlite dump). */
export async function openTestDatabase(): Promise<Database & { reopen(): Promise<Database> }> {
  if (inject('dbKind') === 'postgres') {
    const { default: postgres } = await import('postgres');
    const adminUrl = inject('pgAdminUrl');
    const name = `${inject('pgDbPrefix')}${Math.random().toString(36).slice(2, 10)}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name} template ${inject('pgTemplate')}`);
    const u = new URL(adminUrl);
    u.pathname = `/${name}`;
    const url = u.toString();
    const open = (): Promise<Database> => openThrough(url);
    const first = await open();
    return {
      ...first,
      reopen: open,
      async close() {
        await first.close();
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
      },
    };
  }
  const dump = new Blob([readFileSync(inject('pgliteDump'))]);
  const db = await openPglite(undefined, { loadDataDir: dump });
  // PGlite in memory cannot be opened twice: a "restart" keeps the same instance under a new app
  return { ...db, reopen: async () => ({ ...db, close: async () => {} }) };
}

/**
 * A pooler in front of the test server (PgBouncer in transaction mode): the file's app reaches its
 * database through it, as DATABASE_URL behind a pooler, with DATABASE_PREPARE (default off here)
 * and without the session settings a pooler refuses; the file's database is still made, and its
 * migrations run, on the server itself (the direct URL). TEST_DATABASE_POOLED_URL sends every file
 * through a pooler of your own; otherwise the files test/pgbouncer.ts names go through the run's
 * (test/global-setup.ts), when there is one.
 */
function poolerFor(directUrl: string): string | undefined {
  const own = process.env.TEST_DATABASE_POOLED_URL;
  if (own) return pooledUrl(own, directUrl);
  const run = inject('pgPooledUrl');
  const file = expect.getState().testPath;
  if (run && file && throughPooler(file)) return pooledUrl(run, directUrl);
  return undefined;
}
function openThrough(directUrl: string): Promise<Database> {
  const pooled = poolerFor(directUrl);
  if (!pooled) return openPostgres(directUrl, { max: 5 });
  return openPostgres(pooled, { max: 5, directUrl, prepare: process.env.DATABASE_PREPARE === 'on', sessionSettings: false });
}

let tempDataDir: string | undefined;
/** A data directory of this test file's own (uploads land there), removed when the process ends. */
export function testDataDir(): string {
  if (!tempDataDir) {
    tempDataDir = mkdtempSync(path.join(os.tmpdir(), 'kindling-data-'));
    const dir = tempDataDir;
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return tempDataDir;
}

/**
 * The app's configuration for a test. The per-account write budgets are off by default: tests
 * build their fixtures from one account faster than any person writes. write-limits.test.ts
 * turns them on (`writeLimits: true`) and checks each one. So is the per-address limit on
 * requests in progress and its budget over time (many tests send everything from one address at
 * once, and faster than a person); http/client-limit.test.ts turns them on (`clientConcurrency`,
 * `clientQueue`, `clientRate`, `clientBurst`).
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({ NODE_ENV: 'test', APP_URL: ORIGIN, RATE_LIMIT_PER_MINUTE: '10', WRITE_LIMITS: 'off', CLIENT_CONCURRENCY: '0', CLIENT_RATE: '0' }),
    dataDir: testDataDir(),
    ...overrides,
  };
}

/** One line of the app's JSON log. */
export interface LogLine {
  level: number;
  msg: string;
  err?: { message?: string };
  res?: { statusCode?: number };
  [field: string]: unknown;
}

/** A log stream for buildApp's `logStream` whose lines a test reads back (`lines`). */
export function capturedLog(): { stream: Writable; lines: LogLine[] } {
  const lines: LogLine[] = [];
  let partial = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) if (line.trim()) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { stream, lines };
}

/** The app of a test, every /api answer held against its OpenAPI document (test/contract.ts). */
export async function buildTestApp(db: Database, overrides: Partial<Config> = {}, log?: { stream: Writable }): Promise<FastifyInstance> {
  const app = checkContract(
    await buildApp({ config: testConfig(overrides), db: db.db, client: 'none', ...(log ? { logStream: log.stream } : { logger: false }) }),
  );
  await app.ready();
  return app;
}

let ipCounter = 1;
/** A fresh client address, so rate limits of one test never touch another. */
export function freshIp(): string {
  ipCounter += 1;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

let seq = 0;
export function uniqueEmail(prefix = 'user'): string {
  seq += 1;
  return `${prefix}.${Date.now().toString(36)}.${seq}@example.com`;
}

export interface Client {
  token?: string;
  cookie?: string;
  ip: string;
}

/** A REST call as a client: bearer token when given, a browser's cookie + Origin when given. */
export function call(app: FastifyInstance, who: Client | null, opts: InjectOptions & { url: string }) {
  const headers: Record<string, string> = { ...(opts.headers as Record<string, string>) };
  if (who?.token) headers.authorization = `Bearer ${who.token}`;
  if (who?.cookie) {
    headers.cookie = who.cookie;
    if (opts.method && opts.method !== 'GET' && headers.origin === undefined) headers.origin = ORIGIN;
  }
  return app.inject({ ...opts, headers, remoteAddress: who?.ip ?? '127.0.0.1' });
}

export const PASSWORD = 'correct horse battery';

/** Registers through the REST door and returns the account's email. */
export async function register(app: FastifyInstance, p: { email?: string; username?: string; password?: string } = {}) {
  const email = p.email ?? uniqueEmail();
  const res = await call(
    app,
    { ip: freshIp() },
    {
      method: 'POST',
      url: '/api/auth/register',
      payload: { email, password: p.password ?? PASSWORD, username: p.username },
    },
  );
  if (res.statusCode !== 201) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
  return email;
}

export async function login(app: FastifyInstance, email: string, password = PASSWORD): Promise<{ token: string; ip: string; userId: string; cookie: string }> {
  const ip = freshIp();
  const res = await call(app, { ip }, { method: 'POST', url: '/api/auth/login', payload: { email, password } });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  const body = res.json() as { token: string; user: { _id: string } };
  const setCookie = res.cookies.find((c) => c.name === 'session');
  return { token: body.token, userId: body.user._id, ip, cookie: `session=${setCookie?.value}` };
}

/** Registers and signs in: a bearer-token client. */
export async function signUp(app: FastifyInstance, p: { email?: string; username?: string; password?: string } = {}) {
  const email = await register(app, p);
  const c = await login(app, email, p.password ?? PASSWORD);
  return { email, token: c.token, userId: c.userId, ip: c.ip };
}

/** The newest message in the outbox for an address (and kind). */
export async function lastEmail(db: Database, to: string, kind?: string) {
  const rows = await db.db
    .select()
    .from(emailOutbox)
    .where(kind ? and(eq(emailOutbox.to, to), eq(emailOutbox.kind, kind)) : eq(emailOutbox.to, to))
    .orderBy(desc(emailOutbox.createdAt))
    .limit(1);
  return rows[0];
}

/** The token in the link of the newest message of a kind. */
export async function tokenFromEmail(db: Database, to: string, kind: 'verify_email' | 'reset_password'): Promise<string> {
  const mail = await lastEmail(db, to, kind);
  if (!mail) throw new Error(`no ${kind} email for ${to}`);
  const m = kind === 'verify_email' ? mail.text.match(/verify-email\?token=([a-z0-9]+)/) : mail.text.match(/\/reset\/([a-z0-9]+)/);
  if (!m) throw new Error(`no link in ${kind} email`);
  return m[1];
}

/** Verifies an account's email through the link the app emailed it (paying signed in needs it). */
export async function verifyEmail(app: FastifyInstance, db: Database, email: string): Promise<void> {
  const token = await tokenFromEmail(db, email, 'verify_email');
  const res = await call(app, { ip: freshIp() }, { method: 'GET', url: `/api/auth/verify-email/${token}` });
  if (res.statusCode !== 200) throw new Error(`verify-email failed: ${res.statusCode} ${res.body}`);
}

/** Registers, verifies the email through the emailed link and signs in: a bearer-token client who may donate. */
export async function signUpVerified(app: FastifyInstance, db: Database, p: { email?: string; username?: string; password?: string } = {}) {
  const email = await register(app, p);
  await verifyEmail(app, db, email);
  const c = await login(app, email, p.password ?? PASSWORD);
  return { email, token: c.token, userId: c.userId, ip: c.ip };
}

/** A tRPC call over HTTP as the browser makes it (superjson-wrapped input). */
export async function trpc(app: FastifyInstance, who: Client | null, kind: 'query' | 'mutation', path: string, input?: unknown) {
  const wrapped = input === undefined ? undefined : { json: input };
  const res =
    kind === 'query'
      ? await call(app, who, {
          method: 'GET',
          url: `/trpc/${path}${wrapped ? `?input=${encodeURIComponent(JSON.stringify(wrapped))}` : ''}`,
        })
      : await call(app, who, { method: 'POST', url: `/trpc/${path}`, payload: wrapped ?? {} });
  const body = res.json() as { result?: { data: { json: unknown } }; error?: { json: { message: string; data: { code: string; httpStatus: number } } } };
  return {
    status: res.statusCode,
    // biome-ignore lint/suspicious/noExplicitAny: an answer's JSON, whose fields each test reads and asserts
    data: body.result?.data.json as any,
    error: body.error?.json,
    headers: res.headers,
    cookies: res.cookies,
  };
}

/** A multipart/form-data body built by hand, as a browser would send it. */
export function multipart(files: { field: string; filename: string; data: Buffer; contentType?: string }[]) {
  const boundary = `----kindling${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const f of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${f.filename}"\r\nContent-Type: ${f.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      f.data,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A PNG made on the spot. */
export async function pngImage(width = 320, height = 200, color = { r: 200, g: 80, b: 40 }): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  return sharp({ create: { width, height, channels: 3, background: color } })
    .png()
    .toBuffer();
}

/** Uploads `count` generated images through the real endpoint and returns their {url, alt}. */
export async function uploadImages(app: FastifyInstance, who: Client, count = 1, kind: 'cover' | 'gallery' = 'gallery') {
  const files = [];
  for (let i = 0; i < count; i++) files.push({ field: 'files', filename: `image-${i}.png`, data: await pngImage(320 + i, 200), contentType: 'image/png' });
  const body = multipart(files);
  const res = await call(app, who, { method: 'POST', url: `/api/upload/campaign/multi?kind=${kind}`, payload: body.payload, headers: body.headers });
  if (res.statusCode >= 300) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { images: { url: string; alt: string }[] }).images;
}

/** The ledger groups that do not sum to zero in a currency (none, ever: the tests check it after their steps). */
export async function unbalancedLedgerGroups(db: Database['db']): Promise<string[]> {
  const rows = await db
    .select({ g: ledgerEntries.groupId })
    .from(ledgerEntries)
    .groupBy(ledgerEntries.groupId, ledgerEntries.currency)
    .having(sql`sum(${ledgerEntries.amount}) <> 0`);
  return rows.map((r) => r.g);
}
