import { M } from '../../../shared/messages';
import { DATE_MAX, DATE_MIN } from '../../../shared/schemas/common';
import { badRequest } from '../../lib/errors';
import { decodeCursor, encodeCursor, type Cursor } from '../../lib/listing';

/**
 * Keyset paging of a person's lists (favorites, blocks, teams): pages on (created_at DESC,
 * id DESC) with lib/listing's opaque cursor, never OFFSET.
 *
 * (These two belong in lib/listing.ts; they live here because that file is shared with work in
 * progress elsewhere.)
 */

/**
 * A cursor from a client, or null for the first page. One that does not decode, or whose time
 * PostgreSQL cannot read, is a 400 "Invalid cursor" (never a database error): the time goes on as
 * the ISO string of the instant it names, whatever form Date.parse accepted it in ("2024" parses
 * in JavaScript but not as a timestamptz).
 */
export function readCursor(raw: string | undefined): Cursor | null {
  if (!raw) return null;
  const c = decodeCursor(raw);
  const ms = Date.parse(c.t);
  if (!(ms >= DATE_MIN && ms <= DATE_MAX)) throw badRequest(M.cursorInvalid);
  return { t: new Date(ms).toISOString(), id: c.id };
}

/**
 * A page from the `limit + 1` rows a query read: the first `limit`, and the cursor after the last
 * of them when the extra row says there is more (null on the last page, also when exactly full).
 */
export function pageOf<R>(rows: R[], limit: number, key: (row: R) => { createdAt: Date; id: string }): { page: R[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { page, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(key(last)) : null };
}
