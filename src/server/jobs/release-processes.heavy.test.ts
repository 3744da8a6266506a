import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildTestApp, call, signUpVerified, type Client } from '../../../test/helpers';
import { compiled } from '../../../test/processes';
import { CONDITION_WAIT_MS } from '../../../test/limits';
import { type Database, openPostgres } from '../db/client';
import { campaigns, changeHistory, emailOutbox, projects } from '../db/schema';
import { projectRoot } from '../http/client-app';

/**
 * The release of scheduled drafts (issue #30) with two real app processes on one PostgreSQL
 * database, each running the release tick (RELEASE_INTERVAL_SECONDS=1): every draft is released
 * exactly once (one history line of the release, by nobody) and each member of its circle gets one
 * "is live" email; a release time that passed while no process ran is caught up once. PostgreSQL
 * only: PGlite is one process's database.
 *
 * Each process is the app as `npm start` builds it (src/server/main.ts: config from the
 * environment, the database checked, `buildApp`, listen, the jobs started), without the built
 * client, which this test does not need and `npm start` would build first.
 */

const postgres = inject('dbKind') === 'postgres';
/** The most times the database is asked whether the releases happened (a poll each 100 ms or slower): far above the few ticks needed. */
const MAX_POLLS = CONDITION_WAIT_MS / 100;

let url: string;
let database: Database;
let app: FastifyInstance;
let owner: Client & { userId: string };
let dropDatabase: () => Promise<void>;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kindling-release-'));

let serverFile: string;
const SERVER = `
(async () => {
  const { loadConfig } = await import(${JSON.stringify(path.join(projectRoot, 'src/server/config.ts'))});
  const { openCheckedDatabase } = await import(${JSON.stringify(path.join(projectRoot, 'src/server/db/client.ts'))});
  const { buildApp } = await import(${JSON.stringify(path.join(projectRoot, 'src/server/app.ts'))});
  const config = loadConfig(process.env);
  const database = await openCheckedDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const app = await buildApp({ config, db: database.db, client: 'none' });
  await app.listen({ port: config.port, host: config.host });
  if (config.jobs) app.jobs.start();
  process.stdout.write('listening ' + app.server.address().port + '\\n');
  process.on('SIGTERM', async () => {
    await app.close();
    await database.close();
    process.exit(0);
  });
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
`;

interface Server {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<number | null>;
}

/** One app process on the test's database; resolves once it listens (its own line on stdout). */
function startServer(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [serverFile], {
      cwd: projectRoot,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: 'test',
        DATABASE_URL: url,
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        JOBS: 'on',
        RELEASE_INTERVAL_SECONDS: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const server: Server = {
      child,
      output: () => out,
      stop: async () => {
        if (child.exitCode === null) child.kill('SIGTERM');
        return exited;
      },
    };
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (/^listening \d+$/m.test(out)) resolve(server);
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    void exited.then((code) => reject(new Error(`the server exited (${code}) before listening:\n${out}`)));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `done` holds, asking at most MAX_POLLS times. */
async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < MAX_POLLS; i++) {
    if (await done()) return;
    await sleep(100);
  }
  throw new Error(`${what}: not after ${MAX_POLLS} polls`);
}

const KINDS = [
  { kind: 'campaigns', table: campaigns },
  { kind: 'projects', table: projects },
] as const;

interface Draft {
  id: string;
  kind: (typeof KINDS)[number];
  /** The circle: a member by username and a guest by email. */
  circle: string[];
}

/** A draft of each kind, `perKind` times, each with a circle of its own (a member by username and a guest by email). */
async function drafts(perKind: number): Promise<Draft[]> {
  const made: Draft[] = [];
  for (const k of KINDS) {
    for (let i = 0; i < perKind; i++) {
      const res = await call(app, owner, { method: 'POST', url: `/api/${k.kind}`, payload: { title: `Timed ${k.kind} ${i}`, visibility: 'draft' } });
      expect(res.statusCode).toBe(201);
      const id = res.json()._id as string;
      const member = await signUpVerified(app, database);
      const guest = `guest.${id.slice(0, 8)}@example.com`;
      for (const who of [member.email, guest]) {
        const invited = await call(app, owner, { method: 'POST', url: `/api/${k.kind}/${id}/circle/members`, payload: { who } });
        expect(invited.statusCode).toBe(201);
      }
      made.push({ id, kind: k, circle: [member.email, guest] });
    }
  }
  return made;
}

/** Puts each draft's release time at `at` (through the owner's own call when it is ahead). */
async function schedule(ds: Draft[], at: Date): Promise<void> {
  for (const d of ds) {
    const res = await call(app, owner, { method: 'PUT', url: `/api/${d.kind.kind}/${d.id}`, payload: { releaseAt: at.toISOString() } });
    expect(res.statusCode).toBe(200);
  }
}

