import { sql, type SQL, type AnyColumn } from 'drizzle-orm';
import { M } from '../../shared/messages';
import { DATE_MAX, DATE_MIN } from '../../shared/schemas/common';
import { badRequest } from './errors';
import { isUuid } from './ids';

/**
 * Keyset paging on (created_at DESC, id DESC) with an opaque cursor, never OFFSET (except the
 * documented `page` of the public lists).
 */

/** An opaque keyset cursor: the last row's (created_at, id). */
export interface Cursor {
  t: string;
  id: string;
}

export function encodeCursor(row: { createdAt: Date; id: string }): string {
  return Buffer.from(JSON.stringify({ t: row.createdAt.toISOString(), id: row.id })).toString('base64url');
}

export function decodeCursor(raw: string): Cursor {
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<Cursor>;
    const time = typeof v.t === 'string' ? Date.parse(v.t) : NaN;
    // a time PostgreSQL cannot read (year 0, +275760...) is a bad cursor, not a database error
    if (time >= DATE_MIN && time <= DATE_MAX && isUuid(v.id)) return { t: v.t as string, id: v.id };
  } catch {
    // fall through
  }
  throw badRequest(M.cursorInvalid);
}

/**
 * A cursor from a client, or null for the first page. One that does not decode, or whose time
 * PostgreSQL cannot read, is a 400 "Invalid cursor" (never a database error): the time goes on as
 * the ISO string of the instant it names, whatever form Date.parse accepted it in ("2024" parses
 * in JavaScript but not as a timestamptz).
 */
export function readCursor(raw: string | undefined): Cursor | null {
  if (!raw) return null;
  const c = decodeCursor(raw);
  return { t: new Date(Date.parse(c.t)).toISOString(), id: c.id };
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

/**
 * Rows after the cursor in (created_at DESC, id DESC) order, as a row comparison the index
 * serves. The cursor's parts may be placeholders of a statement built once.
 */
export function afterCursor(createdAt: AnyColumn, id: AnyColumn, c: { t: unknown; id: unknown }): SQL {
  return sql`(${createdAt}, ${id}) < (${c.t}::timestamptz, ${c.id}::uuid)`;
}

/**
 * A prefix full-text query from what a person typed: every word must match the start of a
 * word (so "phot" finds "photography"). Null when nothing searchable is left.
 */
export function prefixTsQuery(q: string): string | null {
  const words = q
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, 8);
  if (!words.length) return null;
  return words.map((w) => `${w}:*`).join(' & ');
}

/** Escapes LIKE wildcards so a typed % or _ means itself. */
export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Search over a table with a generated `search_vector` (title, tags, description) and a
 * trigram index on the title: whole and partial words anywhere, or a substring of the title.
 */
export function searchCondition(searchVector: AnyColumn, title: AnyColumn, q: string): SQL | undefined {
  const query = q.trim();
  if (!query) return undefined;
  return searchMatch(searchVector, title, prefixTsQuery(query), `%${likeEscape(query)}%`);
}

/**
 * The search condition from its two values (or placeholders of a statement built once): `ts`,
 * a prefix full-text query (null when nothing searchable was typed), and `like`, a title pattern.
 */
export function searchMatch(searchVector: AnyColumn, title: AnyColumn, ts: unknown, like: unknown): SQL {
  return ts !== null ? sql`(${searchVector} @@ to_tsquery('english', ${ts}) OR ${title} ILIKE ${like})` : sql`${title} ILIKE ${like}`;
}

/** The literal of a Postgres text[] (a parameter read the same on postgres.js and PGlite). */
export function textArrayLiteral(values: readonly string[]): string {
  return `{${values.map((t) => `"${t.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

/** A Postgres text[] literal as one parameter (works the same on postgres.js and PGlite). */
export function textArray(values: readonly string[]): SQL {
  return sql`${textArrayLiteral(values)}::text[]`;
}
