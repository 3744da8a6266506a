import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config';
import type { Db } from './db/client';
import type { Session, SessionUser } from './auth/session';
import type { RateLimiter } from './lib/rate-limit';
import type { Metrics } from './http/metrics';
import type { Mailer } from './mail/mailer';
import type { PaymentProvider } from './payments/port';
import type { Storage } from './storage/storage';

/** What every service needs from the outside world; built once per app in app.ts. */
export interface Deps {
  db: Db;
  /**
   * The read replica (DATABASE_READ_URL), unset without one. Only anonymous list, search and
   * detail reads go there, chosen per caller by `readerFor` (db/replica.ts): never ask it directly.
   */
  readDb?: Db;
  /**
   * Whether the replica answered its last check (db/replica.ts: every REPLICA_CHECK_MS); while it
   * does not, `readerFor` sends every read to the primary. Unset: the replica counts as up.
   */
  readDbUp?: () => boolean;
  config: Config;
  mailer: Mailer;
  limiter: RateLimiter;
  log: FastifyBaseLogger;
  /** Uploaded files (local disk under DATA_DIR/uploads by default). */
  storage: Storage;
  /** The payment provider (the sandbox unless Stripe is configured). */
  payments: PaymentProvider;
  /** The secret behind guests' receipt links (made once into the data directory). */
  receiptKey: Buffer;
  /** The app's Prometheus counters (http/metrics.ts). */
  metrics: Metrics;
}

/** Who is calling: the same for both doors. */
export interface Actor {
  user: SessionUser | null;
  session: Session | null;
  ip: string;
  /**
   * Preview tokens the caller holds (issue #30): each from the preview cookie, for the item it was
   * given for, or from the X-Preview-Token header (`itemId` null: tried on any draft asked for).
   */
  previews?: readonly PreviewPass[];
  /** The caller wrote within READ_AFTER_WRITE_SECONDS (db/replica.ts): their reads stay on the primary. */
  wroteRecently?: boolean;
}

/** A preview token as the caller presents it. */
export interface PreviewPass {
  itemId: string | null;
  token: string;
}

export type SignedInActor = Actor & { user: SessionUser; session: Session };
