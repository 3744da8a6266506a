import { asc, desc, inArray, sql, type SQL, type AnyColumn } from 'drizzle-orm';
import { M } from '../../shared/messages';
import { listCounts } from '../db/schema';
import { AUDIENCES, itemVisibleSql, type Viewer } from './access';
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
 * A sorted list's order: its key, then the id breaking ties, both one way. A cursor of it carries
 * the sort's name, the last row's key and its id, so a cursor of one sort is refused by another.
 */
export interface SortOrder {
  name: string;
  key: AnyColumn;
  id: AnyColumn;
  dir: 'asc' | 'desc';
  /** What the key is: a time (timestamptz) or a whole number (bigint or int). */
  kind: 'time' | 'int';
}

/** A sorted list's cursor, read: the last row's key (ISO time or digits) and id. */
export interface SortCursor {
  k: string;
  id: string;
}

export function encodeSortCursor(order: Pick<SortOrder, 'name'>, key: Date | number | string, id: string): string {
  const k = key instanceof Date ? key.toISOString() : String(key);
  return Buffer.from(JSON.stringify({ s: order.name, k, id })).toString('base64url');
}

/**
 * The cursor a client sent for this order, or null for the first page. A cursor that does not
 * decode, was made for another sort, or whose key is not of the sort's kind is a 400 "Invalid
 * cursor". The newest-first lists' cursors from before sorts (`{ t, id }`) are read as `newest`'s.
 */
export function readSortCursor(raw: string | undefined, order: Pick<SortOrder, 'name' | 'kind'>): SortCursor | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { s?: unknown; k?: unknown; t?: unknown; id?: unknown };
    const [s, k] = v.s === undefined && v.t !== undefined ? ['newest', v.t] : [v.s, v.k];
    if (s === order.name && typeof k === 'string' && isUuid(v.id)) {
      if (order.kind === 'int' && /^-?\d{1,18}$/.test(k)) return { k, id: v.id };
      const time = order.kind === 'time' ? Date.parse(k) : NaN;
      if (time >= DATE_MIN && time <= DATE_MAX) return { k: new Date(time).toISOString(), id: v.id };
    }
  } catch {
    // fall through
  }
  throw badRequest(M.cursorInvalid);
}

/** ORDER BY of a sorted list: the key, then the id, both the sort's way. */
export function orderOf(order: SortOrder): SQL[] {
  const dir = order.dir === 'desc' ? desc : asc;
  return [dir(order.key), dir(order.id)];
}

/** Rows after the cursor in the sort's order, as a row comparison its index serves. */
export function afterSortCursor(order: SortOrder, c: SortCursor): SQL {
  const key = order.kind === 'time' ? sql`${c.k}::timestamptz` : sql`${c.k}::bigint`;
  const op = sql.raw(order.dir === 'desc' ? '<' : '>');
  return sql`(${order.key}, ${order.id}) ${op} (${key}, ${c.id}::uuid)`;
}

/**
 * How many items of a browsable list (campaigns, projects) the viewer sees, without counting
 * them: list_counts of the audiences they see, plus their own items of the other audiences.
 */
export function visibleTotalSql(entity: 'campaigns' | 'projects', viewer: Viewer, table: { audience: AnyColumn; ownerId: AnyColumn }): SQL<string> {
  const seen = sql`(select coalesce(sum(${listCounts.n}), 0) from ${listCounts} where ${listCounts.entity} = ${entity} and ${inArray(listCounts.audience, [...viewer.audiences])})`;
  if (viewer.userId === null || viewer.audiences.length === AUDIENCES.length) return sql<string>`${seen}`;
  const own = sql`(select count(*) from ${sql.identifier(entity)} where ${table.ownerId} = ${viewer.userId}::uuid and not ${itemVisibleSql({ ...viewer, userId: null }, table)})`;
  return sql<string>`${seen} + ${own}`;
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

/** What a search matches with, from what a person typed: the prefix query (null: no word in it) and the title pattern. */
export interface SearchTerms {
  ts: string | null;
  like: string;
}

/** The terms of a search, or null when nothing was typed. */
export function searchTerms(q: string): SearchTerms | null {
  const query = q.trim();
  if (!query) return null;
  return { ts: prefixTsQuery(query), like: `%${likeEscape(query)}%` };
}

/**
 * Search over a table with a generated `search_vector` (title, tags, category, description: GIN)
 * and a trigram index on the title: every typed word as the start of a word (stemmed), or the
 * typed text as a piece of the title; odd characters are text. The terms may be placeholders of
 * a statement built once (`hasWords` then says which of the two forms to build).
 */
export function searchSql(searchVector: AnyColumn, title: AnyColumn, terms: { ts: unknown; like: unknown }, hasWords: boolean): SQL {
  return hasWords ? sql`(${searchWordsSql(searchVector, terms.ts)} OR ${title} ILIKE ${terms.like})` : sql`${title} ILIKE ${terms.like}`;
}

/** The words' half of `searchSql`: every typed word as the start of a word of the search vector (GIN). */
export function searchWordsSql(searchVector: AnyColumn, ts: unknown): SQL {
  return sql`${searchVector} @@ to_tsquery('english', ${ts})`;
}

/** The search condition of what a person typed, or undefined when nothing was typed. */
export function searchCondition(searchVector: AnyColumn, title: AnyColumn, q: string): SQL | undefined {
  const terms = searchTerms(q);
  return terms ? searchSql(searchVector, title, terms, terms.ts !== null) : undefined;
}

/** The literal of a Postgres text[] (a parameter read the same on postgres.js and PGlite). */
export function textArrayLiteral(values: readonly string[]): string {
  return `{${values.map((t) => `"${t.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

/** A Postgres text[] literal as one parameter (works the same on postgres.js and PGlite). */
export function textArray(values: readonly string[]): SQL {
  return sql`${textArrayLiteral(values)}::text[]`;
}