async function releasedCount(ds: Draft[]): Promise<number> {
  let n = 0;
  for (const k of KINDS) {
    const ids = ds.filter((d) => d.kind === k).map((d) => d.id);
    if (!ids.length) continue;
    const rows = await database.db
      .select({ id: k.table.id })
      .from(k.table)
      .where(and(inArray(k.table.id, ids), sql`${k.table.releasedAt} is not null`));
    n += rows.length;
  }
  return n;
}

/** Each draft: its release's history lines (an update of releasedAt) and the "is live" emails to each of its circle. */
async function outcome(ds: Draft[]) {
  const result: Record<string, { releases: { fields: string[]; actor: string | null }[]; live: Record<string, number> }> = {};
  for (const d of ds) {
    const history = await database.db
      .select({ fields: changeHistory.fields, actor: changeHistory.actorId })
      .from(changeHistory)
      .where(and(eq(changeHistory.key, d.id), eq(changeHistory.action, 'update'), sql`'releasedAt' = any(${changeHistory.fields})`));
    const mail = await database.db
      .select({ to: emailOutbox.to })
      .from(emailOutbox)
      .where(and(eq(emailOutbox.kind, 'preview_released_circle'), sql`${emailOutbox.text} like ${`%${d.id}%`}`));
    const live: Record<string, number> = {};
    for (const m of mail) live[m.to] = (live[m.to] ?? 0) + 1;
    result[d.id] = { releases: history, live };
  }
  return result;
}

/** What exactly once looks like: one release by nobody (the system), one email to each member of the circle. */
function once(ds: Draft[]) {
  return Object.fromEntries(
    ds.map((d) => [d.id, { releases: [{ fields: ['releasedAt', 'releaseAt'], actor: null }], live: Object.fromEntries(d.circle.map((to) => [to, 1])) }]),
  );
}

async function withTwoServers(body: (servers: Server[]) => Promise<void>): Promise<void> {
  const servers = await Promise.all([startServer(), startServer()]);
  try {
    await body(servers);
  } finally {
    // both stopped (a pass under way finishes first) before anything is counted
    const codes = await Promise.all(servers.map((s) => s.stop()));
    expect(codes, servers.map((s) => s.output()).join('\n')).toEqual([0, 0]);
  }
}

beforeAll(async () => {
  serverFile = await compiled({ name: 'release-server', source: SERVER });
  if (!postgres) return;
  // a database of this file's own, as openTestDatabase makes it, whose address the processes are given
  const { default: pg } = await import('postgres');
  const admin = pg(inject('pgAdminUrl'), { max: 1, onnotice: () => {} });
  const name = `${inject('pgDbPrefix')}rel${Math.random().toString(36).slice(2, 10)}`;
  await admin.unsafe(`create database ${name} template ${inject('pgTemplate')}`);
  const u = new URL(inject('pgAdminUrl'));
  u.pathname = `/${name}`;
  url = u.toString();
  database = await openPostgres(url, { max: 5 });
  dropDatabase = async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
  // the fixtures are made through the app in this process, which runs no jobs
  app = await buildTestApp(database);
  owner = await signUpVerified(app, database, { username: 'rel_owner' });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
  await dropDatabase?.();
  rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(!postgres)('two app processes releasing scheduled drafts', () => {
  it('release each draft once, and its circle hears once', async () => {
    const ds = await drafts(3);
    await withTwoServers(async () => {
      // scheduled a little ahead, once both processes tick
      await schedule(ds, new Date(Date.now() + 2_000));
      await until('all released', async () => (await releasedCount(ds)) === ds.length);
      // drafts due later, released after those: the processes have had passes since
      const later = await drafts(1);
      await schedule(later, new Date(Date.now() + 1_500));
      await until('the later ones released', async () => (await releasedCount(later)) === later.length);
    });
    expect(await outcome(ds)).toEqual(once(ds));
    expect(await releasedCount(ds)).toBe(ds.length);
  });

  it('catch up once on a release time that passed while no process ran', async () => {
    const ds = await drafts(3);
    await schedule(ds, new Date(Date.now() + 3_600_000));
    // the time passed while no process was running
    for (const d of ds) {
      await database.db
        .update(d.kind.table)
        .set({ releaseAt: new Date(Date.now() - 3_600_000) })
        .where(and(eq(d.kind.table.id, d.id), isNull(d.kind.table.releasedAt)));
    }
    expect(await releasedCount(ds)).toBe(0);
    await withTwoServers(async () => {
      await until('all caught up', async () => (await releasedCount(ds)) === ds.length);
      const later = await drafts(1);
      await schedule(later, new Date(Date.now() + 1_500));
      await until('the later ones released', async () => (await releasedCount(later)) === later.length);
    });
    expect(await outcome(ds)).toEqual(once(ds));
  });
});
