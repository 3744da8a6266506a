import { sql, type SQL, type AnyColumn } from 'drizzle-orm';
import { M } from '../../shared/messages';
import { DATE_MAX, DATE_MIN } from '../../shared/schemas/common';
import { badRequest } from './errors';
import { isUuid } from './ids';

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
  return ts !== null
    ? sql`(${searchVector} @@ to_tsquery('english', ${ts}) OR ${title} ILIKE ${like})`
    : sql`${title} ILIKE ${like}`;
}
