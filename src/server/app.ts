import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import type { FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { M } from '../shared/messages';
import type { Config } from './config';
import type { Db } from './db/client';
import { openReplica, registerReadAfterWrite } from './db/replica';
import type { Deps } from './deps';
import { registerBuiltClient, registerViteDev } from './http/client-app';
import { type LimitClock, registerClientLimit } from './http/client-limit';
import { registerDraftHeaders } from './http/draft-headers';
import { registerErrorHandler } from './http/errors';
import { registerHealth } from './http/health';
import { createMetrics, registerMetrics } from './http/metrics';
import { registerApiDocs } from './http/openapi';
import { registerRequestAuth } from './http/request-auth';
import type { RestRouteMeta } from './http/rest';
import { isApiUrl, MAX_PARAM_LENGTH, normalizeUrl, registerSecurityHeaders, securityHeaders } from './http/security';
import { dataDirKey } from './lib/keys';
import { createRateLimiter } from './lib/rate-limit';
import { createMailer, type Mailer } from './mail/mailer';
import { authRest } from './modules/auth/rest';
import { blocksRest } from './modules/blocks/rest';
import { campaignsRest } from './modules/campaigns/rest';
import { commentsRest } from './modules/comments/rest';
import { disputesRest } from './modules/disputes/rest';
import { donationsRest, paymentWebhooksRest } from './modules/donations/rest';
import { favoritesRest } from './modules/favorites/rest';
import { payoutsRest } from './modules/payouts/rest';
import { statsRest } from './modules/stats/rest';
import { adminRest } from './modules/admin/rest';
import { projectsRest } from './modules/projects/rest';
import { supportsRest } from './modules/supports/rest';
import { tagsRest } from './modules/tags/rest';
import { teamsRest } from './modules/teams/rest';
import { previewsRest } from './modules/previews/rest';
import { withoutPreviewToken } from './modules/previews/tokens';
import { registerDraftImageGate } from './modules/previews/images';
import { usersRest } from './modules/users/rest';
import { uploadsRest } from './modules/uploads/rest';
import { updatesRest } from './modules/updates/rest';
import { registerTrpcUploadLimit } from './modules/uploads/router';
import { cronRest } from './jobs/rest';
import { createJobRunner, type JobRunner } from './jobs/runner';
import { createPaymentProvider } from './payments';
import type { PaymentProvider } from './payments/port';
import { createStorage, isS3Storage } from './storage';
import { registerUploadsFromBucket, registerUploadsStatic } from './storage/serve';
import { type Storage, uploadsDir } from './storage/storage';
import { createServices, type Services } from './services';
import { trpcPlugin } from './trpc/http';
import { makeCreateContext } from './trpc/init';
import { appRouter, type AppRouter } from './trpc/router';

declare module 'fastify' {
  interface FastifyInstance {
    deps: Deps;
    services: Services;
    /** Every route under /api, with what its REST adapter declares (none for a plain route). */
    apiRoutes: { method: string; url: string; rest?: RestRouteMeta }[];
    /** The scheduled jobs (main.ts starts their schedule; tests and the admin run them on demand). */
    jobs: JobRunner;
  }
}

export const JSON_BODY_LIMIT = 1024 * 1024;
export const TRPC_MAX_BATCH = 20;

export interface BuildAppOptions {
  config: Config;
  db: Db;
  /** 'built' serves dist/client, 'dev' mounts Vite, 'none' serves only the API (most tests). */
  client?: 'built' | 'dev' | 'none';
  logger?: boolean;
  /** Where the log's JSON lines go instead of standard output (a test reads what the app logged). */
  logStream?: NodeJS.WritableStream;
  mailer?: Mailer;
  /** The built client to serve (defaults to dist/client). */
  clientDist?: string;
  /** Where uploads are stored (defaults to the settings: the S3 bucket, else local disk under DATA_DIR/uploads). */
  storage?: Storage;
  /** The payment provider (defaults to the configured one: config.stripe, else the sandbox). */
  payments?: PaymentProvider;
  /** The time the per-address limit goes by (defaults to the real one; a test moves its own). */
  clientLimitClock?: LimitClock;
  /** The read replica (defaults to a pool opened on config.databaseReadUrl when set, closed with the app). */
  readDb?: Db;
}

/** The whole HTTP application over a database; main.ts listens, tests use `app.inject`. */
export async function buildApp(opts: BuildAppOptions): Promise<FastifyInstance> {
  const { config, db } = opts;
  const headers = securityHeaders({ dev: opts.client === 'dev' });
  const app = Fastify({
    logger:
      opts.logger === false
        ? false
        : {
            level: config.logLevel,
            // a preview address's token never reaches the log (issue #30)
            serializers: {
              req: (req: { method: string; url: string; host?: string; ip?: string; socket?: { remotePort?: number } }) => ({
                method: req.method,
                url: withoutPreviewToken(req.url),
                host: req.host,
                remoteAddress: req.ip,
                remotePort: req.socket?.remotePort,
              }),
            },
            // JSON lines for machines; readable lines when a person watches a terminal in development
            ...(opts.logStream
              ? { stream: opts.logStream }
              : process.stdout.isTTY && config.env !== 'production'
                ? { transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss', ignore: 'pid,hostname' } } }
                : {}),
          },
    bodyLimit: JSON_BODY_LIMIT,
    // a slow or silent client cannot hold a connection for long (config.ts, HTTP_TIMEOUT_DEFAULTS)
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.idleTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: {
      // Node refuses a headers timeout longer than the request timeout
      headersTimeout: Math.min(config.headersTimeoutMs, config.requestTimeoutMs),
      // Node checks the request and headers timeouts on this interval (30 s by default)
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 10))),
    },
    // a tRPC batch puts every procedure name into one path parameter
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // `/%61pi/...` is `/api/...` for the router and for every hook that reads the URL (security.ts)
    rewriteUrl: (req) => normalizeUrl(req.url ?? '/'),
    // a path segment over that length, or a path that is not valid percent-encoding: the app's own
    // error answer (Fastify's repeats the whole path back, thousands of characters)
    // (these answers skip the hooks, so the security headers are set here)
    frameworkErrors: (error, req, frameworkReply) => {
      // its generic types know no statuses or bodies: it is the plain reply of any route
      const reply = frameworkReply as FastifyReply;
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      reply.headers(isApiUrl(req.url) ? headers.api : headers.page);
      void reply.status(tooLong ? 414 : 400).send({ error: tooLong ? M.addressTooLong : M.addressInvalid });
    },
    trustProxy: process.env.TRUST_PROXY === 'true',
    // a request that reaches the app while it closes (on a connection still open) is served, with
    // Connection: close, instead of Fastify's 503: it was accepted, and the drain answers it (lifecycle.ts)
    return503OnClosing: false,
  });

  const metrics = createMetrics();
  const mailer = opts.mailer ?? (await createMailer({ db, smtpUrl: config.smtpUrl, from: config.mailFrom, log: app.log, metrics }));
  const storage = opts.storage ?? createStorage(config, app.log);
  // the sandbox provider confirms payments through the webhook path: the same service call the route makes
  let receiveWebhook: Services['donations']['receiveWebhook'] | undefined;
  const payments = opts.payments ?? (await createPaymentProvider(config, async (name, body, headers) => void (await receiveWebhook!(name, body, headers))));
  // anonymous list, search and detail reads go to the replica when there is one (db/replica.ts)
  const replica =
    !opts.readDb && config.databaseReadUrl
      ? await openReplica(config.databaseReadUrl, {
          prepare: config.databasePrepare,
          onChange: (up, cause) =>
            up
              ? app.log.info('read replica answers again: anonymous reads go to it')
              : app.log.warn(`read replica does not answer (${cause}): every read goes to the primary until it does`),
        })
      : undefined;
  if (replica) {
    app.addHook('onClose', () => replica.close());
    app.log.info(`read replica: ${replica.describe}`);
    if (!replica.standby) app.log.warn('DATABASE_READ_URL points at a server that is not a standby (pg_is_in_recovery() is false)');
  }
  const readDb = opts.readDb ?? replica?.db;
  const deps: Deps = {
    db,
    ...(readDb ? { readDb } : {}),
    ...(replica ? { readDbUp: replica.up } : {}),
    config,
    mailer,
    limiter: createRateLimiter(db, config.rateLimitPerMinute, { writes: config.writeLimits }),
    log: app.log,
    storage,
    payments,
    receiptKey: dataDirKey(config.dataDir, 'receipt-link.key'),
    metrics,
  };
  const services = createServices(deps);
  receiveWebhook = services.donations.receiveWebhook;
  const jobs = createJobRunner({
    db,
    storage,
    services,
    log: app.log,
    intervalMs: config.jobsIntervalMs,
    releaseIntervalMs: config.releaseIntervalMs,
    metrics,
  });
  app.decorate('jobs', jobs);
  app.decorate('deps', deps);
  app.decorate('services', services);
  const apiRoutes: FastifyInstance['apiRoutes'] = [];
  app.decorate('apiRoutes', apiRoutes);
  app.addHook('onRoute', (r) => {
    if (!r.url.startsWith('/api/')) return;
    for (const method of [r.method].flat()) if (method !== 'HEAD') apiRoutes.push({ method, url: r.url, rest: r.config?.rest });
  });
  app.addHook('onClose', async () => {
    // a scheduled run under way finishes before the database closes
    await jobs.stop();
    // work done after an answer (forgot-password) may still send email: finish it first
    await services.auth.settle();
    await mailer.drain();
  });

  registerErrorHandler(app);
  // every answer counted, /metrics served with METRICS_TOKEN: before the routes
  registerMetrics(app, metrics, config.metricsToken);
  registerSecurityHeaders(app, headers);
  // /livez and /readyz, and Connection: close on every answer while draining (before any limit answers)
  registerHealth(app, { db, databaseUrl: config.databaseUrl });
  // an API answer that shows a draft is not cached, indexed or referred (issue #30): before the routes and compression
  registerDraftHeaders(app);
  // before anything reads a body or a session: one address cannot take the server from others
  registerClientLimit(app, {
    concurrency: config.clientConcurrency,
    queue: config.clientQueue,
    rate: config.clientRate,
    burst: config.clientBurst,
    clock: opts.clientLimitClock,
  });
  // answers above 1 KB go out brotli or gzip (as the client accepts); the built client's files
  // are compressed at build time and carry their encoding already. Request bodies are left as sent.
  await app.register(compress, { encodings: ['br', 'gzip'], threshold: 1024, globalDecompression: false });
  await app.register(cookie);
  registerRequestAuth(app, deps);
  // after the session is read: a caller who just wrote reads the primary (db/replica.ts)
  if (readDb) registerReadAfterWrite(app, config);

  await app.register(
    // biome-ignore lint/nursery/noMisusedPromises: register awaits an async plugin (FastifyPluginAsync); the rule reads its callback overload
    async (api) => {
      authRest(api, services, deps);
      campaignsRest(api, services);
      commentsRest(api, services);
      donationsRest(api, services);
      favoritesRest(api, services);
      blocksRest(api, services);
      projectsRest(api, services);
      supportsRest(api, services);
      payoutsRest(api, services);
      statsRest(api, services);
      disputesRest(api, services);
      adminRest(api, services);
      cronRest(api);
      tagsRest(api, services);
      teamsRest(api, services);
      previewsRest(api, services);
      updatesRest(api, services);
      usersRest(api, services);
    },
  );
  // biome-ignore lint/nursery/noMisusedPromises: register awaits an async plugin (FastifyPluginAsync); the rule reads its callback overload
  await app.register(async (api) => paymentWebhooksRest(api, services));
  // multipart parsing only in the uploads scope; uploaded files served from DATA_DIR/uploads or the bucket
  // biome-ignore lint/nursery/noMisusedPromises: register awaits an async plugin (FastifyPluginAsync); the rule reads its callback overload
  await app.register(async (api) => uploadsRest(api, services));
  // the document of every route above, and its reference page
  registerApiDocs(app, apiRoutes);
  // a draft's images only through the access rule (issue #30), then the files
  registerDraftImageGate(app, deps);
  if (isS3Storage(storage)) registerUploadsFromBucket(app, storage, db);
  else await registerUploadsStatic(app, uploadsDir(config.dataDir));
  registerTrpcUploadLimit(app);

  // tRPC's HTTP protocol; reads answered directly, the rest by tRPC's Fastify handler (trpc/http.ts)
  // biome-ignore lint/nursery/noMisusedPromises: register awaits an async plugin (FastifyPluginAsync); the rule reads its callback overload
  await app.register(trpcPlugin, {
    prefix: '/trpc',
    trpcOptions: {
      router: appRouter,
      createContext: makeCreateContext(deps, services),
      maxBatchSize: TRPC_MAX_BATCH,
      onError({ error, path }) {
        metrics.error('trpc', error.code);
        if (error.code === 'INTERNAL_SERVER_ERROR') app.log.error({ err: error.cause ?? error, path }, 'tRPC call failed');
      },
    } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
  });

  if (opts.client === 'built') await registerBuiltClient(app, opts.clientDist);
  else if (opts.client === 'dev') await registerViteDev(app);
  else {
    app.setNotFoundHandler((_req, reply) => reply.code(404).send({ error: M.notFound }));
  }
  return app;
}
