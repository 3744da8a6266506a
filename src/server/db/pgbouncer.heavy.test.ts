import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CONDITION_WAIT_MS } from '../../../test/limits';
import { projectRoot } from '../http/client-app';
import { arrayRunner } from './array-rows';
import { type Database, openCheckedDatabase, openPostgres, rowsOf } from './client';

/**
 * Behind PgBouncer in transaction mode (issue #31), as most hosted PostgreSQL is reached at scale:
 * each transaction may run on any of the pooler's server connections. A real PgBouncer (Debian's
 * `pgbouncer`, which CI installs) is started here in front of the test server, and:
 *   - the failure DATABASE_PREPARE=off guards: with postgres.js's prepared statements on, queries
 *     sent together through the pooler fail or never answer; off, the same queries all answer;
 *   - the server opens through it as configured (DATABASE_URL the pooler, DIRECT_DATABASE_URL the
 *     server), though PgBouncer refuses the session settings it is sent at connection;
 *   - the server tests of every module run with their apps' connections through it (the test
 *     files' databases are still made on the server itself: test/helpers.ts).
 * PostgreSQL only, and only where pgbouncer is installed.
 */

const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', ...(process.env.PATH ?? '').split(':').map((d) => path.join(d, 'pgbouncer'))].find((p) =>
  existsSync(p),
);
const enabled = inject('dbKind') === 'postgres' && PGBOUNCER !== undefined;

/**
 * Server test files whose apps run through the pooler: one or more for each module and for the
 * parts that hold transactions, locks or streams (jobs' run lock, payments' webhooks, uploads, the
 * tRPC door, CSV exports). The whole server lane took about four times as long.
 */
const THROUGH_POOLER = [
  'src/server/modules/admin/admin.test.ts',
  'src/server/modules/auth/auth.test.ts',
  'src/server/modules/blocks/blocks.test.ts',
  'src/server/modules/campaigns/campaigns.test.ts',
  'src/server/modules/comments/comments.test.ts',
  'src/server/modules/disputes/disputes.test.ts',
  'src/server/modules/donations/donations.test.ts',
  'src/server/modules/favorites/favorites.test.ts',
  'src/server/modules/payouts/payouts.test.ts',
  'src/server/modules/previews/previews.test.ts',
  'src/server/modules/projects/projects.test.ts',
  'src/server/modules/stats/stats.test.ts',
  'src/server/modules/supports/supports.test.ts',
  'src/server/modules/tags/tags.test.ts',
  'src/server/modules/teams/teams.test.ts',
  'src/server/modules/updates/updates.test.ts',
  'src/server/modules/uploads/uploads.test.ts',
  'src/server/modules/users/users.test.ts',
  'src/server/jobs/jobs.test.ts',
  'src/server/payments/stripe.test.ts',
  'src/server/trpc/http.test.ts',
  'src/server/http/csv-export.test.ts',
];

