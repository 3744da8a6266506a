import { isIPv6 } from 'node:net';
import { sql } from 'drizzle-orm';
import { M } from '../../shared/messages';
import { rowsOf, type DbOrTx } from '../db/client';
import { AppError } from '../lib/errors';

/**
 * Login throttling that slows guessing without letting anyone lock a person out.
 *
 * Failed logins are counted in fixed windows (the `rate_limits` table, so every app process
 * shares them and a restart does not reset them) under three keys:
 * - per (account, address) pair: over `perPair` in a window that address gets 429 for that account;
 * - per address, over every account: over `perAddress` the address gets 429 for any account;
 * - per account, over every address: never a 429. Once an account has more than
 *   `accountSlowAfter` failures in the window, each further attempt on it waits first
 *   (`baseDelayMs`, doubling with each failure, at most `maxDelayMs`), so guesses from many
 *   addresses slow down while the owner, from their own address and with the right password,
 *   still signs in.
 * A success clears its pair's failures. An attempt is counted when it starts (two concurrent
 * guesses cannot both slip under a limit) and taken back from the address and account counts
 * when it succeeds, so only failures remain. Emails are counted whether or not an account
 * exists, so the throttle does not tell which exist. An IPv6 address counts as its /64 (one
 * subscriber usually holds a whole /64 and could otherwise change address at every guess).
 */
export interface LoginThrottleOptions {
  /** Failed logins a window for one (account, address) pair; 0 turns the throttle off. */
  perPair: number;
  /** Failed logins a window from one address over every account. */
  perAddress: number;
  /** Failed logins a window on one account (all addresses) before attempts on it are delayed. */
  accountSlowAfter: number;
  windowMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** How an attempt waits; tests pass a recorder instead of measuring time. */
  sleep: (ms: number) => Promise<void>;
}

export interface LoginAttempt {
  /** The delay this attempt waited before it was allowed to check the password (0 if none). */
  delayMs: number;
  /** The password was right: clear the pair's failures and take this attempt back from the others. */
  succeeded(): Promise<void>;
}

export interface LoginThrottle {
  /** Counts an attempt; throws a 429 AppError (with retryAfter) if the address is over its budget, waits if the account is under attack. */
  begin(email: string, ip: string): Promise<LoginAttempt>;
}

export const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Defaults from the configured `RATE_LIMIT_PER_MINUTE`: a pair and an account get that many, an address three times as many. */
export function loginThrottleDefaults(perMinute: number): LoginThrottleOptions {
  return {
    perPair: perMinute,
    perAddress: perMinute * 3,
    accountSlowAfter: perMinute,
    windowMs: 60_000,
    baseDelayMs: 250,
    maxDelayMs: 2_000,
    sleep: realSleep,
  };
}

/** The wait before an attempt on an account that already has `failures` failures in the window. */
export function accountDelayMs(failures: number, o: Pick<LoginThrottleOptions, 'accountSlowAfter' | 'baseDelayMs' | 'maxDelayMs'>): number {
  const excess = failures - o.accountSlowAfter;
  if (excess <= 0) return 0;
  return Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** Math.min(excess - 1, 30));
}

/** The address a limit applies to: IPv4 as is, IPv6 as its /64 prefix. */
export function addressBucket(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1];
  const bare = ip.split('%', 1)[0];
  if (!isIPv6(bare)) return ip;
  const [head, tail] = bare.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g || '0', 16).toString(16))
    .join(':')}::/64`;
}

interface Counted {
  key: string;
  count: number;
  /** The window's start as PostgreSQL wrote it (text round-trips a timestamptz exactly). */
  window_start: string;
  /** Seconds left in the window. */
  retry_after: number;
}

const NOOP_ATTEMPT: LoginAttempt = { delayMs: 0, succeeded: async () => {} };
/** Expired login counters are removed once every this many attempts (per process). */
const SWEEP_EVERY = 200;

export function createLoginThrottle(db: DbOrTx, options: LoginThrottleOptions): LoginThrottle {
  const o = options;
  const windowMs = Math.max(1, Math.floor(o.windowMs));
  let attempts = 0;

  /** One upsert for the given keys (in key order, so concurrent statements lock rows in one order). */
  async function count(keys: string[]): Promise<Map<string, Counted>> {
    const sorted = [...keys].sort();
    const result = await db.execute(sql`
      insert into rate_limits (key, window_start, count)
      values ${sql.join(
        sorted.map((k) => sql`(${k}, now(), 1)`),
        sql`, `,
      )}
      on conflict (key) do update set
        count = case when rate_limits.window_start <= now() - (${windowMs}::int * interval '1 millisecond')
                     then 1 else rate_limits.count + 1 end,
        window_start = case when rate_limits.window_start <= now() - (${windowMs}::int * interval '1 millisecond')
                            then now() else rate_limits.window_start end
      returning key, count, window_start::text as window_start,
        greatest(1, ceil(extract(epoch from (window_start + (${windowMs}::int * interval '1 millisecond') - now()))))::int as retry_after`);
    const rows = rowsOf<Counted>(result);
    return new Map(rows.map((r) => [r.key, { ...r, count: Number(r.count), retry_after: Number(r.retry_after) }]));
  }

  /** Takes this attempt back from a counter, if the counter is still in the window that counted it. */
  async function takeBack(c: Counted | undefined) {
    if (!c) return;
    await db.execute(sql`
      update rate_limits set count = count - 1
      where key = ${c.key} and window_start = ${c.window_start}::timestamptz and count > 0`);
  }

  async function sweep() {
    await db.execute(sql`
      delete from rate_limits
      where key like 'login-fail:%' and window_start <= now() - (${windowMs}::int * interval '1 millisecond')`);
  }

  return {
    async begin(rawEmail, rawIp) {
      if (o.perPair <= 0) return NOOP_ATTEMPT;
      const email = rawEmail.trim().toLowerCase();
      const ip = addressBucket(rawIp);
      const ipKey = `login-fail:ip:${ip}`;
      const pairKey = `login-fail:pair:${ip}:${email}`;
      const accountKey = `login-fail:account:${email}`;

      attempts += 1;
      if (attempts % SWEEP_EVERY === 0) await sweep();

      const counted = await count([ipKey, pairKey]);
      const pair = counted.get(pairKey);
      const address = counted.get(ipKey);
      const over = [pair && pair.count > o.perPair ? pair.retry_after : 0, address && address.count > o.perAddress ? address.retry_after : 0];
      const retryAfter = Math.max(...over);
      if (retryAfter > 0) throw new AppError('TOO_MANY_REQUESTS', M.tooManyRequests, retryAfter);

      const account = (await count([accountKey])).get(accountKey);
      // failures already counted on the account before this attempt (attempts in flight included)
      const delayMs = account ? accountDelayMs(account.count - 1, o) : 0;
      if (delayMs > 0) await o.sleep(delayMs);

      return {
        delayMs,
        async succeeded() {
          await db.execute(sql`delete from rate_limits where key = ${pairKey}`);
          await takeBack(address);
          await takeBack(account);
        },
      };
    },
  };
}
