import { z } from './zod';
import { M } from '../messages';
import { normaliseTags } from '../tags';

/**
 * The building blocks of every text a client sends (bodies, query strings, path parameters,
 * tags). PostgreSQL refuses the NUL character (U+0000) in text, so every string input is built
 * from `text()` and refuses it here, once, with a 400 naming the field ("title cannot contain
 * the NUL character (U+0000)"), before anything reaches the database. Input schemas never use
 * `z.string()` directly: the fuzz test (src/server/http/fuzz.heavy.test.ts) sends NUL in every string of every call.
 */
export function text(params?: Parameters<typeof z.string>[0]) {
  return z.string(params).refine((s) => !s.includes('\u0000'), { message: M.textNul, abort: true });
}

/**
 * The dates the app stores: years 1000 to 9999. PostgreSQL has no year 0 and refuses
 * JavaScript's extended years (-000001, +275760); years below 100 do not survive the trip back
 * (the driver reads "0001-01-01" as 2001); and no campaign happens before the year 1000.
 */
export const DATE_MIN = new Date('1000-01-01T00:00:00.000Z').getTime();
export const DATE_MAX = new Date('9999-12-31T23:59:59.999Z').getTime();

/**
 * A date from a client (an ISO string, or a Date on the tRPC door) checked once for every
 * date field: `invalid` when it is not a date at all, a message naming the field when it is
 * outside what is stored (see `DATE_MIN`), never a database error.
 */
export function toDate(v: string | Date, ctx: z.RefinementCtx, invalid: string): Date {
  const d = v instanceof Date ? v : new Date(v);
  const t = d.getTime();
  if (Number.isNaN(t)) {
    ctx.addIssue({ code: 'custom', message: invalid });
    return z.NEVER;
  }
  if (t < DATE_MIN || t > DATE_MAX) {
    ctx.addIssue({ code: 'custom', message: M.dateOutOfRange });
    return z.NEVER;
  }
  return d;
}

/** An id in a path: any string here; services answer 404 for one that names nothing (or is malformed). */
export const IdSchema = text().trim().min(1).max(100);

export { normaliseTags };

export const TagsSchema = z.array(text().max(40, 'A tag can be at most 40 characters')).max(30, 'At most 30 tags').transform(normaliseTags);

export const MessageSchema = z.object({ message: z.string() });
export type MessageDto = z.infer<typeof MessageSchema>;
