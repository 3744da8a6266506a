import { sql } from 'drizzle-orm';
import { M } from '../../shared/messages';
import { rowsOf, type DbOrTx } from '../db/client';
import { AppError } from './errors';

export interface RateLimiter {
  /** Counts one attempt under each key; throws a 429 AppError when any key is over its limit. */
  hit(...keys: string[]): Promise<void>;
}

/**
 * Fixed one-minute windows kept in Postgres, so every app process shares the counts and they
 * survive a restart. `perMinute` 0 turns limiting off.
 */
export function createRateLimiter(db: DbOrTx, perMinute: number, windowMs = 60_000): RateLimiter {
  return {
    async hit(...keys) {
      if (perMinute <= 0) return;
      for (const key of keys) {
        const result = await db.execute(sql`
          insert into rate_limits (key, window_start, count) values (${key}, now(), 1)
          on conflict (key) do update set
            count = case when rate_limits.window_start <= now() - (${windowMs}::int * interval '1 millisecond')
                         then 1 else rate_limits.count + 1 end,
            window_start = case when rate_limits.window_start <= now() - (${windowMs}::int * interval '1 millisecond')
                                then now() else rate_limits.window_start end
          returning count, (extract(epoch from window_start) * 1000)::float8 as start_ms`);
        const row = rowsOf<{ count: number; start_ms: number }>(result)[0];
        if (row && Number(row.count) > perMinute) {
          const elapsed = Date.now() - Number(row.start_ms);
          const retryAfter = Math.max(1, Math.ceil((windowMs - elapsed) / 1000));
          throw new AppError('TOO_MANY_REQUESTS', M.tooManyRequests, retryAfter);
        }
      }
    },
  };
}
