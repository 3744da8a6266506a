import { desc, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import type { Metrics } from '../http/metrics';
import { jobRuns } from '../db/schema';
import type { Services } from '../services';
import type { Storage } from '../storage/storage';
import { deleteUnreferencedUploads } from './cleanup';
import { releaseDue } from './release';

/** How often the release of scheduled drafts runs (release.ts), apart from the other jobs' interval. */
export const RELEASE_INTERVAL_MS = 60_000;

/** The name runs are recorded under (the admin's "Subscription Cron"). */
export const JOB = 'subscriptions';
/** The advisory lock key of a run: one run at a time across every process on the database. */
export const RUN_LOCK_KEY = 7_310_001;

export type JobRunRow = typeof jobRuns.$inferSelect;

/** PGlite: runs under way per embedded database (one process holds it, so this is the whole lock). */
const runningOn = new WeakSet<object>();

export interface JobRunner {
  /** Runs now unless a run is under way here or in another process (then null). */
  runNow(now?: Date): Promise<JobRunRow | null>;
  /** Whether a run is under way (in any process), when the next scheduled one is due here, and the last runs. */
  status(limit?: number): Promise<{ running: boolean; nextRunAt: Date | null; runs: JobRunRow[] }>;
  /** Releases the scheduled drafts whose time has come (release.ts); what the minute's tick runs. */
  releaseNow(now?: Date): Promise<number>;
  /** Starts the hourly schedule (the first run one interval after start) and the release tick every minute. */
  start(): void;
  /** Stops the schedule and waits for a run under way here to finish. */
  stop(): Promise<void>;
}

/**
 * The scheduled jobs: release the scheduled drafts whose time has come (release.ts; also every
 * minute on a tick of its own, outside the run's lock: the release is exactly once by itself), ask the payment provider about donations left pending, charge the monthly
 * donations that are due, email the execution reminders (services' reconcilePending, chargeDue
 * and sendReminders), and delete uploads nothing references (cleanup.ts), every `intervalMs` and on demand, one run
 * at a time across any number of app processes, each run recorded in job_runs.
 *
 * On PostgreSQL a run holds a transaction-scoped advisory lock (pg_try_advisory_xact_lock) on
 * a connection of its own for as long as it lasts: a second process's try fails at once, and a
 * process that dies mid-run loses its connection, which frees the lock (its job_runs row stays
 * `running`; status() reports `running` from the lock, not from that row). The work itself uses
 * the pool's other connections. PGlite is one process's embedded database, so there an
 * in-process flag is the whole lock.
 */
export function createJobRunner(opts: {
  db: Db;
  storage: Storage;
  services: Pick<Services, 'donations' | 'supports' | 'previews'>;
  log: FastifyBaseLogger;
  intervalMs: number;
  /** How often scheduled drafts are released (RELEASE_INTERVAL_MS unless given). */
  releaseIntervalMs?: number;
  /** Counts the runs (the app's metrics). */
  metrics?: Pick<Metrics, 'jobRun'>;
}): JobRunner {
  const { db, services, log, metrics } = opts;
  // drizzle keeps its driver as $client: PGlite's has dumpDataDir, postgres.js's does not
  const dbKind = typeof (db as unknown as { $client?: { dumpDataDir?: unknown } }).$client?.dumpDataDir === 'function' ? 'pglite' : 'postgres';
  let timer: NodeJS.Timeout | null = null;
  let nextRunAt: Date | null = null;
  let current: Promise<unknown> | null = null;
  let localRunning = false;
  let releaseTimer: NodeJS.Timeout | null = null;
  let releasing: Promise<number> | null = null;

  async function work(now: Date): Promise<JobRunRow> {
    const [run] = await db.insert(jobRuns).values({ job: JOB, startedAt: now }).returning();
    const counts: Record<string, number> = {
      released: 0,
      notified: 0,
      reconciled: 0,
      charged: 0,
      succeeded: 0,
      failed: 0,
      cancelled: 0,
      reminded: 0,
      cleaned: 0,
    };
    try {
      // scheduled drafts whose time has come (the minute's tick does this too; each is released once)
      counts.released = await releaseDue(db, now, services.previews.notices);
      counts.notified = await services.previews.notices.followersDue(now);
      // donations left pending (a process died, an event never came) first: a monthly charge it settles is not due again
      counts.reconciled = (await services.donations.reconcilePending(now)).asked;
      // every due monthly donation, in bounded batches (a row that cannot be charged is passed over)
      const c = await services.donations.chargeDue(now);
      counts.charged = c.charged;
      counts.succeeded = c.succeeded;
      counts.failed = c.failed;
      counts.cancelled = c.cancelled;
      counts.reminded = (await services.supports.sendReminders(now)).sent;
      counts.cleaned = await deleteUnreferencedUploads({ db, storage: opts.storage, log }, now);
      const [done] = await db.update(jobRuns).set({ status: 'succeeded', finishedAt: new Date(), counts }).where(eq(jobRuns.id, run.id)).returning();
      log.info({ counts }, 'scheduled jobs ran');
      return done;
    } catch (err) {
      log.error({ err }, 'scheduled jobs failed');
      const [failed] = await db
        .update(jobRuns)
        .set({ status: 'failed', finishedAt: new Date(), counts, error: err instanceof Error ? err.message.slice(0, 1000) : String(err) })
        .where(eq(jobRuns.id, run.id))
        .returning();
      return failed;
    }
  }

  /** The first row of a raw query's answer (postgres.js answers an array, PGlite `{ rows }`). */
  const firstRow = (r: unknown) => (Array.isArray(r) ? r[0] : (r as { rows: unknown[] }).rows[0]) as Record<string, unknown>;

  const client = (db as unknown as { $client: object }).$client;

  async function locked<T>(fn: () => Promise<T>): Promise<T | null> {
    if (localRunning || (dbKind === 'pglite' && runningOn.has(client))) return null;
    localRunning = true;
    try {
      if (dbKind === 'pglite') {
        runningOn.add(client);
        try {
          return await fn();
        } finally {
          runningOn.delete(client);
        }
      }
      return await db.transaction(async (tx) => {
        const got = firstRow(await tx.execute(sql`select pg_try_advisory_xact_lock(${RUN_LOCK_KEY}) as ok`));
        if (got.ok !== true) return null;
        return fn();
      });
    } finally {
      localRunning = false;
    }
  }

  const runner: JobRunner = {
    async runNow(now = new Date()) {
      const p = locked(() => work(now));
      current = p;
      try {
        const run = await p;
        metrics?.jobRun(JOB, run === null ? 'skipped' : run.status === 'succeeded' ? 'succeeded' : 'failed');
        return run;
      } catch (err) {
        metrics?.jobRun(JOB, 'failed');
        throw err;
      } finally {
        if (current === p) current = null;
      }
    },

    async status(limit = 20) {
      let running = localRunning || (dbKind === 'pglite' && runningOn.has(client));
      if (!running && dbKind === 'postgres') {
        // another process holds the lock when this one cannot take it (taken and let go at once)
        running = await db.transaction(async (tx) => firstRow(await tx.execute(sql`select pg_try_advisory_xact_lock(${RUN_LOCK_KEY}) as ok`)).ok !== true);
      }
      const runs = await db.select().from(jobRuns).where(eq(jobRuns.job, JOB)).orderBy(desc(jobRuns.startedAt)).limit(limit);
      return { running, nextRunAt, runs };
    },

    releaseNow(now = new Date()) {
      // one pass at a time in this process; other processes' passes are harmless (release.ts)
      if (!releasing) {
        releasing = releaseDue(db, now, services.previews.notices)
          .then(async (n) => {
            await services.previews.notices.followersDue(now);
            if (n > 0) log.info({ released: n }, 'scheduled drafts released');
            metrics?.jobRun('release', 'succeeded');
            return n;
          })
          .catch((err: unknown) => {
            metrics?.jobRun('release', 'failed');
            throw err;
          })
          .finally(() => {
            releasing = null;
          });
      }
      return releasing;
    },

    start() {
      if (!releaseTimer) {
        releaseTimer = setInterval(() => {
          runner.releaseNow().catch((err: unknown) => log.error({ err }, 'releasing scheduled drafts failed'));
        }, opts.releaseIntervalMs ?? RELEASE_INTERVAL_MS);
        releaseTimer.unref();
      }
      if (timer) return;
      const schedule = () => {
        nextRunAt = new Date(Date.now() + opts.intervalMs);
        timer = setTimeout(() => {
          void runner.runNow().finally(() => {
            if (timer) schedule();
          });
        }, opts.intervalMs);
        timer.unref();
      };
      schedule();
    },

    async stop() {
      if (timer) clearTimeout(timer);
      timer = null;
      if (releaseTimer) clearInterval(releaseTimer);
      releaseTimer = null;
      await releasing?.catch(() => {});
      nextRunAt = null;
      await current?.catch(() => {});
    },
  };
  return runner;
}
