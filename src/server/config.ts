import path from 'node:path';
import { z } from 'zod';

/**
 * HTTP server timeouts (milliseconds), so a client that connects and then sends slowly or
 * nothing at all cannot hold a connection for long:
 * - requestTimeoutMs: the whole request, headers and body, must arrive within it (else 408).
 *   The largest request is an upload of 10 files of 10 MiB: 100 MiB in 5 minutes needs about
 *   3 Mbit/s upstream.
 * - headersTimeoutMs: the request line and headers must arrive within it (else 408).
 * - idleTimeoutMs: a connection on which no byte moves for this long is closed (Fastify's
 *   `connectionTimeout`); well above what any handler takes.
 * - keepAliveTimeoutMs: an idle keep-alive connection between requests is closed after it.
 */
export const HTTP_TIMEOUT_DEFAULTS = {
  requestTimeoutMs: 300_000,
  headersTimeoutMs: 10_000,
  idleTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
} as const;

/**
 * Fairness per client address under /api and /trpc (http/client-limit.ts): at most
 * `concurrency` requests of one address are handled at once, up to `queue` more wait their turn
 * (their bodies unread), and past that the address gets 429 with Retry-After. One address (a
 * script, a runaway client) then cannot take the whole server from everybody else, while a
 * browser, whose page asks one or two things at a time (tRPC batches them), hardly notices.
 * Uploads are not counted (they have their own queue). Behind a reverse proxy set
 * TRUST_PROXY=true, else every client shares the proxy's address.
 */
export const CLIENT_LIMIT_DEFAULTS = {
  concurrency: 2,
  queue: 16,
  /**
   * A budget over time on top (`rate` requests a second on average, `burst` at once after a
   * quiet spell): past it, an address's requests wait (counted among the `queue`) until the
   * budget allows them, so one address asking flat out is held to `rate` a second however many
   * connections it opens, and the server keeps its time for everybody else. A person in a
   * browser asks a few things a page; 30 a second is a page of a list every few tens of
   * milliseconds, without pause.
   */
  rate: 30,
  burst: 120,
} as const;

const optionalUrl = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

const ConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  /** Where the app is reached from a browser; links in emails point here. */
  APP_URL: optionalUrl.pipe(z.url().optional()),
  DATABASE_URL: optionalUrl.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must start with postgres:// or postgresql://')
      .optional(),
  ),
  DATA_DIR: z.string().default('./data'),
  SMTP_URL: optionalUrl,
  MAIL_FROM: z.string().default('Kindling <no-reply@kindling.local>'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Set to 0 to turn rate limits off (never in production). */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(10),
  /** The per-account write budgets (comments, creations, invites...: lib/rate-limit.ts); off only for bulk imports. */
  WRITE_LIMITS: z.enum(['on', 'off']).default('on'),
  /** Images one account may upload in an hour, and the space all its images may take. */
  UPLOADS_PER_HOUR: z.coerce.number().int().min(1).default(60),
  UPLOAD_QUOTA_MB: z.coerce.number().int().min(1).default(500),
  /** Upload requests read and processed at once; others wait their turn (memory stays bounded). */
  UPLOAD_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  /** Mark cookies Secure; on by default in production. */
  COOKIE_SECURE: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true')),
  /** The scheduled jobs (monthly charges, reminders) in this process, and how often they run. */
  JOBS: z.enum(['on', 'off']).default('on'),
  JOBS_INTERVAL_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(60),
  /** How often this process releases the scheduled drafts whose time has come (jobs/runner.ts RELEASE_INTERVAL_MS by default). */
  RELEASE_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** A donation still pending after this many minutes is asked of the payment provider (the reconciliation job). */
  PAYMENT_RECONCILE_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .default(30),
  /** The platform's share of each payout, in percent (rounded half up to the cent). */
  PLATFORM_FEE_PERCENT: z.coerce.number().min(0).max(50).default(5),
  /** Stripe instead of the built-in sandbox payment provider: both or neither. */
  STRIPE_SECRET_KEY: optionalUrl,
  STRIPE_WEBHOOK_SECRET: optionalUrl,
  /** The key of the stored tokens (AES-256-GCM): 32 bytes in base64; required in production. */
  SECRETS_KEY: optionalUrl,
  /** HTTP server timeouts in milliseconds (README, "HTTP timeouts"). */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1).default(HTTP_TIMEOUT_DEFAULTS.requestTimeoutMs),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1).default(HTTP_TIMEOUT_DEFAULTS.headersTimeoutMs),
  HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1).default(HTTP_TIMEOUT_DEFAULTS.idleTimeoutMs),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1).default(HTTP_TIMEOUT_DEFAULTS.keepAliveTimeoutMs),
  /** Requests of one client address handled at once (0 turns the limit off), and how many more may wait (CLIENT_LIMIT_DEFAULTS). */
  CLIENT_CONCURRENCY: z.coerce.number().int().min(0).max(10_000).default(CLIENT_LIMIT_DEFAULTS.concurrency),
  CLIENT_QUEUE: z.coerce.number().int().min(0).max(10_000).default(CLIENT_LIMIT_DEFAULTS.queue),
  /** Requests a second one address may send on average (0 turns the budget off), and at once after a quiet spell (CLIENT_LIMIT_DEFAULTS). */
  CLIENT_RATE: z.coerce.number().min(0).max(1_000_000).default(CLIENT_LIMIT_DEFAULTS.rate),
  CLIENT_BURST: z.coerce.number().int().min(1).max(1_000_000).default(CLIENT_LIMIT_DEFAULTS.burst),
  /** Migrations, the job lock and anything bound to a session go here when DATABASE_URL is a pooler (default: DATABASE_URL). */
  DIRECT_DATABASE_URL: optionalUrl.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'DIRECT_DATABASE_URL must start with postgres:// or postgresql://')
      .optional(),
  ),
  /** A read replica for anonymous lists, searches and details (optional). */
  DATABASE_READ_URL: optionalUrl.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'DATABASE_READ_URL must start with postgres:// or postgresql://')
      .optional(),
  ),
  /** `off` behind a transaction-mode pooler (PgBouncer), which cannot keep prepared statements. */
  DATABASE_PREPARE: z.enum(['on', 'off']).default('on'),
  /** After a write, a person's reads stay on the primary this long (read-your-writes with a replica). */
  READ_AFTER_WRITE_SECONDS: z.coerce.number().int().min(0).max(3600).default(10),
  /** Object storage for uploads (S3 or compatible); S3_BUCKET turns it on, else local disk. */
  S3_BUCKET: optionalUrl,
  S3_REGION: z.string().default('us-east-1'),
  S3_ENDPOINT: optionalUrl.pipe(z.url().optional()),
  S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).default('false'),
  S3_ACCESS_KEY_ID: optionalUrl,
  S3_SECRET_ACCESS_KEY: optionalUrl,
  /** The public base address of the bucket's files (a CDN or the bucket); unset: the app serves them. */
  S3_PUBLIC_URL: optionalUrl.pipe(z.url().optional()),
  /** `/metrics` (Prometheus) answers only with `Authorization: Bearer <METRICS_TOKEN>`; unset: not served. */
  METRICS_TOKEN: optionalUrl,
  /** On SIGTERM: seconds /readyz answers 503 while requests are still served (the balancer stops sending), then the drain. */
  SHUTDOWN_DRAIN_SECONDS: z.coerce.number().min(0).max(600).default(5),
  /** On SIGTERM: seconds requests in flight get to finish after the drain before the process exits anyway. */
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().min(1).max(600).default(20),
});

