import { sql } from 'drizzle-orm';
import { M } from '../../shared/messages';
import { rowsOf, type DbOrTx } from '../db/client';
import type { Actor } from '../deps';
import { AppError } from './errors';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** One budget: at most `limit` in a fixed window of `windowMs`. */
export interface Budget {
  limit: number;
  windowMs: number;
}

/**
 * What one account (or, signed out, one address) may write, per kind of write. Each write
 * spends one unit of every budget of its kind; past any of them the answer is 429 with
 * Retry-After. Generous for a person, tight for a script: the attack this answers posted 436
 * comments a second.
 */
export const WRITE_BUDGETS = {
  comment: [
    { limit: 10, windowMs: MINUTE },
    { limit: 300, windowMs: DAY },
  ],
  campaign: [
    { limit: 10, windowMs: HOUR },
    { limit: 50, windowMs: DAY },
  ],
  project: [
    { limit: 10, windowMs: HOUR },
    { limit: 50, windowMs: DAY },
  ],
  team: [
    { limit: 10, windowMs: HOUR },
    { limit: 50, windowMs: DAY },
  ],
  invite: [
    { limit: 30, windowMs: HOUR },
    { limit: 200, windowMs: DAY },
  ],
  /** A draft's circle: invites and links (a creator may invite a few dozen people at once). */
  preview: [
    { limit: 100, windowMs: HOUR },
    { limit: 500, windowMs: DAY },
  ],
  /** An update to a campaign's backers (#33): each post is emailed to its audience. */
  update: [
    { limit: 10, windowMs: HOUR },
    { limit: 30, windowMs: DAY },
  ],
  follow: [{ limit: 60, windowMs: MINUTE }],
  favorite: [{ limit: 60, windowMs: MINUTE }],
  block: [{ limit: 30, windowMs: MINUTE }],
  // a signed-in person's support (guests confirm by email, limited like the other email senders)
  support: [{ limit: 60, windowMs: HOUR }],
  dispute: [
    { limit: 10, windowMs: HOUR },
    { limit: 30, windowMs: DAY },
  ],
} satisfies Record<string, Budget[]>;
export type WriteKind = keyof typeof WRITE_BUDGETS;

/**
 * Payment attempts (a donation, once or monthly: each may reach the payment provider with a
 * card). Unlike the other writes, an attempt spends its address's budget whoever is signed in,
 * as well as its account's, so that new accounts from one address get no more card tries
 * between them than one guest: what stops a card tester who signs up throwaway accounts.
 * Where the provider tells which card it is before the attempt (a fingerprint), the card has a
 * budget of its own across every account and address; neither provider here does (Stripe takes
 * the card on its own page, and the sandbox's test cards are public numbers everybody shares).
 * A family behind one address giving a few times an hour is far inside them.
 */
export const PAYMENT_BUDGETS = {
  address: [
    { limit: 10, windowMs: HOUR },
    { limit: 50, windowMs: DAY },
  ],
  account: [
    { limit: 10, windowMs: HOUR },
    { limit: 50, windowMs: DAY },
  ],
  card: [
    { limit: 5, windowMs: HOUR },
    { limit: 20, windowMs: DAY },
  ],
} satisfies Record<string, Budget[]>;

export interface RateLimiter {
  /** Counts one attempt under each key; throws a 429 AppError when any key is over its limit. */
  hit(...keys: string[]): Promise<void>;
  /** Spends `amount` of each budget under `key`; throws a 429 AppError (Retry-After) when one is exceeded. */
  spend(key: string, budgets: readonly Budget[], amount?: number): Promise<void>;
  /** One write of this kind by this actor: per account when signed in, per address otherwise. */
  write(kind: WriteKind, actor: Actor): Promise<void>;
  /**
   * One payment attempt by this actor: spends its address's budget and, signed in, its
   * account's, and the card's when the provider gives its fingerprint (`card`).
   */
  payment(actor: Actor, opts?: { card?: string | null }): Promise<void>;
}

/**
 * Fixed windows kept in Postgres, so every app process shares the counts and they survive a
 * restart. `perMinute` is the budget of the sign-in and email calls (`hit`); 0 turns every
 * limit off. `writes: false` turns off the write and payment budgets alone.
 */
export function createRateLimiter(db: DbOrTx, perMinute: number, opts: { windowMs?: number; writes?: boolean } = {}): RateLimiter {
  const windowMs = opts.windowMs ?? MINUTE;
  const writesOn = perMinute > 0 && opts.writes !== false;

  async function count(key: string, limit: number, window: number, amount: number, message?: string): Promise<void> {
    const result = await db.execute(sql`
      insert into rate_limits (key, window_start, count) values (${key}, now(), ${amount})
      on conflict (key) do update set
        count = case when rate_limits.window_start <= now() - (${window}::bigint * interval '1 millisecond')
                     then ${amount} else rate_limits.count + ${amount} end,
        window_start = case when rate_limits.window_start <= now() - (${window}::bigint * interval '1 millisecond')
                            then now() else rate_limits.window_start end
      returning count, (extract(epoch from window_start) * 1000)::float8 as start_ms`);
    const row = rowsOf<{ count: number; start_ms: number }>(result)[0];
    if (row && Number(row.count) > limit) {
      const elapsed = Date.now() - Number(row.start_ms);
      const retryAfter = Math.max(1, Math.ceil((window - elapsed) / 1000));
      throw new AppError('TOO_MANY_REQUESTS', message ?? (window > MINUTE ? M.tooManyWrites : M.tooManyRequests), retryAfter);
    }
  }

  const limiter: RateLimiter = {
    async hit(...keys) {
      if (perMinute <= 0) return;
      for (const key of keys) await count(key, perMinute, windowMs, 1);
    },
    async spend(key, budgets, amount = 1) {
      if (!writesOn) return;
      for (const b of budgets) await count(`${key}:${b.windowMs}`, b.limit, b.windowMs, amount);
    },
    write(kind, actor) {
      const who = actor.user ? `u:${actor.user.id}` : `ip:${actor.ip}`;
      return limiter.spend(`write:${kind}:${who}`, WRITE_BUDGETS[kind]);
    },
    async payment(actor, opts = {}) {
      if (!writesOn) return;
      const spend = async (key: string, budgets: readonly Budget[]) => {
        for (const b of budgets) await count(`payment:${key}:${b.windowMs}`, b.limit, b.windowMs, 1, M.tooManyPaymentAttempts);
      };
      // the address first: past its budget, an attempt spends nothing of the account's or the card's
      await spend(`ip:${actor.ip}`, PAYMENT_BUDGETS.address);
      if (actor.user) await spend(`u:${actor.user.id}`, PAYMENT_BUDGETS.account);
      if (opts.card) await spend(`card:${opts.card}`, PAYMENT_BUDGETS.card);
    },
  };
  return limiter;
}