interface Pooler {
  /** The pooler's URL for a database of the server (by the path of a server URL). */
  url(serverUrl: string): string;
  /** What PgBouncer logged so far. */
  log(): string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * PgBouncer in transaction mode on a free port in front of the server at `serverUrl`, with trust
 * authentication; `aliases` are database entries of their own (name: PgBouncer's options).
 */
async function startPgbouncer(serverUrl: string, aliases: Record<string, string> = {}): Promise<Pooler> {
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username) || 'postgres';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kindling-pgbouncer-'));
  // PgBouncer refuses to run as root: it is then started as nobody, who must read its files
  chmodSync(dir, 0o755);
  const port = await freePort();
  const password = server.password ? ` password=${decodeURIComponent(server.password)}` : '';
  writeFileSync(path.join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      ...Object.entries(aliases).map(([alias, options]) => `${alias} = host=${server.hostname} port=${server.port || '5432'}${password} ${options}`),
      `* = host=${server.hostname} port=${server.port || '5432'}${password}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 20',
      'max_client_conn = 500',
      '',
    ].join('\n'),
  );
  const args = process.getuid?.() === 0 ? ['-u', 'nobody', path.join(dir, 'pgbouncer.ini')] : [path.join(dir, 'pgbouncer.ini')];
  const child: ChildProcess = spawn(PGBOUNCER as string, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  await new Promise<void>((resolve, reject) => {
    const onData = (d: string) => {
      log += d;
      if (log.includes('process up')) resolve();
    };
    child.stdout?.setEncoding('utf8').on('data', onData);
    child.stderr?.setEncoding('utf8').on('data', onData);
    child.on('error', reject);
    void exited.then(() => reject(new Error(`pgbouncer exited before it was up:\n${log}`)));
  });
  return {
    url(forServerUrl) {
      const u = new URL(forServerUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      u.password = '';
      return u.toString();
    },
    log: () => log,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const SMALL_POOL = 'kindling_small_pool';
let pooler: Pooler;
let dbUrl: string;
let dropDatabase: () => Promise<void>;

beforeAll(async () => {
  if (!enabled) return;
  // a database of this file's own, cloned from the migrated template
  const { default: pg } = await import('postgres');
  const admin = pg(inject('pgAdminUrl'), { max: 1, onnotice: () => {} });
  const name = `${inject('pgDbPrefix')}pgb${Math.random().toString(36).slice(2, 10)}`;
  await admin.unsafe(`create database ${name} template ${inject('pgTemplate')}`);
  const u = new URL(inject('pgAdminUrl'));
  u.pathname = `/${name}`;
  dbUrl = u.toString();
  // the same database as SMALL_POOL too, with fewer server connections than the client has, as when
  // several processes share a pooler (an alias: PgBouncer sizes pools per database entry)
  pooler = await startPgbouncer(inject('pgAdminUrl'), { [SMALL_POOL]: `dbname=${name} pool_size=2` });
  dropDatabase = async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
});
afterAll(async () => {
  await pooler?.stop();
  await dropDatabase?.();
});

/** Fewer client connections than queries: postgres.js then sends several queries down one connection without waiting (pipelining). */
const CLIENTS = 4;
const SENDERS = 32;
const EACH = 13;
const SHAPES = [
  'select $1::int as n',
  'select $1::int + 0 as n',
  'select $1::text::int as n',
  'select $1::int * 1 as n, 1 as one',
  'select $1::bigint::int as n',
];

/**
 * SENDERS at once, each sending EACH queries of SHAPES one after another, as the app's hot paths
 * send theirs (arrayRunner, prepared: the campaign lists, the donations' statements): how many
 * answered right and how many failed, once all answered or one failed.
 */
async function burst(database: Database): Promise<{ answered: number; failed: number; errors: string[] }> {
  const run = arrayRunner(database.db);
  const total = SENDERS * EACH;
  let answered = 0;
  let failed = 0;
  const errors: string[] = [];
  for (let s = 0; s < SENDERS; s++) {
    void (async () => {
      for (let i = 0; i < EACH; i++) {
        const n = s * 1000 + i;
        try {
          const [row] = await run({ sql: SHAPES[(s + i) % SHAPES.length], params: [n] }, true);
          if (Number(row?.[0]) === n) answered++;
          else {
            failed++;
            errors.push(`wrong answer ${JSON.stringify(row)} for ${n}`);
          }
        } catch (err) {
          failed++;
          errors.push((err as Error).message);
          return;
        }
      }
    })();
  }
  // until every query answered or one failed; a query that never answers leaves it at the cap
  for (let polls = 0; polls < CONDITION_WAIT_MS / 50 && failed === 0 && answered < total; polls++) await new Promise((r) => setTimeout(r, 50));
  return { answered, failed, errors };
}

describe.skipIf(!enabled)('behind PgBouncer in transaction mode', () => {
  it('prepared statements break queries sent together; with DATABASE_PREPARE=off all answer', async () => {
    const small = pooler.url(dbUrl).replace(/\/[^/]*$/, `/${SMALL_POOL}`);
    const off = await openPostgres(small, { max: CLIENTS, prepare: false, sessionSettings: false });
    try {
      expect(await burst(off)).toEqual({ answered: SENDERS * EACH, failed: 0, errors: [] });
    } finally {
      await off.close();
    }
    const on = await openPostgres(small, { max: CLIENTS, prepare: true, sessionSettings: false });
    try {
      const result = await burst(on);
      expect(result.answered, result.errors.join('\n')).toBeLessThan(SENDERS * EACH);
    } finally {
      // queries the pooler never answered are abandoned with their connections
      await on.close().catch(() => {});
    }
  });

  it('the server opens through it: migrations on the direct URL, queries through the pooler, the refused settings named', async () => {
    const database = await openCheckedDatabase({ databaseUrl: pooler.url(dbUrl), directDatabaseUrl: dbUrl, prepare: false, dataDir: '' });
    try {
      expect(database.describe).toContain('prepared statements off');
      // PgBouncer refuses the settings at connection: the log line says so and how to set them
      expect(database.describe).toContain("ALTER DATABASE ... SET jit = 'off'");
      await database.migrate();
      const [row] = rowsOf<{ port: number }>(await database.db.execute(sql`select inet_server_port() as port, count(*)::int as users from users`));
      expect(Number(row.port)).toBe(Number(new URL(dbUrl).port || 5432));
      // the app's connection went through the pooler: it logged this database's client
      expect(pooler.log()).toContain(`db=${new URL(dbUrl).pathname.slice(1)}`);
    } finally {
      await database.close();
    }
  });

  it("runs every module's server tests with the apps' connections through it", async () => {
    const child = spawn(path.join(projectRoot, 'node_modules', '.bin', 'vitest'), ['run', '--project', 'server', '--maxWorkers=1', ...THROUGH_POOLER], {
      cwd: projectRoot,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TESTCONTAINERS: '0',
        TEST_DATABASE_URL: inject('pgAdminUrl'),
        TEST_DATABASE_POOLED_URL: pooler.url(inject('pgAdminUrl')),
        DATABASE_PREPARE: 'off',
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (out += d));
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code, out).toBe(0);
    expect(out).toMatch(new RegExp(`Test Files\\s+${THROUGH_POOLER.length} passed`));
    // every file's app connected through the pooler (to its own database, kt_<run>_...)
    const seen = new Set(pooler.log().match(/db=kt_\d+_[a-z0-9]+/g) ?? []);
    expect(seen.size).toBeGreaterThanOrEqual(THROUGH_POOLER.length);
  });
});
