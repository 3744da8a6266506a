import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ProvidedContext } from 'vitest';
import type { TestProject } from 'vitest/node';
import { openPglite, openPostgres } from '../src/server/db/client';
import { PGBOUNCER, startPgbouncer } from './pgbouncer';
import { COMPILED_DIR } from './processes';

/**
 * Picks the test database once for the whole run:
 *   TEST_DATABASE_URL if set, else a testcontainers Postgres if a container runtime answers,
 *   else PGlite. On Postgres a migrated template database is made, and each test file clones
 *   it (CREATE DATABASE ... TEMPLATE); on PGlite a migrated data dump is loaded per file.
 * On PostgreSQL with Debian's pgbouncer installed (CI installs it), a PgBouncer in transaction mode
 * is started in front of the server for the files test/pgbouncer.ts names.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    dbKind: 'postgres' | 'pglite';
    dbDescribe: string;
    /** Postgres: a URL to a maintenance database of the server, and the template's name. */
    pgAdminUrl: string;
    pgTemplate: string;
    /** Prefix of the per-file databases, so the run can drop any a crashed worker left. */
    pgDbPrefix: string;
    /** PGlite: a file holding the migrated data directory. */
    pgliteDump: string;
    /** Postgres with pgbouncer installed: the run's pooler (transaction mode) as a base URL, else ''. */
    pgPooledUrl: string;
  }
}

async function containerRuntimeAvailable(): Promise<boolean> {
  if (process.env.TESTCONTAINERS === '0') return false;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

type Provided = Pick<ProvidedContext, 'dbKind' | 'dbDescribe' | 'pgAdminUrl' | 'pgTemplate' | 'pgDbPrefix' | 'pgliteDump' | 'pgPooledUrl'>;

/** The database of the whole run, made once, and what undoes it. */
interface RunDatabase {
  provided: Provided;
  teardown: () => Promise<void> | void;
  /** Projects still using it; the last one's teardown undoes it. */
  users: number;
}

async function prepare(): Promise<RunDatabase> {
  let serverUrl = process.env.TEST_DATABASE_URL;
  let stopContainer: (() => Promise<unknown>) | undefined;
  let source = 'TEST_DATABASE_URL';
  if (!serverUrl && (await containerRuntimeAvailable())) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:15-alpine').start();
    serverUrl = container.getConnectionUri();
    stopContainer = () => container.stop();
    source = 'testcontainers';
  }

  if (serverUrl) {
    const template = `kindling_test_tmpl_${process.pid}`;
    const { default: postgres } = await import('postgres');
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${template}`);
    await admin.unsafe(`create database ${template}`);
    const tmpl = await openPostgres(withDatabase(serverUrl, template), { max: 1 });
    await tmpl.migrate();
    await tmpl.close();
    const pooler = PGBOUNCER ? await startPgbouncer(serverUrl) : undefined;
    const provided: Provided = {
      dbKind: 'postgres',
      dbDescribe: `PostgreSQL (${source})`,
      pgAdminUrl: serverUrl,
      pgTemplate: template,
      pgDbPrefix: `kt_${process.pid}_`,
      pgliteDump: '',
      pgPooledUrl: pooler ? pooler.url(serverUrl) : '',
    };
    console.log(
      `[tests] database: PostgreSQL via ${source}; each test file gets its own database${pooler ? ', some through PgBouncer (test/pgbouncer.ts)' : ''}`,
    );
    const teardown = async () => {
      // drop what the files made (they drop their own; this catches crashed workers)
      const left = await admin<{ datname: string }[]>`select datname from pg_database where datname like ${`kt_${process.pid}_%`}`;
      for (const d of left) await admin.unsafe(`drop database if exists ${d.datname} with (force)`);
      await admin.unsafe(`drop database if exists ${template}`);
      await admin.end();
      await pooler?.stop();
      await stopContainer?.();
    };
    return { provided, teardown, users: 0 };
  }

  const dir = mkdtempSync(path.join(os.tmpdir(), 'kindling-test-'));
  const db = await openPglite(undefined);
  await db.migrate();
  const dump = await db.dump!();
  const file = path.join(dir, 'migrated.tar.gz');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await db.close();
  const provided: Provided = {
    dbKind: 'pglite',
    dbDescribe: 'PGlite (no TEST_DATABASE_URL and no container runtime)',
    pgAdminUrl: '',
    pgTemplate: '',
    pgDbPrefix: '',
    pgliteDump: file,
    pgPooledUrl: '',
  };
  console.log('[tests] database: PGlite (set TEST_DATABASE_URL to test on a real PostgreSQL server)');
  return { provided, teardown: () => rmSync(dir, { recursive: true, force: true }), users: 0 };
}

const RUN_DATABASE = Symbol.for('kindling.test.runDatabase');

/**
 * Every project of the run (server, heavy, e2e: `npm test` runs them in one Vitest run) calls
 * this; the first makes the database, the others share it (a migration each was several seconds
 * before any test could start), and the last teardown undoes it.
 */
export default async function setup(project: TestProject) {
  const holder = globalThis as { [RUN_DATABASE]?: Promise<RunDatabase> };
  holder[RUN_DATABASE] ??= prepare();
  const run = await holder[RUN_DATABASE];
  run.users += 1;
  for (const [key, value] of Object.entries(run.provided) as [keyof Provided, string][]) project.provide(key, value);
  return async () => {
    run.users -= 1;
    if (run.users > 0) return;
    delete holder[RUN_DATABASE];
    rmSync(COMPILED_DIR, { recursive: true, force: true });
    await run.teardown();
  };
}
