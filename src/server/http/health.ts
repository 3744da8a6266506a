import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { connectionFailureCause, type Db, migrationsFolder, rowsOf } from '../db/client';

/**
 * Health addresses for a load balancer or an orchestrator (issue #31):
 *
 * - `GET /livez`: the process answers (200 `{ status: 'ok' }`), whatever the database does,
 *   also while draining: restarting a process for a database outage or in the middle of its
 *   drain would only make things worse.
 * - `GET /readyz`: this instance should get traffic (200 `{ status: 'ready' }`): the database
 *   answers a query and has applied every migration this version carries. 503 otherwise, with
 *   `status` 'draining' (SIGTERM received: lifecycle.ts) or 'unavailable' and a `reason` of one
 *   word ('database' or 'migrations'). The details stay in the log (one warning when readiness
 *   is lost, one line when it is back), not in the answer, which anyone may read.
 *
 * Neither is under /api: no session, no per-address limit (client-limit.ts), no rate limit,
 * and no info lines in the log for each probe (a balancer asks every few seconds). Both answer
 * `Cache-Control: no-store`, so no cache between the balancer and the app keeps an old answer.
 *
 * While draining, every other answer carries `Connection: close`, so a client on a kept-alive
 * connection opens its next one, which the balancer sends to another instance.
 */

/** The database's answer to the readiness query counts only this long; a probe gets its 503 in time. */
export const READY_CHECK_TIMEOUT_MS = 2000;

export interface Readiness {
  /** True once `drain()` was called: /readyz answers 503 and every answer closes its connection. */
  readonly draining: boolean;
  drain(): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    readiness: Readiness;
  }
}

/** The newest migration this version carries (drizzle/meta/_journal.json): its tag and its time, as drizzle's migrator records it. */
function newestMigration(): { tag: string; when: number } {
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string; when: number }[] };
  const newest = journal.entries.at(-1);
  if (!newest) throw new Error('drizzle/meta/_journal.json lists no migration');
  return newest;
}

type Check = { ok: true } | { ok: false; reason: 'database' | 'migrations'; detail: string };

export function registerHealth(app: FastifyInstance, opts: { db: Db; databaseUrl?: string }): void {
  const newest = newestMigration();
  let draining = false;
  app.decorate('readiness', {
    get draining() {
      return draining;
    },
    drain() {
      draining = true;
    },
  } satisfies Readiness);

  // when the answer goes out rather than when the request came: one under way as the drain began closes too
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });

  /**
   * Asks the database for the newest migration it has applied. drizzle's migrator applies every
   * migration of the journal newer than the newest row of drizzle.__drizzle_migrations, so the
   * database is up to date for this version when that row is at least as new as the journal's
   * last entry (a newer one is a newer version's, during a rolling deploy: still fine for this
   * one). Asked at each probe rather than remembered from the start: an instance started while
   * another was still migrating, or a database restored from an older backup, says so.
   */
  const check = async (): Promise<Check> => {
    let applied: number | null;
    try {
      const rows = rowsOf<{ newest: string | number | null }>(await opts.db.execute(sql`select max(created_at) as newest from drizzle.__drizzle_migrations`));
      applied = rows[0]?.newest == null ? null : Number(rows[0].newest);
    } catch (err) {
      // no table yet: nothing was ever migrated there
      if (pgCode(err) === '42P01') applied = null;
      else return { ok: false, reason: 'database', detail: `the database did not answer: ${connectionFailureCause(err, opts.databaseUrl)}` };
    }
    if (applied === null || applied < newest.when) {
      return { ok: false, reason: 'migrations', detail: `the database has not applied this version's migrations (up to ${newest.tag})` };
    }
    return { ok: true };
  };

  /**
   * One query at a time: probes arriving while the database is slow share the query under way
   * instead of piling up more, and each gets its answer within READY_CHECK_TIMEOUT_MS.
   */
  let running: Promise<Check> | undefined;
  const checkOnce = (): Promise<Check> => {
    running ??= check().finally(() => {
      running = undefined;
    });
    return withTimeout(running);
  };

  /** The last problem logged, so that a probe every few seconds logs a change of readiness once, not each time. */
  let lastProblem: string | undefined;
  const note = (result: Check) => {
    if (!result.ok) {
      if (result.detail !== lastProblem) app.log.warn(`not ready: ${result.detail}`);
      lastProblem = result.detail;
    } else if (lastProblem !== undefined) {
      app.log.info('ready again');
      lastProblem = undefined;
    }
  };

  // a probe's request is logged only from warnings up (an error of the route itself still is)
  const quiet = { logLevel: 'warn' } as const;
  app.get('/livez', quiet, async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    return { status: 'ok' };
  });
  app.get('/readyz', quiet, async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    if (draining) return reply.code(503).send({ status: 'draining' });
    const result = await checkOnce();
    note(result);
    // SIGTERM may have come while the database was asked
    if (draining) return reply.code(503).send({ status: 'draining' });
    if (!result.ok) return reply.code(503).send({ status: 'unavailable', reason: result.reason });
    return { status: 'ready' };
  });
}

function withTimeout(p: Promise<Check>): Promise<Check> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => resolve({ ok: false, reason: 'database', detail: `the database did not answer within ${READY_CHECK_TIMEOUT_MS / 1000} s` }),
      READY_CHECK_TIMEOUT_MS,
    );
    p.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/** PostgreSQL's error code, under drizzle's "Failed query" wrapper when there is one. */
function pgCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
