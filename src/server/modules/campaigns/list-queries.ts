import { and, desc, eq, getTableColumns, inArray, Placeholder, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { alias, PgDialect } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import { SEARCH_COUNT_CAP } from '../../../shared/constants';
import type { ListQuery } from '../../../shared/schemas/campaigns';
import { arrayRunner, rowMapper, type Statement } from '../../db/array-rows';
import type { Db } from '../../db/client';
import { campaigns, listCounts, listVersions, users } from '../../db/schema';
import type { Actor } from '../../deps';
import { canSeeAdult } from '../../lib/access';
import { afterCursor, likeEscape, prefixTsQuery, readCursor, searchMatch } from '../../lib/listing';
import { createPageMarks } from './page-marks';
import {
  chosenValues,
  createWordsSearches,
  type IntersectArgs,
  intersectCounted,
  intersectMatches,
  intersectPageIds,
  type WordsSearch,
  type WordsTerms,
} from './search-intersections';
import { BLOCKS_AT, createSearchBitmaps, type Chosen } from './search-bitmaps';
import { createWordSearches, inText, POSTINGS_MAX_OFFSET, postingsHits, postingsMatches, postingsPageIds, type PostingsArgs } from './search-postings';

type Out<T extends z.ZodType> = z.output<T>;

/**
 * The campaign list's SQL: the page of rows and the total.
 *
 * The page's ids are chosen first, on `campaigns` alone (alias `page`), and only those rows are
 * joined with their owner and get their money and supporter subqueries: with an offset
 * (`page=`) Postgres would otherwise evaluate the subqueries for every skipped row. For who may
 * not see adult campaigns the filter is the literal `type <> 'adult'`, which is the predicate of
 * the partial index campaigns_public_created_id_idx (index-only scan for deep pages).
 *
 * Each list shape (who may see adult items, owner filter, cursor, signed in, kind of search) is
 * built once, on first use, with placeholders, so a request only fills in values. The shapes
 * without a search are also prepared: PostgreSQL keeps their plan. Searches are planned anew
 * with their words each time: a generic plan cannot know that one word matches nothing and
 * another a quarter of the table.
 * Rows come back as arrays and are mapped by a mapper made once per selection (db/array-rows.ts).
 * Deep `page=` pages of the whole list start from a page mark (page-marks.ts) instead of
 * walking an OFFSET over every row before them, and a repeated search reuses its total while
 * list_versions.changes stays the same.
 */

const { searchVector: _sv, ...campaignColumns } = getTableColumns(campaigns);
export { campaignColumns };

/**
 * Money read from the campaign's running totals (campaign_totals, kept from the ledger by a
 * trigger in the same transaction as each entry): a few shard rows however many donations it has.
 */
const raisedSql = sql<string>`coalesce((select sum(t.raised - t.refunded - t.charged_back) from campaign_totals t
  where t.campaign_id = ${campaigns.id} and t.currency = ${campaigns.currency}), 0)`;
const donorsSql = sql<string>`coalesce((select sum(t.donors) from campaign_totals t
  where t.campaign_id = ${campaigns.id} and t.currency = ${campaigns.currency}), 0)`;
const supportersSql = sql<string>`(select count(*) from supports s where s.campaign_id = ${campaigns.id} and s.confirmed_at is not null)`;

/** What a campaign answer selects; `viewerId` (a value or a placeholder) adds what they donated. */
export function campaignSelection(viewerId: unknown) {
  return {
    c: campaignColumns,
    owner: { id: users.id, username: users.username, name: users.name, imageUrl: users.imageUrl },
    raised: raisedSql,
    donors: donorsSql,
    supporters: supportersSql,
    donated:
      viewerId === null
        ? sql<string>`0`
        : sql<string>`coalesce((select d.donated from campaign_donors d where d.campaign_id = ${campaigns.id} and d.donor_key = 'u:' || ${viewerId}::text), 0)`,
    supported:
      viewerId === null
        ? sql<boolean>`false`
        : sql<boolean>`exists (select 1 from supports s where s.campaign_id = ${campaigns.id} and s.user_id = ${viewerId}::uuid and s.confirmed_at is not null)`,
  };
}

export type CampaignRow = {
  c: Omit<typeof campaigns.$inferSelect, 'searchVector'>;
  owner: { id: string; username: string | null; name: string | null; imageUrl: string | null };
  raised: string | number;
  donors: string | number;
  supporters: string | number;
  donated: string | number;
  supported: boolean;
};

/** A row of the list's total query: per-adult counts from list_counts (with the list's generation), or one count(*). */
export type TotalRow = { adult?: boolean; n: string | number; generation?: string | number; changes?: string | number };

/** `campaigns` under another name, for the list's inner page query. */
const listPage = alias(campaigns, 'page');

/** The list's total from its total query's rows (list_counts rows skip adult ones for who may not see them). */
export function listTotal(actor: Actor, rows: readonly TotalRow[]): number {
  return rows.reduce((sum, r) => (r.adult && !canSeeAdult(actor) ? sum : sum + Number(r.n)), 0);
}

/** A list request's answer from the database: its rows (one more than the page when there is a next page) and its total's rows. */
export interface ListResult {
  rows: CampaignRow[];
  totals: TotalRow[];
  /** True for a search, whose total stops counting after SEARCH_COUNT_CAP. */
  capped: boolean;
}

/** Where the page starts: the newest row (plus an offset), after a cursor, or at a page mark (plus an offset under `every`). */
type From = 'top' | 'cursor' | 'mark';

/** The parts of a list request that change its SQL text (a statement built once each). */
interface Shape {
  seeAdult: boolean;
  owner: boolean;
  from: From;
  viewer: boolean;
  /**
   * Whole and partial words, or (when nothing but punctuation was typed) only a title substring;
   * `postings`: one word answered from the search postings (search-postings.ts); `intersect`:
   * several words answered from the search's block bitmaps (search-intersections.ts).
   */
  search: 'none' | 'words' | 'title' | 'postings' | 'intersect';
  /**
   * A page without an offset (the first, or one after a cursor) of the list or of a search the
   * postings or bitmaps answer: its size (rows read), written into the statement's text. Its
   * other parameters then do not change the plan (owner, viewer, cursor, a search's terms), so
   * PostgreSQL keeps one generic plan of the prepared statement instead of planning it anew for
   * each request: with `limit $1` the generic plan has to assume a tenth of the table, costs
   * more than a custom plan, and is never chosen.
   */
  first?: number;
}

/** Values or placeholders for the parts of the SQL that vary. */
interface Args {
  seeAdult: boolean;
  ownerId?: unknown;
  search?: { ts: unknown; like: unknown };
  /** One word answered from the search postings (instead of `search`). */
  postings?: PostingsArgs;
  /** Several words answered from the search postings (instead of `search`). */
  intersect?: IntersectArgs;
  cursor?: { t: unknown; id: unknown };
  /** Rows from this key down, itself included. */
  mark?: { t: unknown; id: unknown };
  limit: unknown;
  offset: unknown;
  viewerId: unknown;
  /**
   * The first page of a search the postings answer, with its total in the same statement: the
   * matches are walked once, to the count's cap, and the page is their newest rows.
   */
  withTotal?: boolean;
}

const dialect = new PgDialect();

/** The page's rows with the search's total (up to SEARCH_COUNT_CAP + 1) and the list's `changes` on each row. */
export type CountedRow = CampaignRow & { searchTotal: string | number; changes: string | number };

function build(db: Db, a: Args) {
  const p = listPage;
  const base: SQL[] = [];
  if (!a.seeAdult) base.push(sql`${p.type} <> 'adult'`);
  if (a.ownerId !== undefined) base.push(sql`${p.ownerId} = ${a.ownerId}::uuid`);
  if (a.search) base.push(searchMatch(p.searchVector, p.title, a.search.ts, a.search.like));
  const where = [...base];
  if (a.cursor) where.push(afterCursor(p.createdAt, p.id, a.cursor));
  if (a.mark) where.push(sql`(${p.createdAt}, ${p.id}) <= (${a.mark.t}::timestamptz, ${a.mark.id}::uuid)`);

  const pageIds = a.intersect
    ? intersectPageIds(a.intersect)
    : a.postings
      ? postingsPageIds(a.postings)
      : typeof a.limit === 'number'
        ? // a page without an offset: its size in the text (see Shape.first)
          sql`(select ${p.id} from ${campaigns} ${sql.identifier('page')}${where.length ? sql` where ${and(...where)}` : sql``}
          order by ${p.createdAt} desc, ${p.id} desc limit ${inText(a.limit)})`
        : db
            .select({ id: p.id })
            .from(p)
            .where(where.length ? and(...where) : undefined)
            .orderBy(desc(p.createdAt), desc(p.id))
            .limit(a.limit as number)
            .offset(a.offset as number);
  const rowsSelection = campaignSelection(a.viewerId);
  /** These campaigns with their owners, newest first. */
  const rowsOf = (selection: typeof rowsSelection, ids: SQL | SQLWrapper) =>
    db
      .select(selection)
      .from(campaigns)
      .innerJoin(users, eq(users.id, campaigns.ownerId))
      .where(inArray(campaigns.id, ids))
      .orderBy(desc(campaigns.createdAt), desc(campaigns.id));
  // a search the bitmaps answer reads, in the same snapshot as its campaigns, whether the bitmaps
  // it was answered from are still current (a last column, not mapped; search-bitmaps.ts)
  const withAt = <T extends Record<string, unknown>>(selection: T) => (a.intersect ? { ...selection, bitmapsAt: sql.raw(BLOCKS_AT) } : selection);
  const rows = rowsOf(withAt(rowsSelection), pageIds);
  const changesSql = sql<string>`(select ${listVersions.changes} from ${listVersions} where ${listVersions.entity} = 'campaigns')`;
  // a search counts at most SEARCH_COUNT_CAP + 1 matches: an exact count of a common word over a
  // million rows would scan the table, and nobody pages that deep
  const count = { n: sql<string>`count(*)` };
  // a search's count says at which `changes` of the list it was counted (same snapshot)
  const searchCount = { ...count, changes: changesSql };
  const searching = a.search !== undefined || a.postings !== undefined || a.intersect !== undefined;
  const totalSelection = searching
    ? searchCount
    : a.ownerId !== undefined
      ? count
      : {
          adult: listCounts.adult,
          n: listCounts.n,
          generation: sql<string>`(select ${listVersions.generation} from ${listVersions} where ${listVersions.entity} = 'campaigns')`,
        };
  const total = a.intersect
    ? db.select(withAt(searchCount)).from(intersectMatches(a.intersect))
    : a.postings
      ? db.select(searchCount).from(postingsMatches(a.postings))
      : a.search
        ? db.select(searchCount).from(
            db
              .select({ one: sql`1`.as('one') })
              .from(p)
              .where(and(...base))
              .limit(SEARCH_COUNT_CAP + 1)
              .as('matches'),
          )
        : a.ownerId === undefined
          ? db.select(totalSelection).from(listCounts).where(sql`${listCounts.entity} = 'campaigns'`)
          : db
              .select(count)
              .from(p)
              .where(and(...base));
  let counted: Built<CountedRow> | undefined;
  if (a.withTotal && a.intersect) {
    // the page's matches with the total (up to SEARCH_COUNT_CAP + 1) on each row, from one pass
    // over the bitmaps; no match: one row without a campaign, with the total
    const ids = sql`(select m.campaign_id from m where m.campaign_id is not null order by m.created_at desc, m.campaign_id desc limit ${inText(a.limit)})`;
    const selection = { ...rowsSelection, searchTotal: sql<string>`(select max(m.total) from m)`, changes: changesSql };
    counted = {
      ...dialect.sqlToQuery(sql`with m as materialized (${intersectCounted(a.intersect)}) ${rowsOf(withAt(selection), ids).getSQL()}`),
      map: rowMapper<CountedRow>(selection),
      at: true,
    };
  } else if (a.withTotal && a.postings) {
    // `m`: the matches the total counts (each term's first SEARCH_COUNT_CAP + 1 postings), read
    // once; the page is their newest rows (they hold every term's newest ones), the total their number
    const cap = sql.raw(String(SEARCH_COUNT_CAP + 1));
    const m = sql`select h.campaign_id, h.created_at from ${postingsHits(a.postings, cap)}`;
    const ids = sql`(select m.campaign_id from m group by m.created_at, m.campaign_id order by m.created_at desc, m.campaign_id desc limit ${inText(a.limit)})`;
    const n = sql<string>`(select count(*) from (select distinct m.campaign_id from m limit ${cap}) x)`;
    const selection = { ...rowsSelection, searchTotal: n, changes: changesSql };
    counted = { ...dialect.sqlToQuery(sql`with m as materialized (${m}) ${rowsOf(selection, ids).getSQL()}`), map: rowMapper<CountedRow>(selection) };
  }
  return {
    rows: { ...rows.toSQL(), map: rowMapper<CampaignRow>(rowsSelection), at: Boolean(a.intersect) },
    total: { ...total.toSQL(), map: rowMapper<TotalRow>(totalSelection), at: Boolean(a.intersect) },
    counted,
  };
}

/** A statement whose params may hold placeholders, and how to map its rows. */
interface Built<T> extends Statement {
  map: (row: unknown[]) => T;
  /** Its rows end with the bitmaps' BLOCKS_AT (not mapped). */
  at?: boolean;
}

/** The statement with this request's values in place of its placeholders. */
function filled(q: Statement, values: Record<string, unknown>): Statement {
  return {
    sql: q.sql,
    params: q.params.map((p) => (p instanceof Placeholder ? values[p.name] : p)),
  };
}

/** A search's terms when the postings answer it: one word's (a text[] literal), or what several words' bitmaps chose. */
type Terms = { one: string } | { many: Chosen };

/**
 * Most slots a search of several words may hand the database (its page's and its count's): a
 * search that many campaigns match in the blocks its page is drawn from, and few match in all, is
 * answered faster by the campaigns' own indexes.
 */
const MAX_SLOTS = 20_000;

/** What a request's statements read of the bitmaps' BLOCKS_AT ('' when two read different values). */
interface Seen {
  at?: string;
  /** The total counted, to be kept once the answer stands. */
  counted?: TotalRow[];
}

/** Rows before the page: none after a cursor, else those of the pages before it. */
function pageOffset(query: { page: number; limit: number }, cursor: unknown): number {
  return cursor ? 0 : (query.page - 1) * query.limit;
}

/** How many times a search the bitmaps answer is answered again when they changed meanwhile. */
const MAX_ATTEMPTS = 3;

/** Pages from this offset on (when there is no cursor, search or owner filter) start from a page mark. */
const MARK_EVERY = 1000;
/** How many statement shapes are kept (the most recently used). */
const SHAPES_KEPT = 500;
/** How many search totals are kept (the most recently used). */
const SEARCH_TOTALS_KEPT = 1000;

/**
 * The campaign list's queries over one database: `run` answers a list request's rows and total
 * (a malformed cursor is a 400); `statements` tells which statements it runs, with their values
 * (the benchmark runs the very same ones raw). `markEvery` (tests) spaces the page marks; `postings:
 * false` (tests) answers every search from the campaigns; `bitmaps` (tests) are the search bitmaps
 * held (search-bitmaps.ts; else its own).
 */
export function createCampaignListQueries(db: Db, opts: { markEvery?: number; postings?: boolean; bitmaps?: ReturnType<typeof createSearchBitmaps> } = {}) {
  const exec = arrayRunner(db);
  const usePostings = opts.postings ?? true;
  const words = createWordSearches(db);
  const wordsSearches = createWordsSearches(db);
  const bitmaps = opts.bitmaps ?? createSearchBitmaps(db);
  /** The terms of the several-word searches classified (kept as long as their classification). */
  const termsHeld = new WeakMap<WordsSearch, WordsTerms>();
  const marks = createPageMarks(db, { every: opts.markEvery ?? MARK_EVERY });
  const built = new Map<string, { rows: Built<CampaignRow>; total: Built<TotalRow>; counted?: Built<CountedRow> }>();
  /**
   * Search totals with the list's `changes` they were counted at. Counting (up to
   * SEARCH_COUNT_CAP) is most of a search's cost; while no statement has written campaigns since,
   * the same search has the same total, so a repeated search (a tag pill, a popular word) reads
   * the counter instead of counting again.
   */
  const searchTotals = new Map<string, { changes: number; n: number }>();
  const versionQuery = db.select({ changes: listVersions.changes }).from(listVersions).where(sql`${listVersions.entity} = 'campaigns'`);
  const version: Built<{ changes: number }> = { ...versionQuery.toSQL(), map: rowMapper({ changes: listVersions.changes }) };
  const blocksAt: Built<string> = { sql: `select ${BLOCKS_AT}`, params: [], map: (row) => String(row[0]) };

  function rememberTotal(key: string, totals: TotalRow[]): void {
    const [t] = totals;
    if (!t || t.changes === undefined || t.changes === null) return;
    searchTotals.delete(key);
    searchTotals.set(key, { changes: Number(t.changes), n: Number(t.n) });
    if (searchTotals.size > SEARCH_TOTALS_KEPT) searchTotals.delete(searchTotals.keys().next().value!);
  }

  function shapeStatements(s: Shape) {
    const key = `${+s.seeAdult}${+s.owner}${s.from}${+s.viewer}${s.search}${s.first ? `l${s.first}` : ''}`;
    let stmts = built.get(key);
    if (!stmts) {
      const ph = sql.placeholder;
      const postings = s.search === 'postings';
      const intersect = s.search === 'intersect';
      stmts = build(db, {
        seeAdult: s.seeAdult,
        ownerId: s.owner ? ph('ownerId') : undefined,
        intersect: intersect
          ? ({
              pageSlots: ph('pageSlots'),
              pageTitleSlots: ph('pageTitleSlots'),
              countTitleSlots: ph('countTitleSlots'),
              fullText: ph('fullText'),
              countLimit: ph('countLimit'),
              like: ph('like'),
              cursor: s.from === 'cursor' ? { t: ph('t'), id: ph('id') } : undefined,
              perHalf: s.first ?? ph('perTerm'),
              limit: s.first ?? ph('limit'),
              offset: s.first ? 0 : ph('offset'),
            } satisfies IntersectArgs)
          : undefined,
        search: s.search === 'none' || postings || intersect ? undefined : { ts: s.search === 'words' ? ph('ts') : null, like: ph('like') },
        postings: postings
          ? {
              terms: ph('terms'),
              seeAdult: s.seeAdult,
              cursor: s.from === 'cursor' ? { t: ph('t'), id: ph('id') } : undefined,
              perTerm: s.first ?? ph('perTerm'),
              limit: s.first ?? ph('limit'),
              offset: s.first ? 0 : ph('offset'),
            }
          : undefined,
        cursor: s.from === 'cursor' ? { t: ph('t'), id: ph('id') } : undefined,
        mark: s.from === 'mark' ? { t: ph('t'), id: ph('id') } : undefined,
        limit: s.first ?? ph('limit'),
        offset: ph('offset'),
        viewerId: s.viewer ? ph('viewerId') : null,
        withTotal: (postings || intersect) && s.from === 'top',
      });
      built.set(key, stmts);
      // several words' shapes (terms per word) are many: keep the most recently built
      if (built.size > SHAPES_KEPT) built.delete(built.keys().next().value!);
    }
    return stmts;
  }

  /** Runs a statement; `seen` gets the bitmaps' BLOCKS_AT its rows end with (see Built.at). */
  async function run<T>(b: Built<T>, q: Statement, prepare: boolean, seen?: Seen): Promise<T[]> {
    const raw = await exec(q, prepare);
    if (b.at && seen && raw.length) {
      const at = String(raw[0][raw[0].length - 1]);
      // two statements that read the blocks at different moments: not one answer
      seen.at = seen.at === undefined || seen.at === at ? at : '';
    }
    return raw.map(b.map);
  }

  /**
   * The terms of a search the postings answer: one word's (a text[] literal, search-postings.ts)
   * or several words' (search-intersections.ts); null when the campaigns' own indexes answer it.
   */
  async function termsOf(actor: Actor, query: Out<typeof ListQuery>, filter: { ownerId?: string }): Promise<Terms | null> {
    const text = query.q.trim();
    if (!usePostings || !text || filter.ownerId !== undefined) return null;
    if (!query.cursor && (query.page - 1) * query.limit > POSTINGS_MAX_OFFSET) return null;
    const ts = prefixTsQuery(text);
    if (!ts) return null;
    const word = await words.of(text, ts);
    if (word) return { one: await words.terms(word) };
    const several = await wordsSearches.of(text, ts);
    if (!several) return null;
    const cursor = readCursor(query.cursor);
    const choice = {
      seeAdult: canSeeAdult(actor),
      cursorAt: cursor ? Date.parse(cursor.t) : null,
      // the page's offset and rows, and one more (plan's perTerm)
      need: pageOffset(query, cursor) + query.limit + 1,
      cap: SEARCH_COUNT_CAP + 1,
    };
    // the terms read for this search before, while the bitmaps are as they were then (see WordsTerms.at)
    const held = termsHeld.get(several);
    let chosen = held ? await bitmaps.choose(held, choice) : null;
    if (!held || !chosen || chosen.at !== held.at) {
      const terms = await wordsSearches.terms(several);
      if (!terms) return null;
      termsHeld.set(several, terms);
      chosen = await bitmaps.choose(terms, choice);
    }
    const slots = chosen.pageSlots.length + chosen.pageTitleSlots.length + chosen.countTitleSlots.length;
    return slots > MAX_SLOTS ? null : { many: chosen };
  }

  /** The request's statements; for a deep page, the rows' statement depends on the total's rows. */
  function plan(actor: Actor, query: Out<typeof ListQuery>, filter: { ownerId?: string }, found: Terms | null) {
    const terms = found && 'one' in found ? found.one : null;
    const many = found && 'many' in found ? found.many : null;
    const { limit } = query;
    const cursor = readCursor(query.cursor);
    const seeAdult = canSeeAdult(actor);
    const viewerId = actor.user?.id ?? null;
    const text = query.q.trim();
    const ts = text ? prefixTsQuery(text) : null;
    const offset = pageOffset(query, cursor);
    const shape: Shape = {
      seeAdult,
      owner: filter.ownerId !== undefined,
      from: cursor ? 'cursor' : 'top',
      viewer: viewerId !== null,
      search: !text ? 'none' : terms !== null ? 'postings' : many !== null ? 'intersect' : ts ? 'words' : 'title',
      first: offset === 0 && (!text || found !== null) ? limit + 1 : undefined,
    };
    // one row more than the page: it says whether there is a next page
    const values = {
      limit: limit + 1,
      offset,
      ownerId: filter.ownerId,
      t: cursor?.t,
      id: cursor?.id,
      viewerId,
      ts,
      like: `%${likeEscape(text)}%`,
      terms,
      perTerm: offset + limit + 1,
      ...(many ? chosenValues(many) : {}),
    };
    const top = shapeStatements(shape);
    // a search on the campaigns' own indexes is planned anew each time with its words (see
    // above); the other shapes, and the statements of searches the postings or the bitmaps answer
    // (their terms are parameters, the plan the same for every word), are prepared
    const prepare = !text || terms !== null || many !== null;
    const total = filled(top.total, values);
    const deep = !cursor && !text && filter.ownerId === undefined && offset >= marks.every;

    /** The rows' statement: from a page mark when this generation has one for the page, else by offset. */
    function rowsStatement(totals: TotalRow[] | null): { built: Built<CampaignRow>; q: Statement } {
      if (deep && totals) {
        const generation = Math.max(0, ...totals.map((r) => Number(r.generation ?? 0)));
        const rank = listTotal(actor, totals) - 1 - offset;
        const mark = rank >= 0 ? marks.find(seeAdult ? 'all' : 'public', generation, rank) : null;
        if (mark) {
          const fromMark = shapeStatements({ ...shape, from: 'mark', first: undefined });
          return { built: fromMark.rows, q: filled(fromMark.rows, { ...values, t: mark.t, id: mark.id, offset: mark.rank - rank }) };
        }
      }
      return { built: top.rows, q: filled(top.rows, values) };
    }
    // what a search's total depends on: who may see adult items, the owner filter, the words
    const totalKey = text ? `${+seeAdult}|${filter.ownerId ?? ''}|${ts ?? ''}|${values.like}` : null;
    // a first page whose total is not known: the page and its total from one walk of the matches
    const counted = top.counted && offset === 0 && !(totalKey !== null && searchTotals.has(totalKey)) ? filled(top.counted, values) : null;
    return { top, total, deep, prepare, capped: Boolean(text), totalKey, rowsStatement, counted };
  }

  /** A list request's answer from these statements. */
  async function answer(p: ReturnType<typeof plan>, seen: Seen): Promise<ListResult> {
    if (p.deep) {
      // a deep page needs the total (and the generation) to find its mark
      const totals = await run(p.top.total, p.total, p.prepare, seen);
      const r = p.rowsStatement(totals);
      return { rows: await run(r.built, r.q, p.prepare, seen), totals, capped: p.capped };
    }
    if (p.counted && p.top.counted) {
      const counted = await run(p.top.counted, p.counted, p.prepare, seen);
      const rows: CampaignRow[] = counted.map(({ searchTotal: _n, changes: _c, ...row }) => row);
      // no row: no match (the first page holds the newest ones)
      const totals: TotalRow[] = counted.length ? [{ n: counted[0].searchTotal, changes: counted[0].changes }] : [{ n: 0 }];
      seen.counted = totals;
      return { rows, totals, capped: p.capped };
    }
    const r = p.rowsStatement(null);
    const known = p.totalKey !== null ? searchTotals.get(p.totalKey) : undefined;
    if (p.totalKey !== null && known) {
      const [rows, [now]] = await Promise.all([run(r.built, r.q, p.prepare, seen), run(version, version, true)]);
      if (now && Number(now.changes) === known.changes) {
        searchTotals.delete(p.totalKey);
        searchTotals.set(p.totalKey, known);
        return { rows, totals: [{ n: known.n }], capped: p.capped };
      }
      const totals = await run(p.top.total, p.total, p.prepare, seen);
      seen.counted = totals;
      return { rows, totals, capped: p.capped };
    }
    const [rows, totals] = await Promise.all([run(r.built, r.q, p.prepare, seen), run(p.top.total, p.total, p.prepare, seen)]);
    seen.counted = totals;
    return { rows, totals, capped: p.capped };
  }

  return {
    async run(actor: Actor, query: Out<typeof ListQuery>, filter: { ownerId?: string } = {}): Promise<ListResult> {
      for (let attempt = 1; ; attempt++) {
        const found = await termsOf(actor, query, filter);
        const seen: Seen = {};
        const p = plan(actor, query, filter, found);
        const result = await answer(p, seen);
        const at = found && 'many' in found ? found.many.at : null;
        // the bitmaps it was answered from were current when its campaigns were read; after
        // MAX_ATTEMPTS, it stands as read (a moment apart, as any read of a changing list)
        const now = at === null ? null : (seen.at ?? (await run(blocksAt, blocksAt, true))[0]);
        if (now === at || attempt >= MAX_ATTEMPTS) {
          if (seen.counted && p.totalKey !== null) rememberTotal(p.totalKey, seen.counted);
          return result;
        }
        if (at !== null) bitmaps.stale(at);
      }
    },

    /**
     * The statements `run` would run for this request now, with their values; for a deep page,
     * once its page marks are taken (the benchmark's raw baseline runs them). `total` is what
     * gives the total: the count, or for a search whose total is known, the `changes` counter.
     */
    async statements(actor: Actor, query: Out<typeof ListQuery>, filter: { ownerId?: string } = {}) {
      const terms = await termsOf(actor, query, filter);
      let p = plan(actor, query, filter, terms);
      let totals: TotalRow[] | null = null;
      if (p.deep) {
        totals = await run(p.top.total, p.total, p.prepare);
        p.rowsStatement(totals);
        await marks.settled();
        p = plan(actor, query, filter, terms);
        totals = await run(p.top.total, p.total, p.prepare);
      }
      if (p.counted) return { rows: p.counted, total: null, totalFrom: 'rows' as const, prepared: p.prepare, capped: p.capped };
      const cached = p.totalKey !== null && searchTotals.has(p.totalKey);
      return {
        rows: p.rowsStatement(totals).q,
        total: cached ? { sql: version.sql, params: version.params } : p.total,
        totalFrom: cached ? ('counter' as const) : ('count' as const),
        prepared: p.prepare,
        capped: p.capped,
      };
    },

    /** Resolves when no page marks are being taken. */
    settled: () => marks.settled(),
  };
}
