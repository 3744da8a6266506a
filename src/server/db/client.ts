import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from './schema';

/** One type for both drivers: postgres.js on a real server, PGlite embedded. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** A query runner: the database itself or an open transaction. */
export type DbOrTx = Db | Tx;

export const migrationsFolder = fileURLToPath(new URL('../../../drizzle', import.meta.url));

export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** Human-readable location for the log (no password). */
  describe: string;
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** PGlite only: the data directory as a tarball (tests start each file from a migrated dump). */
  dump?(): Promise<Blob>;
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparseable url)';
  }
}

/**
 * Settings of the app's PostgreSQL sessions. JIT compiling pays off for long analytical
 * queries, never for the app's short ones. random_page_cost 1.1 (the default 4.0 models
 * spinning disks) says that reading a page by an index costs little more than reading the next
 * one, true of SSDs and of a working set in memory: with 4.0 the planner counted a search's
 * matches by reading 100,000 campaigns in order instead of asking the search indexes (a new
 * search at a million campaigns: p95 87 ms for the count alone, 28 ms with 1.1).
 */
export const APP_CONNECTION_SETTINGS = { jit: 'off', random_page_cost: '1.1' } as const;

/** The advisory lock key of applying migrations: one process at a time on a database. */
export const MIGRATION_LOCK_KEY = 7_310_002;

export interface PostgresOptions {
  /** Connections in the pool (10). */
  max?: number;
  /**
   * Named server-side prepared statements (postgres.js's default: PostgreSQL parses and plans a
   * statement once per connection). Off behind a transaction-mode pooler (DATABASE_PREPARE=off),
   * which hands each transaction to any of its server connections: a statement prepared on one
   * is missing on the next, and pipelined queries then fail or never answer.
   */
  prepare?: boolean;
  /** Where migrations run, under a session-level lock: PostgreSQL itself, never a transaction-mode pooler (default: `url`). */
  directUrl?: string;
  /** Send APP_CONNECTION_SETTINGS when connecting (default); PgBouncer refuses a connection that carries them. */
  sessionSettings?: boolean;
}

export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<Database> {
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const prepare = opts.prepare ?? true;
  const client = postgres(url, {
    max: opts.max ?? 10,
    prepare,
    onnotice: () => {},
    connection: (opts.sessionSettings ?? true) ? APP_CONNECTION_SETTINGS : {},
  });
  const db = drizzle(client, { schema });
  return {
    db: db as unknown as Db,
    kind: 'postgres',
    describe: `PostgreSQL at ${redactUrl(url)}${prepare ? '' : ' (prepared statements off)'}`,
    migrate: () => migratePostgres(opts.directUrl ?? url),
    close: () => client.end({ timeout: 5 }),
  };
}

/**
 * Applies the migrations not applied yet, one process at a time: Drizzle's migrator takes no lock,
 * so processes starting together each found the same migrations missing and ran them at once
 * (failing on the objects the other had just made). Here each waits for a session-level advisory
 * lock on a connection of its own to the direct URL, migrates, and unlocks; the ones that waited
 * then find nothing left to do. The lock belongs to the session, so it goes with the connection
 * when the process dies mid-way; and through a transaction-mode pooler it could stay on a server
 * connection this process no longer has, hence the direct URL.
 */
