import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { z } from 'zod';
import { appRoutes, matchAppPath } from '../../shared/routes';
import type { Db } from '../db/client';
import { type PoolUsage, poolUsage } from '../db/pool-usage';
import { AppError, ERROR_STATUS } from '../lib/errors';
import { appRouter } from '../trpc/router';
import { apiDoorOf } from './security';

/** Where a failed call came in: the REST door (/api), the tRPC door (/trpc), or a page or file. */
export type Door = 'rest' | 'trpc' | 'page';
export type JobOutcome = 'succeeded' | 'failed' | 'skipped';
/** accepted: checked and applied (a repeat is acknowledged here too); ignored: not an event the app acts on; refused: bad signature or body (400); failed: applying it threw (5xx, the provider retries). */
export type PaymentEventOutcome = 'accepted' | 'ignored' | 'refused' | 'failed';
/** sent: the SMTP server took it; failed: it did not; outbox: kept in the outbox table only (no SMTP_URL). */
export type EmailOutcome = 'sent' | 'failed' | 'outbox';

/**
 * The app's Prometheus metrics, one set per app (a registry of its own, so several apps in one
 * process, as in the tests, never count into each other). The services count through it (Deps);
 * `registerMetrics` counts the requests and serves `/metrics`.
 */
export interface Metrics {
  /** A call that failed, by door and error code (tRPC's codes; INTERNAL_SERVER_ERROR is the server's own failure, logged). */
  error(door: Door, code: string): void;
  /** A run of a scheduled job (jobs/runner.ts): the hourly run, or the release of scheduled drafts. */
  jobRun(job: string, outcome: JobOutcome): void;
  /** A payment provider's webhook event (`type` is `unknown` when it could not be read, `other` when the app does not act on it). */
  paymentEvent(type: string, outcome: PaymentEventOutcome): void;
  /** An email, by its kind (verify_email, donation_receipt, ...). */
  email(kind: string, outcome: EmailOutcome): void;
  /** Reports the connections of a database under this name (`primary`, `replica`). */
  watchPool(name: string, db: Db): void;
  /** Reports whether the read replica answers its checks (db/replica.ts), as `kindling_read_replica_up`. */
  watchReplica(up: () => boolean): void;
  /** Answers' durations (`registerMetrics`). */
  readonly requests: Histogram<'method' | 'route' | 'status'>;
  /** The exposition text: the process's own metrics (CPU, memory, event loop, GC), then the app's. */
  scrape(): Promise<string>;
  readonly contentType: string;
}

/**
 * The Node process's own metrics (prom-client's defaults), once per process: they describe the
 * process, whichever of its apps is asked, and their collectors (an event-loop monitor, a GC
 * observer) would otherwise pile up with every app a test process builds.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** Seconds: an answer of this app takes a few milliseconds; a slow export or upload several seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const requests = new Histogram({
    name: 'kindling_http_request_duration_seconds',
    help: 'HTTP answers by method, route pattern and status: time from the request to the answer sent (the _count is the requests)',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const errors = new Counter({
    name: 'kindling_errors_total',
    help: 'Failed calls by door (rest, trpc, page) and error code (an answer of 400 or more without one: the code of its status, or HTTP_<status>); INTERNAL_SERVER_ERROR: failures of the server itself, each logged',
    labelNames: ['door', 'code'] as const,
    registers,
  });
  const jobRuns = new Counter({
    name: 'kindling_job_runs_total',
    help: 'Runs of the scheduled jobs in this process: subscriptions (the hourly run, job_runs), release (scheduled drafts); skipped: another run was under way',
    labelNames: ['job', 'outcome'] as const,
    registers,
  });
  const paymentEvents = new Counter({
    name: 'kindling_payment_events_total',
    help: "The payment provider's webhook events by type and outcome: accepted (it changed a donation), ignored (acknowledged, nothing changed: a type the app does not act on, an event seen before, a payment unknown, already settled or not matching its donation), refused (bad signature or unreadable), failed",
    labelNames: ['type', 'outcome'] as const,
    registers,
  });
  const emails = new Counter({
    name: 'kindling_emails_total',
    help: 'Emails by kind and outcome: sent (the SMTP server took it), failed (it did not), outbox (no SMTP_URL: kept in the outbox table)',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  });

  const pools = new Map<string, PoolUsage>();
  const poolGauge = (name: string, help: string, read: (u: PoolUsage) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['pool'] as const,
      registers,
      collect() {
        for (const [pool, usage] of pools) this.set({ pool }, read(usage));
      },
    });
  poolGauge('kindling_db_pool_connections', 'Connections the database pool may open', (u) => u.size);
  poolGauge('kindling_db_pool_in_use', 'Database connections busy with a query or holding a transaction', (u) => u.inUse);
  poolGauge('kindling_db_pool_waiting', 'Queries and transactions waiting for a database connection', (u) => u.waiting);

  return {
    error: (door, code) => errors.inc({ door, code }),
    jobRun: (job, outcome) => jobRuns.inc({ job, outcome }),
    paymentEvent: (type, outcome) => paymentEvents.inc({ type, outcome }),
    email: (kind, outcome) => emails.inc({ kind, outcome }),
    watchReplica(up) {
      // made only with a replica: an unset gauge would read 0 (down) where there is none
      new Gauge({
        name: 'kindling_read_replica_up',
        help: 'With DATABASE_READ_URL: 1 while the read replica answers its checks, 0 while every read goes to the primary',
        registers,
        collect() {
          this.set(up() ? 1 : 0);
        },
      });
    },
    watchPool(name, db) {
      const usage = poolUsage(db);
      if (usage) pools.set(name, usage);
    },
    requests,
    async scrape() {
      return `${await processMetrics().metrics()}\n${await registry.metrics()}`;
    },
    contentType: registry.contentType,
  };
}

/** Every tRPC procedure's path: a call of one of them is labelled with it; anything else with the route's pattern. */
const TRPC_ROUTE = '/trpc/:path';
const procedures = new Set(Object.keys(appRouter._def.procedures));