export type Config = {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  appUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  smtpUrl: string | undefined;
  mailFrom: string;
  logLevel: string;
  rateLimitPerMinute: number;
  writeLimits: boolean;
  uploadsPerHour: number;
  uploadQuotaBytes: number;
  uploadConcurrency: number;
  cookieSecure: boolean;
  /** Whether this process runs the scheduled jobs (JOBS), and their interval. */
  jobs: boolean;
  jobsIntervalMs: number;
  /** How often scheduled drafts are released (RELEASE_INTERVAL_SECONDS). */
  releaseIntervalMs: number;
  /** How long a donation may stay pending before the scheduled jobs ask the provider about it (PAYMENT_RECONCILE_MINUTES). */
  reconcileAfterMs: number;
  /** PLATFORM_FEE_PERCENT in basis points (500 for 5 %). */
  platformFeeBps: number;
  /** Set when Stripe takes payments (else the sandbox provider does). */
  stripe?: { secretKey: string; webhookSecret: string };
  /** HTTP server timeouts in milliseconds (HTTP_TIMEOUT_DEFAULTS). */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  idleTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Per-address fairness (CLIENT_LIMIT_DEFAULTS): requests handled at once (0: off) and waiting. */
  clientConcurrency: number;
  clientQueue: number;
  /** Per-address budget over time (CLIENT_LIMIT_DEFAULTS): requests a second (0: off) and at once. */
  clientRate: number;
  clientBurst: number;
  /** DIRECT_DATABASE_URL (default: DATABASE_URL): migrations, the job lock, session-bound work. */
  directDatabaseUrl: string | undefined;
  /** DATABASE_READ_URL: a replica for anonymous reads (unset: everything on the primary). */
  databaseReadUrl: string | undefined;
  /** DATABASE_PREPARE: false behind a transaction-mode pooler. */
  databasePrepare: boolean;
  /** READ_AFTER_WRITE_SECONDS in milliseconds. */
  readAfterWriteMs: number;
  /** Set when uploads go to object storage (S3_BUCKET). */
  s3?: {
    bucket: string;
    region: string;
    endpoint?: string;
    forcePathStyle: boolean;
    accessKeyId?: string;
    secretAccessKey?: string;
    /** Base address of the files without a trailing slash; unset: the app serves them from the bucket. */
    publicUrl?: string;
  };
  /** METRICS_TOKEN: /metrics is served only when set. */
  metricsToken: string | undefined;
  /** SHUTDOWN_DRAIN_SECONDS and SHUTDOWN_TIMEOUT_SECONDS in milliseconds. */
  shutdownDrainMs: number;
  shutdownTimeoutMs: number;
  /** SECRETS_KEY decoded (32 bytes); unset outside production, a key made once into DATA_DIR is used (modules/admin/secrets.ts). */
  secretsKey?: Buffer;
  dev: boolean;
};

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, opts: { dev?: boolean } = {}): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  if (!c.STRIPE_SECRET_KEY !== !c.STRIPE_WEBHOOK_SECRET) {
    throw new ConfigError('Invalid configuration:\n  STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET must be set together (or neither, for the test-mode sandbox)');
  }
  if ((c.S3_ACCESS_KEY_ID === undefined) !== (c.S3_SECRET_ACCESS_KEY === undefined)) {
    throw new ConfigError(
      "Invalid configuration:\n  S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (or neither, for the SDK's own credentials)",
    );
  }
  if (c.DIRECT_DATABASE_URL && !c.DATABASE_URL) {
    throw new ConfigError('Invalid configuration:\n  DIRECT_DATABASE_URL needs DATABASE_URL (the embedded database has no pooler)');
  }
  if (c.DATABASE_READ_URL && !c.DATABASE_URL) {
    throw new ConfigError('Invalid configuration:\n  DATABASE_READ_URL needs DATABASE_URL (the embedded database has no replica)');
  }
  const secretsKey = parseSecretsKey(c.SECRETS_KEY, c.NODE_ENV);
  const appUrl = (c.APP_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, '');
  return {
    env: c.NODE_ENV,
    port: c.PORT,
    host: c.HOST,
    appUrl,
    databaseUrl: c.DATABASE_URL,
    dataDir: path.resolve(c.DATA_DIR),
    smtpUrl: c.SMTP_URL,
    mailFrom: c.MAIL_FROM,
    logLevel: c.LOG_LEVEL,
    rateLimitPerMinute: c.RATE_LIMIT_PER_MINUTE,
    writeLimits: c.WRITE_LIMITS === 'on',
    uploadsPerHour: c.UPLOADS_PER_HOUR,
    uploadQuotaBytes: c.UPLOAD_QUOTA_MB * 1024 * 1024,
    uploadConcurrency: c.UPLOAD_CONCURRENCY,
    cookieSecure: c.COOKIE_SECURE ?? c.NODE_ENV === 'production',
    jobs: c.JOBS === 'on',
    jobsIntervalMs: c.JOBS_INTERVAL_MINUTES * 60_000,
    releaseIntervalMs: c.RELEASE_INTERVAL_SECONDS * 1000,
    reconcileAfterMs: c.PAYMENT_RECONCILE_MINUTES * 60_000,
    platformFeeBps: Math.round(c.PLATFORM_FEE_PERCENT * 100),
    stripe: c.STRIPE_SECRET_KEY && c.STRIPE_WEBHOOK_SECRET ? { secretKey: c.STRIPE_SECRET_KEY, webhookSecret: c.STRIPE_WEBHOOK_SECRET } : undefined,
    requestTimeoutMs: c.HTTP_REQUEST_TIMEOUT_MS,
    headersTimeoutMs: c.HTTP_HEADERS_TIMEOUT_MS,
    idleTimeoutMs: c.HTTP_IDLE_TIMEOUT_MS,
    keepAliveTimeoutMs: c.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    clientConcurrency: c.CLIENT_CONCURRENCY,
    clientQueue: c.CLIENT_QUEUE,
    clientRate: c.CLIENT_RATE,
    clientBurst: c.CLIENT_BURST,
    secretsKey,
    directDatabaseUrl: c.DIRECT_DATABASE_URL ?? c.DATABASE_URL,
    databaseReadUrl: c.DATABASE_READ_URL,
    databasePrepare: c.DATABASE_PREPARE === 'on',
    readAfterWriteMs: c.READ_AFTER_WRITE_SECONDS * 1000,
    s3: c.S3_BUCKET
      ? {
          bucket: c.S3_BUCKET,
          region: c.S3_REGION,
          endpoint: c.S3_ENDPOINT,
          forcePathStyle: c.S3_FORCE_PATH_STYLE === 'true',
          accessKeyId: c.S3_ACCESS_KEY_ID,
          secretAccessKey: c.S3_SECRET_ACCESS_KEY,
          publicUrl: c.S3_PUBLIC_URL?.replace(/\/+$/, ''),
        }
      : undefined,
    metricsToken: c.METRICS_TOKEN,
    shutdownDrainMs: Math.round(c.SHUTDOWN_DRAIN_SECONDS * 1000),
    shutdownTimeoutMs: Math.round(c.SHUTDOWN_TIMEOUT_SECONDS * 1000),
    dev: opts.dev ?? false,
  };
}

/** SECRETS_KEY: exactly 32 bytes in base64; a malformed key is always an error, a missing one in production. */
function parseSecretsKey(raw: string | undefined, env: Config['env']): Buffer | undefined {
  const hint = 'SECRETS_KEY must be 32 random bytes in base64 (for example the output of `openssl rand -base64 32`); it encrypts the stored tokens';
  if (raw === undefined) {
    if (env === 'production') throw new ConfigError(`Invalid configuration:\n  SECRETS_KEY is required in production. ${hint}`);
    return undefined;
  }
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64') : Buffer.alloc(0);
  if (key.length !== 32 || key.toString('base64') !== raw) throw new ConfigError(`Invalid configuration:\n  ${hint}`);
  return key;
}
