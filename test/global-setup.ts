import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openPglite, openPostgres } from '../src/server/db/client';

/**
 * Picks the test database once for the whole run:
 *   TEST_DATABASE_URL if set, else a testcontainers Postgres if a container runtime answers,
 *   else PGlite. On Postgres a migrated template database is made, and each test file clones
 *   it (CREATE DATABASE ... TEMPLATE); on PGlite a migrated data dump is loaded per file.
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

export default async function setup(project: TestProject) {
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
    project.provide('dbKind', 'postgres');
    project.provide('dbDescribe', `PostgreSQL (${source})`);
    project.provide('pgAdminUrl', serverUrl);
    project.provide('pgTemplate', template);
    project.provide('pgDbPrefix', `kt_${process.pid}_`);
    project.provide('pgliteDump', '');
    console.log(`[tests] database: PostgreSQL via ${source}; each test file gets its own database`);
    return async () => {
      // drop what the files made (they drop their own; this catches crashed workers)
      const left = await admin<{ datname: string }[]>`select datname from pg_database where datname like ${`kt_${process.pid}_%`}`;
      for (const d of left) await admin.unsafe(`drop database if exists ${d.datname} with (force)`);
      await admin.unsafe(`drop database if exists ${template}`);
      await admin.end();
      await stopContainer?.();
    };
  }

  const dir = mkdtempSync(path.join(os.tmpdir(), 'kindling-test-'));
  const db = await openPglite(undefined);
  await db.migrate();
  const dump = await db.dump!();
  const file = path.join(dir, 'migrated.tar.gz');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await db.close();
  project.provide('dbKind', 'pglite');
  project.provide('dbDescribe', 'PGlite (no TEST_DATABASE_URL and no container runtime)');
  project.provide('pgAdminUrl', '');
  project.provide('pgTemplate', '');
  project.provide('pgliteDump', file);
  console.log('[tests] database: PGlite (set TEST_DATABASE_URL to test on a real PostgreSQL server)');
  return () => rmSync(dir, { recursive: true, force: true });
}
