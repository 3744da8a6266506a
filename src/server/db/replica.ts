import type { FastifyInstance } from 'fastify';
import type { Config } from '../config';
import type { Actor, Deps } from '../deps';
import { APP_CONNECTION_SETTINGS, connectionFailureCause, DatabaseUnavailableError, type Db, postgresLocation, REFUSED_SETTING, redactUrl } from './client';
import * as schema from './schema';

/**
 * The read replica (DATABASE_READ_URL): a streaming standby of the primary that answers the
 * anonymous list, search and detail reads of campaigns, projects, teams and people's profiles.
 *
 * A standby replays the primary's changes a little later (usually well under a second, longer
 * under load or while it is paused), so what is read there may be that much behind. The rule is:
 * - a signed-in person reads the primary (what they see depends on what they did: their own
 *   drafts, favorites, memberships);
 * - so does anyone, signed in or not, for READ_AFTER_WRITE_SECONDS after a write of theirs (a
 *   guest who just donated sees the campaign with their gift; a person who just signed out sees
 *   what they wrote before): every successful write answer sets the `kindling_wrote` cookie;
 * - whatever decides money or access (donations, the ledger, balances, sessions, the checks a
 *   write makes, a draft's preview circle) always reads the primary: only the read paths that
 *   ask `readerFor` go to the replica.
 */

/** The marker of a recent write: its value is when it ends (milliseconds since the epoch). */
export const READ_AFTER_WRITE_COOKIE = 'kindling_wrote';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Where a read of this caller goes: the replica for an anonymous caller who has not just written,
 * while the replica answers its checks; else the primary.
 */
export function readerFor(deps: Pick<Deps, 'db' | 'readDb' | 'readDbUp'>, actor: Actor): Db {
  return deps.readDb !== undefined && (deps.readDbUp?.() ?? true) && mayReadReplica(actor) ? deps.readDb : deps.db;
}

/** Whether this caller's list, search and detail reads may be answered by the replica. */
export function mayReadReplica(actor: Actor): boolean {
  return actor.user === null && actor.wroteRecently !== true;
}

export interface Replica {
  db: Db;
  /** Human-readable location for the log (no password). */
  describe: string;
  /** False when the server is not in recovery (a primary, not a standby): the log warns. */
  standby: boolean;
  /** Whether the replica answered its last check; reads go to the primary while it does not. */
  up(): boolean;
  close(): Promise<void>;
}

/**
 * How often a running app asks the replica whether it answers, and how long it waits for the
 * answer. A replica that stops answering (stopped, failed over, unreachable) is left within about
 * two checks: the anonymous reads go to the primary meanwhile, and back once it answers again.
 * Requests already sent to it when it went away fail as any database error does.
 */
export const REPLICA_CHECK_MS = 2000;

/** Every session on the replica is read-only: a write sent there by mistake fails at once. */
const READ_ONLY = { default_transaction_read_only: true } as const;

/**
 * Opens the replica's pool (postgres.js, the app's session settings, prepared statements as
 * DATABASE_PREPARE says) and asks it once whether it is a standby, so a wrong DATABASE_READ_URL
 * stops the start with one line instead of failing every anonymous read later. Its sessions are
 * read-only (`default_transaction_read_only`): a write sent there by mistake fails at once, even
 * when the address points at a primary; unless a pooler in front of it refuses settings at
 * connection, when the pool opens without them and its description (logged at start) says so.
 * Then checks every REPLICA_CHECK_MS whether it answers (`up`), telling `onChange` each change.
 */
export async function openReplica(url: string, opts: { prepare: boolean; max?: number; onChange?: (up: boolean, cause?: string) => void }): Promise<Replica> {
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const open = (settings: boolean) =>
    postgres(url, {
      max: opts.max ?? 10,
      prepare: opts.prepare,
      onnotice: () => {},
      // a replica that cannot be reached is given up on in seconds, not postgres.js's 30, and a
      // query waits at most a quarter of a second for the next try to connect (postgres.js's own
      // backoff grows to 20 s after failures, holding whatever waits for a connection that long)
      connect_timeout: REPLICA_CHECK_MS / 1000,
      backoff: () => 0.25,
      connection: settings ? { ...APP_CONNECTION_SETTINGS, ...READ_ONLY } : {},
    });
  let client = open(true);
  let refused = false;
  try {
    const standbyQuery = () => client<{ standby: boolean }[]>`select pg_is_in_recovery() as standby`;
    let row: { standby: boolean } | undefined;
    try {
      [row] = await standbyQuery();
    } catch (err) {
      // a pooler in front of the replica (PgBouncer) refuses settings at connection: without them
      if (!REFUSED_SETTING.test(connectionFailureCause(err))) throw err;
      await client.end({ timeout: 1 }).catch(() => {});
      client = open(false);
      refused = true;
      [row] = await standbyQuery();
    }
    let up = true;
    let checking = false;
    const check = async () => {
      if (checking) return;
      checking = true;
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          client`select 1`,
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${REPLICA_CHECK_MS / 1000} s`)), REPLICA_CHECK_MS);
          }),
        ]);
        if (!up) opts.onChange?.(true);
        up = true;
      } catch (err) {
        if (up) opts.onChange?.(false, connectionFailureCause(err, url));
        up = false;
      } finally {
        clearTimeout(timer);
        checking = false;
      }
    };
    const interval = setInterval(() => void check(), REPLICA_CHECK_MS);
    interval.unref();
    return {
      db: drizzle(client, { schema }) as unknown as Db,
      describe: `PostgreSQL at ${redactUrl(url)}${
        refused
          ? `; a pooler refused the connection settings, so its sessions are read-only only as a standby is: set them on the replica's role (${Object.entries({
              ...READ_ONLY,
              ...APP_CONNECTION_SETTINGS,
            })
              .map(([name, value]) => `ALTER ROLE ... SET ${name} = '${value}'`)
              .join('; ')})`
          : ''
      }`,
      standby: row?.standby === true,
      up: () => up,
      close: () => {
        clearInterval(interval);
        return client.end({ timeout: 5 });
      },
    };
  } catch (err) {
    await client.end({ timeout: 1 }).catch(() => {});
    throw new DatabaseUnavailableError(
      `Cannot connect to the read replica (DATABASE_READ_URL) at ${postgresLocation(url)}: ${connectionFailureCause(err, url)}`,
    );
  }
}

/**
 * Read-your-writes for callers the replica would answer: a request carrying a live marker is
 * marked on `actor.wroteRecently` (its reads go to the primary), and every successful write
 * answer (a method other than GET, HEAD or OPTIONS, status below 400) sets the marker for
 * `config.readAfterWriteMs`. Registered after the request's session is read (request-auth.ts),
 * only when a replica is in use: without one nothing is marked and no cookie is sent.
 */
export function registerReadAfterWrite(app: FastifyInstance, config: Pick<Config, 'readAfterWriteMs' | 'cookieSecure'>): void {
  app.addHook('onRequest', async (req) => {
    const until = Number(req.cookies[READ_AFTER_WRITE_COOKIE]);
    if (req.actor && Number.isFinite(until) && until > Date.now()) req.actor.wroteRecently = true;
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (SAFE_METHODS.has(req.method) || reply.statusCode >= 400 || config.readAfterWriteMs <= 0) return payload;
    const until = Date.now() + config.readAfterWriteMs;
    reply.setCookie(READ_AFTER_WRITE_COOKIE, String(until), {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: config.cookieSecure,
      maxAge: Math.ceil(config.readAfterWriteMs / 1000),
    });
    return payload;
  });
}
