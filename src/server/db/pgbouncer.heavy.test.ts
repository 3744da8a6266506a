import { existsSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CONDITION_WAIT_MS } from '../../../test/limits';
import { PGBOUNCER, type Pooler, pooledUrl, startPgbouncer, THROUGH_POOLER, throughPooler } from '../../../test/pgbouncer';
import { projectRoot } from '../http/client-app';
import { arrayRunner } from './array-rows';
import { type Database, openCheckedDatabase, openPostgres, rowsOf } from './client';
import { openReplica } from './replica';

/**
 * Behind PgBouncer in transaction mode (issue #31), as most hosted PostgreSQL is reached at scale:
 * each transaction may run on any of the pooler's server connections. A real PgBouncer (Debian's
 * `pgbouncer`, which CI installs) is started here in front of the test server, and:
 *   - the failure DATABASE_PREPARE=off guards: with postgres.js's prepared statements on, queries
 *     sent together through the pooler fail or never answer; off, the same queries all answer;
 *   - the server opens through it as configured (DATABASE_URL the pooler, DIRECT_DATABASE_URL the
 *     server), though PgBouncer refuses the session settings it is sent at connection;
 *   - the server test files of every module that test/pgbouncer.ts names run, in the server
 *     lane, with their apps' connections through the run's PgBouncer (test/global-setup.ts,
 *     test/helpers.ts; their databases are still made on the server itself).
 * PostgreSQL only, and only where pgbouncer is installed.
 */

const enabled = inject('dbKind') === 'postgres' && PGBOUNCER !== undefined;

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

  it('a read replica reached through it opens without the settings it refuses, and says how to set them', async () => {
    const replica = await openReplica(pooler.url(dbUrl), { prepare: false });
    try {
      expect(replica.describe).toContain('a pooler refused the connection settings');
      expect(replica.describe).toContain("ALTER ROLE ... SET default_transaction_read_only = 'true'");
      // this file's database is a primary, not a standby: what a start would warn about
      expect(replica.standby).toBe(false);
      const [row] = rowsOf<{ n: number }>(await replica.db.execute(sql`select count(*)::int as n from users`));
      expect(typeof row.n).toBe('number');
      expect(replica.up()).toBe(true);
    } finally {
      await replica.close();
    }
  });

  it("is what the run's server test files of every module reach their databases through", async () => {
    // test/global-setup.ts started the run's pooler, and test/helpers.ts sends the files named
    // in THROUGH_POOLER through it with prepared statements off: those files pass that way
    expect(inject('pgPooledUrl')).not.toBe('');
    for (const file of THROUGH_POOLER) {
      expect(existsSync(path.join(projectRoot, file)), file).toBe(true);
      expect(throughPooler(path.join(projectRoot, file)), file).toBe(true);
    }
    expect(throughPooler(path.join(projectRoot, 'src/server/modules/campaigns/drafts.test.ts'))).toBe(false);
    const through = await openPostgres(pooledUrl(inject('pgPooledUrl'), dbUrl), { max: 2, prepare: false, sessionSettings: false });
    try {
      const [row] = rowsOf<{ db: string }>(await through.db.execute(sql`select current_database() as db`));
      expect(row.db).toBe(new URL(dbUrl).pathname.slice(1));
    } finally {
      await through.close();
    }
  });
});