export async function migratePostgres(directUrl: string): Promise<void> {
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const { migrate } = await import('drizzle-orm/postgres-js/migrator');
  // one connection: the session holding the lock is the one migrating
  const client = postgres(directUrl, { max: 1, prepare: false, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await migrate(drizzle(client), { migrationsFolder });
    const [{ held }] = await client<{ held: boolean }[]>`select pg_advisory_unlock(${MIGRATION_LOCK_KEY}) as held`;
    if (!held) {
      throw new DatabaseUnavailableError(
        `The migration lock was not held by the connection that took it: DIRECT_DATABASE_URL (${postgresLocation(directUrl)}) must reach PostgreSQL itself, not a transaction-mode pooler`,
      );
    }
  } finally {
    await client.end({ timeout: 5 });
  }
}

/** The embedded database's directory is held by another process (`lockDataDir`): the one line to show. */
export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by another Kindling process (pid ${pid}); stop it first, or run this with DATABASE_URL set to a PostgreSQL server`,
    );
  }
}

/** True while a process with this id runs (one we may not signal still runs). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process id a lock file names, or null when it names none (not written yet, or garbage). */
function lockHolder(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Waits `ms` without returning to the event loop (the lock is taken before anything else runs). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The lock files this process holds: opening one twice is refused as from another process. */
const heldLocks = new Set<string>();

/**
 * One process at a time opens an embedded data directory: PGlite has no lock of its own, and two
 * processes writing the same files lose each other's writes (an admin grant made while the server
 * runs, say, or worse). The lock is the file `<dir>.lock` beside it (`DATA_DIR/pg.lock`), created
 * only where there is none, holding the process id; a second process finds it and stops with
 * DataDirInUseError before it touches the data. A lock whose process no longer runs (killed, or
 * the machine restarted) is taken over, as is one naming this very process (a restarted container
 * gives its processes the same ids again) when it does not hold it. The function returned removes
 * the lock; so does the process's exit.
 */
export function lockDataDir(dataDir: string): () => void {
  const dir = path.resolve(dataDir);
  const file = `${dir}.lock`;
  if (heldLocks.has(file)) throw new DataDirInUseError(dir, process.pid);
  mkdirSync(path.dirname(file), { recursive: true });
  for (let tries = 0; ; tries++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = lockHolder(file);
      // just created by another process, which writes its id next
      if (holder === null && tries < 20) {
        pause(50);
        continue;
      }
      const stale = holder === null || holder === process.pid || !isRunning(holder);
      if (!stale || tries >= 25) throw new DataDirInUseError(dir, holder ?? 0);
      // removed only while it still names the same process (another one may have taken it over meanwhile)
      if (lockHolder(file) === holder) unlinkSync(file);
      continue;
    }
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    heldLocks.add(file);
    const release = () => {
      if (!heldLocks.delete(file)) return;
      process.off('exit', release);
      if (lockHolder(file) === process.pid) unlinkSync(file);
    };
    process.on('exit', release);
    return release;
  }
}

/**
 * `dataDir` undefined means in-memory; `loadDataDir` starts from a dump (tests). A directory on
 * disk is held by this process until `close` (lockDataDir).
 */
export async function openPglite(dataDir: string | undefined, opts: { loadDataDir?: Blob } = {}): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const unlock = dataDir === undefined ? () => {} : lockDataDir(dataDir);
  let client: InstanceType<typeof PGlite>;
  try {
    client = await PGlite.create({
      dataDir,
      extensions: { pg_trgm },
      ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
    });
  } catch (err) {
    unlock();
    throw err;
  }
  const db = drizzle(client, { schema });
  return {
    db: db as unknown as Db,
    kind: 'pglite',
    describe: dataDir ? `embedded PostgreSQL (PGlite) in ${path.resolve(dataDir)}` : 'embedded PostgreSQL (PGlite) in memory',
    migrate: () => migrate(db, { migrationsFolder }),
    close: async () => {
      try {
        await client.close();
      } finally {
        unlock();
      }
    },
    dump: () => client.dumpDataDir('gzip') as Promise<Blob>,
  };
}

export interface DatabaseOptions {
  /** PostgreSQL (the app's queries); none: PGlite under dataDir. */
  databaseUrl?: string;
  /** PostgreSQL itself for migrations, when databaseUrl is a pooler (default: databaseUrl). */
  directDatabaseUrl?: string;
  /** Prepared statements on databaseUrl (default on; off behind a transaction-mode pooler). */
  prepare?: boolean;
  dataDir: string;
}

export async function openDatabase(opts: DatabaseOptions, pg: { sessionSettings?: boolean } = {}): Promise<Database> {
  if (opts.databaseUrl) {
    return openPostgres(opts.databaseUrl, { directUrl: opts.directDatabaseUrl, prepare: opts.prepare, sessionSettings: pg.sessionSettings });
  }
  const dir = path.join(opts.dataDir, 'pg');
  mkdirSync(dir, { recursive: true });
  return openPglite(dir);
}

/** Why the database cannot be used, in one line, for the start-up error (never the password). */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
}

/** Where a PostgreSQL URL points, as `host:port` (no user, no password). */
export function postgresLocation(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || u.searchParams.get('host') || 'localhost';
    return `${host}:${u.port || '5432'}`;
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}

const SOCKET_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name could not be resolved',
  ETIMEDOUT: 'connection timed out',
  CONNECT_TIMEOUT: 'connection timed out',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** The cause of a failed connection in a few words: the socket error, or PostgreSQL's own message. */
export function connectionFailureCause(err: unknown, url?: string): string {
  // the driver's error sits under wrappers (Drizzle's "Failed query", AggregateError of several
  // addresses): the innermost one says what happened
  const chain: { code?: unknown; message?: unknown }[] = [];
  let e: unknown = err;
  for (let i = 0; i < 6 && e && typeof e === 'object'; i++) {
    const x = e as { code?: unknown; message?: unknown; errors?: unknown[]; cause?: unknown };
    chain.push(x);
    e = x.cause ?? x.errors?.[0];
  }
  let cause: string | undefined;
  for (const x of chain.reverse()) {
    if (typeof x.code === 'string' && SOCKET_CAUSES[x.code]) {
      cause = SOCKET_CAUSES[x.code];
      break;
    }
    if (typeof x.message === 'string' && x.message.trim()) {
      cause = x.message.trim().split('\n', 1)[0];
      break;
    }
  }
  cause ??= String(err).split('\n', 1)[0] || 'unknown error';
  if (url) {
    try {
      const pw = decodeURIComponent(new URL(url).password);
      if (pw) cause = cause.split(pw).join('***');
    } catch {
      // an unparseable URL has no password to hide
    }
  }
  return cause;
}

/** PostgreSQL's answer when a pooler (PgBouncer) is sent a setting at connection it does not pass on. */
export const REFUSED_SETTING = /unsupported startup parameter/i;

/**
 * Opens the configured database and runs one query, so a wrong DATABASE_URL (unreachable
 * server, missing database, bad credentials) or an unusable DATA_DIR fails at start with a
 * one-line DatabaseUnavailableError naming where and why, instead of a stack trace; a
 * DIRECT_DATABASE_URL of its own is checked the same way.
 *
 * A pooler may refuse APP_CONNECTION_SETTINGS (PgBouncer refuses any setting at connection it
 * does not know) or drop them: the database is then opened without them, and the log's
 * description says when the connections do not have them, with how to set them on the database.
 */
export async function openCheckedDatabase(opts: DatabaseOptions): Promise<Database> {
  const where = opts.databaseUrl
    ? `Cannot connect to PostgreSQL at ${postgresLocation(opts.databaseUrl)}`
    : `Cannot open the embedded database in ${path.join(path.resolve(opts.dataDir), 'pg')}`;
  let database: Database | undefined;
  try {
    database = await openDatabase(opts);
    if (database.kind === 'pglite') {
      await database.db.execute(sql`select 1`);
      return database;
    }
    let settings: Record<string, string>;
    try {
      settings = await sessionSettingsOf(database.db);
    } catch (err) {
      if (!REFUSED_SETTING.test(connectionFailureCause(err))) throw err;
      await database.close();
      database = await openDatabase(opts, { sessionSettings: false });
      settings = await sessionSettingsOf(database.db);
    }
    const missing = Object.entries(APP_CONNECTION_SETTINGS).filter(([name, value]) => settings[name] !== value);
    if (missing.length > 0) {
      const set = missing.map(([name, value]) => `${name} = '${value}'`);
      database.describe += `; its connections lack ${set.join(' and ')} (a pooler refused or dropped them): set them on the database (${set.map((s) => `ALTER DATABASE ... SET ${s}`).join('; ')})`;
    }
  } catch (err) {
    await database?.close().catch(() => {});
    if (err instanceof DataDirInUseError) throw new DatabaseUnavailableError(err.message);
    throw new DatabaseUnavailableError(`${where}: ${connectionFailureCause(err, opts.databaseUrl)}`);
  }
  const direct = opts.directDatabaseUrl;
  if (direct && direct !== opts.databaseUrl) {
    const { default: postgres } = await import('postgres');
    const client = postgres(direct, { max: 1, prepare: false, onnotice: () => {} });
    try {
      await client`select 1`;
    } catch (err) {
      await database.close().catch(() => {});
      throw new DatabaseUnavailableError(
        `Cannot connect to PostgreSQL at ${postgresLocation(direct)} (DIRECT_DATABASE_URL): ${connectionFailureCause(err, direct)}`,
      );
    } finally {
      await client.end({ timeout: 5 }).catch(() => {});
    }
  }
  return database;
}

/** The values of APP_CONNECTION_SETTINGS a connection of the pool has. */
async function sessionSettingsOf(db: Db): Promise<Record<string, string>> {
  const names = Object.keys(APP_CONNECTION_SETTINGS);
  const rows = rowsOf<{ name: string; setting: string }>(
    await db.execute(sql`select name, current_setting(name) as setting from unnest(${sql.raw(`array[${names.map((n) => `'${n}'`).join(', ')}]`)}) as name`),
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
}

/** Rows of a raw `db.execute(sql...)`: postgres.js gives an array, PGlite an object with `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}
