import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { compiled } from '../../../test/processes';
import { projectRoot } from '../http/client-app';
import { migrationsFolder, openCheckedDatabase } from './client';

/**
 * Migrations once (issue #31): processes starting together on an empty PostgreSQL database all
 * start, and each migration is applied once. Drizzle's migrator takes no lock, so without one each
 * process found every migration missing and applied it, failing on what another had just made.
 *
 * Each process opens the database as the server does (src/server/main.ts: config from the
 * environment, openCheckedDatabase, migrate), says it is ready, and migrates when told: the four
 * are told at once, so they reach the migrations together however long each took to load. Each
 * then reads a table the migrations make. PostgreSQL only: PGlite is one process's database.
 */

const postgres = inject('dbKind') === 'postgres';
const PROCESSES = 4;
const ROUNDS = 3;

const MIGRATOR = `
(async () => {
  const { loadConfig } = await import(${JSON.stringify(path.join(projectRoot, 'src/server/config.ts'))});
  const { openCheckedDatabase } = await import(${JSON.stringify(path.join(projectRoot, 'src/server/db/client.ts'))});
  const { sql } = await import('drizzle-orm');
  const config = loadConfig(process.env);
  const database = await openCheckedDatabase({
    databaseUrl: config.databaseUrl,
    directDatabaseUrl: config.directDatabaseUrl,
    prepare: config.databasePrepare,
    dataDir: config.dataDir,
  });
  process.stdout.write('ready\\n');
  await new Promise((r) => process.stdin.once('data', r));
  await database.migrate();
  await database.db.execute(sql\`select count(*) from users\`);
  process.stdout.write('migrated\\n');
  await database.close();
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
`;

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kindling-migrate-'));
const made: string[] = [];

interface Migrator {
  child: ChildProcess;
  ready: Promise<void>;
  exited: Promise<number | null>;
  output: () => string;
}

/** One process opening the database at `url` as the server does; `ready` once it waits for the word to migrate. */
function startMigrator(file: string, url: string): Migrator {
  const child = spawn(process.execPath, [file], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', DATABASE_URL: url, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (/^ready$/m.test(out)) resolve();
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (out += d));
    void exited.then((code) => reject(new Error(`a process exited (${code}) before it was ready:\n${out}`)));
  });
  return { child, ready, exited, output: () => out };
}

/** An empty database of its own (no template: nothing migrated), dropped after the file. */
async function emptyDatabase(admin: import('postgres').Sql, round: number): Promise<string> {
  const name = `${inject('pgDbPrefix')}mig${round}_${Math.random().toString(36).slice(2, 8)}`;
  await admin.unsafe(`create database ${name}`);
  made.push(name);
  const u = new URL(inject('pgAdminUrl'));
  u.pathname = `/${name}`;
  return u.toString();
}

afterAll(async () => {
  if (postgres && made.length > 0) {
    const { default: pg } = await import('postgres');
    const admin = pg(inject('pgAdminUrl'), { max: 1, onnotice: () => {} });
    for (const name of made) await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(!postgres)('processes starting together on an empty database', () => {
  it(`all start, ${PROCESSES} at once, ${ROUNDS} rounds, each migration applied once`, async () => {
    const { default: pg } = await import('postgres');
    const admin = pg(inject('pgAdminUrl'), { max: 1, onnotice: () => {} });
    const file = await compiled({ name: 'migrator', source: MIGRATOR });
    const journal = JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: { when: number }[] };
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        const url = await emptyDatabase(admin, round);
        const migrators = Array.from({ length: PROCESSES }, () => startMigrator(file, url));
        try {
          await Promise.all(migrators.map((m) => m.ready));
          // the word to migrate, to all four at once
          for (const m of migrators) m.child.stdin?.end('go\n');
          const codes = await Promise.all(migrators.map((m) => m.exited));
          expect({ round, codes }, migrators.map((m) => m.output()).join('\n---\n')).toEqual({ round, codes: Array(PROCESSES).fill(0) });
        } finally {
          for (const m of migrators) if (m.child.exitCode === null) m.child.kill('SIGKILL');
        }
        // one row per migration, each migration once
        const db = pg(url, { max: 1, onnotice: () => {} });
        try {
          const applied = await db<{ created_at: string }[]>`select created_at from drizzle.__drizzle_migrations order by created_at`;
          expect(applied.map((r) => Number(r.created_at))).toEqual(journal.entries.map((e) => e.when));
        } finally {
          await db.end();
        }
      }
    } finally {
      await admin.end();
    }
  });

  it('stop the start with one line when DIRECT_DATABASE_URL cannot be reached', async () => {
    const direct = 'postgres://kindling:secret@127.0.0.1:1/kindling';
    await expect(openCheckedDatabase({ databaseUrl: inject('pgAdminUrl'), directDatabaseUrl: direct, dataDir })).rejects.toThrow(
      /^Cannot connect to PostgreSQL at 127\.0\.0\.1:1 \(DIRECT_DATABASE_URL\): connection refused$/,
    );
  });
});