/** Requests for an unknown path: no route took them and no page of the client matches, or no file was found. */
const UNMATCHED = '(unmatched)';

/**
 * The route label of a request: the pattern of the route that answered it (`/api/campaigns/:id`),
 * never its URL, so the series stay as few as the routes whatever addresses are asked for. A tRPC
 * call of one procedure is labelled with it (`/trpc/campaigns.list`: the app's reads are batches of
 * one); a batch of several, or an unknown path, with the route's pattern. A page of the client
 * (answered by the not-found handler, or the built client's files' wildcard) gets its route's
 * pattern from shared/routes.ts; a file of the built client `/*`; anything else `(unmatched)`.
 */
function routeOf(req: FastifyRequest, status: number): string {
  const route = req.routeOptions.url;
  if (route === TRPC_ROUTE) {
    const path = (req.params as { path?: string }).path;
    return path !== undefined && procedures.has(path) ? `/trpc/${path}` : TRPC_ROUTE;
  }
  if (route !== undefined && route !== '/*') return route;
  if ((req.method === 'GET' || req.method === 'HEAD') && !req.url.startsWith('/assets/')) {
    const end = req.url.search(/[?#]/);
    const page = matchAppPath(end < 0 ? req.url : req.url.slice(0, end));
    if (page) return appRoutes[page.name].path;
  }
  return route === undefined || status === 404 ? UNMATCHED : route;
}

const CODE_OF_STATUS = new Map<number, string>(Object.entries(ERROR_STATUS).map(([code, status]) => [status, code]));

/** The error code of an answer's status, in tRPC's words (`HTTP_<status>` where they have none). */
function codeOfStatus(status: number): string {
  return status === 500 ? 'INTERNAL_SERVER_ERROR' : (CODE_OF_STATUS.get(status) ?? `HTTP_${status}`);
}

/** The error code of a failure the REST door's error handler (errors.ts) answers, in tRPC's words. */
function errorCode(error: unknown): string {
  if (error instanceof AppError) return error.code;
  if (error instanceof z.ZodError) return 'BAD_REQUEST';
  const status = (error as FastifyError).statusCode ?? 500;
  // any other thrown failure is the server's own, answered 500 and logged (errors.ts)
  return status >= 400 && status < 500 ? codeOfStatus(status) : 'INTERNAL_SERVER_ERROR';
}

/** Health probes (http/health.ts): their 503 while draining or not ready is an answer, not a failure. */
const HEALTH_ROUTES = new Set(['/livez', '/readyz']);

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/**
 * Counts every answer (one histogram observation: method, route pattern, status, duration) and
 * every failure the REST door answers, reports the app's database pools, and serves `/metrics`
 * in Prometheus's text format when a token is set: only to `Authorization: Bearer <token>`
 * (compared in constant time; 401 otherwise), never cached. Without a token `/metrics` is an
 * unknown path (404). It is outside /api and /trpc, so the per-address limit and the rate limits
 * leave a scraper alone. Call it before the routes are registered.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  metrics.watchPool('primary', app.deps.db);
  if (app.deps.readDb) metrics.watchPool('replica', app.deps.readDb);
  if (app.deps.readDbUp) metrics.watchReplica(app.deps.readDbUp);
  const { requests } = metrics;

  /** Requests whose failure was counted from the error itself (its code is finer than the status's). */
  const counted = new WeakSet<FastifyRequest>();
  const doorOf = (req: FastifyRequest): Door => {
    const door = apiDoorOf(req.url);
    return door === 'api' ? 'rest' : (door ?? 'page');
  };
  app.addHook('onResponse', (req, reply, done) => {
    const status = reply.statusCode;
    requests.observe({ method: req.method, route: routeOf(req, status), status }, reply.elapsedTime / 1000);
    // a failure answered without an error thrown (an unknown path, a page of a missing item, a
    // limit's 429, a refused scrape) counts by its status; tRPC's are counted by its own onError,
    // and a health probe's 503 is the state it reports, not a failed call
    if (status >= 400 && !counted.has(req) && !HEALTH_ROUTES.has(req.routeOptions.url ?? '')) {
      const door = doorOf(req);
      if (door !== 'trpc') metrics.error(door, codeOfStatus(status));
    }
    done();
  });
  app.addHook('onError', (req, _reply, error, done) => {
    counted.add(req);
    metrics.error(doorOf(req), errorCode(error));
    done();
  });

  if (!token) return;
  const expected = sha256(token);
  // a scrape every few seconds would fill the log: only its warnings and errors are logged
  app.get('/metrics', { logLevel: 'warn' }, async (req, reply) => {
    reply.header('cache-control', 'no-store');
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
    // hashes of equal length, so the comparison takes the same time whatever was sent
    if (!m || !timingSafeEqual(sha256(m[1]), expected)) {
      return reply.code(401).header('www-authenticate', 'Bearer realm="metrics"').send({ error: 'The metrics need the bearer token METRICS_TOKEN' });
    }
    return reply.type(metrics.contentType).send(await metrics.scrape());
  });
}
