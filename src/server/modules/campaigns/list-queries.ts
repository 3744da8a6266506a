import { and, eq, fillPlaceholders, getTableColumns, gte, inArray, isNull, lt, or, type Placeholder, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { SEARCH_COUNT_CAP, type CampaignSort, type CampaignStatus, type Category } from '../../../shared/constants';
import type { ListQuery } from '../../../shared/schemas/campaigns';
import { arrayRunner, type PlannerSettings, rowMapper, type Statement } from '../../db/array-rows';
import type { Db } from '../../db/client';
import { campaigns, campaignSortKeys, listVersions, users } from '../../db/schema';
import type { Actor } from '../../deps';
import { AUDIENCES, audiencesKey, itemVisibleSql, viewerOf, viewerOfCategory, type Viewer } from '../../lib/access';
import {
  afterSortCursor,
  encodeSortCursor,
  orderOf,
  readSortCursor,
  searchSql,
  searchTerms,
  searchWordsSql,
  type SearchTerms,
  visibleTotalSql,
  type SortCursor,
  type SortOrder,
} from '../../lib/listing';
import { createPageMarks, type PageMark } from './page-marks';

/**
 * The campaign list's SQL: one page of rows and the total, for a search (`q`), a category, a
 * status, an owner (profile tabs) and a sort, as the viewer may see them (lib/access.ts).
 *
 * The page's ids are chosen first, on `campaigns` (joined to campaign_sort_keys for the sorts
 * kept there), and only those rows are joined with their owner and get their money and supporter
 * subqueries: with an offset (`page=`) PostgreSQL would otherwise evaluate the subqueries for
 * every skipped row. A search matches the stored search_vector (GIN) or a piece of the title
 * (trigram), lib/listing.ts `searchCondition`; each sort walks its own btree index.
 */

type Out<T extends z.ZodType> = z.output<T>;

/** A list request: the documented query, and for the discover list its category, status and sort. */
export type CampaignListInput = Out<typeof ListQuery> & { type?: Category; status?: CampaignStatus; sort?: CampaignSort };

const { searchVector: _sv, ...campaignColumns } = getTableColumns(campaigns);
export { campaignColumns };

/** Money read from the campaign's running totals (campaign_totals, kept from the ledger): a few shard rows. */
const raisedSql = sql<string>`coalesce((select sum(t.raised - t.refunded - t.charged_back) from campaign_totals t
  where t.campaign_id = ${campaigns.id} and t.currency = ${campaigns.currency}), 0)`;
const donorsSql = sql<string>`coalesce((select sum(t.donors) from campaign_totals t
  where t.campaign_id = ${campaigns.id} and t.currency = ${campaigns.currency}), 0)`;
const supportersSql = sql<string>`(select count(*) from supports s where s.campaign_id = ${campaigns.id} and s.confirmed_at is not null)`;

/** What a campaign answer selects; `viewerId` adds what they donated and whether they support it. */
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

/** A list row with its sort keys (for the next cursor). */
export type ListRow = CampaignRow & { keys: { raised: number; supporters: number } };

/** Each sort: newest and ending on the campaign's own columns, funded and supported on campaign_sort_keys. */
export const CAMPAIGN_ORDERS: Record<CampaignSort, SortOrder> = {
  newest: { name: 'newest', key: campaigns.createdAt, id: campaigns.id, dir: 'desc', kind: 'time' },
  ending: { name: 'ending', key: campaigns.executionDate, id: campaigns.id, dir: 'asc', kind: 'time' },
  funded: { name: 'funded', key: campaignSortKeys.raised, id: campaignSortKeys.campaignId, dir: 'desc', kind: 'int' },
  supported: { name: 'supported', key: campaignSortKeys.supporters, id: campaignSortKeys.campaignId, dir: 'desc', kind: 'int' },
};

/** The sort key of a row (what its cursor carries). */
function keyOf(sort: CampaignSort, r: ListRow): Date | number {
  if (sort === 'newest') return r.c.createdAt;
  if (sort === 'ending') return r.c.executionDate as Date;
  return sort === 'funded' ? r.keys.raised : r.keys.supporters;
}

/**
 * The planner's setting for the statements that find a search's page in the list's order (its
 * page's ids; for several words, its first matches), set for each alone (array-rows.ts).
 * With the default effective_cache_size (4GB, or any size that holds the table) PostgreSQL prices
 * a walk down the list's index that stops after a page of matches as a share of a walk over the
 * whole table, in which every heap page is read once and then found in the cache again; the few
 * thousand rows such a walk checks are on as many pages. It walked the newest-first index for
 * words of about 1 % of the campaigns, about three times dearer than reading their matches by the
 * search indexes (docs/decisions.md). The rest of the app keeps the default: for the lists
 * without a search the small value changed 19 of 150 plans (sorts, filters, offsets), some of
 * them for the worse (`sort=funded&page=60`: 12 -> 28 ms).
 */
export const SEARCH_PAGE_SETTINGS: PlannerSettings = { effective_cache_size: '4MB' };

/** Pages of the newest-first list from this offset on start from a page mark (page-marks.ts). */
const MARK_EVERY = 1000;

export interface ListResult {
  rows: ListRow[];
  total: number;
  /** A search's total stops at SEARCH_COUNT_CAP: true when there are more. */
  totalCapped: boolean;
  nextCursor: string | null;
}

/**
 * The values a request fills into its statements, by placeholder name. Each statement is built
 * once per shape with these placeholders (`P`) in place of its values.
 */
type Values = Record<string, unknown>;
const P = {
  viewer: sql.placeholder('viewer'),
  owner: sql.placeholder('owner'),
  type: sql.placeholder('type'),
  limit: sql.placeholder('limit'),
  offset: sql.placeholder('offset'),
  /** The cursor's sort key and id. */
  cursor: { k: sql.placeholder('key'), id: sql.placeholder('id') } as unknown as SortCursor,
  /** The page mark's created_at and id. */
  markT: sql.placeholder('markT'),
  markId: sql.placeholder('markId'),
  /** A search's prefix query and title pattern (lib/listing.ts `searchTerms`). */
  ts: sql.placeholder('ts'),
  like: sql.placeholder('like'),
  /** A search's matches when they are few: their ids, comma-separated (`fewIds`). */
  ids: sql.placeholder('ids'),
};

/** The total a total's query gave: its number, or for a search (`ids`) the number of its matches' ids. */
function totalOf(rows: unknown[][] | null, ids: boolean): number {
  const v = rows?.[0]?.[0];
  if (ids) return typeof v === 'string' && v !== '' ? v.split(',').length : 0;
  return Number(v ?? 0);
}

/** A statement as built once: its params hold placeholders where a request's values go. */
type Built = Statement;

/** The statement with this request's values. */
const fill = (b: Built, values: Values): Statement => ({ sql: b.sql, params: fillPlaceholders(b.params, values) });

/**
 * The shape built for `key`, built now if it is new. The shapes are finite (4 sorts, owner or not,
 * category or not, 3 statuses, the kinds of viewer, the ways to start a page, an offset or not, no
 * search or one of its 2 forms, few matches or more), and no value goes into a key, so the map
 * of kept shapes needs no bound.
 */
function shapeOf<T>(shapes: Map<string, T>, key: string, build: () => T): T {
  let shape = shapes.get(key);
  if (!shape) {
    shape = build();
    shapes.set(key, shape);
  }
  return shape;
}

/** Where a page starts: the top of the list (then maybe an offset), after a cursor, or at a page mark. */
type From = 'top' | 'cursor' | 'mark';

/**
 * The campaign list over one database. `markEvery` (tests) spaces the page marks; `fewMatches`
 * (tests) is how many matches a search may have to be read whole (`fewIds`; SEARCH_COUNT_CAP).
 *
 * Each statement is built once per shape (what changes its text: sort, the filters present, the
 * kind of search, where the page starts, an offset or not, the kind of viewer and the audiences
 * they see, hence the kind of total) with placeholders, and a request fills in its values. The
 * statements without a search's words run prepared (postgres.js keeps a named statement per
 * connection; PostgreSQL parses and plans it once); those with its words (a search's total and,
 * when it has many matches, its page's ids) run unprepared, planned with the words: a generic
 * plan cannot know that one word matches nothing and another a quarter of the table. A search's
 * page is then read by its ids with the prepared statement of a page of few matches: planning
 * the whole page (joins and subqueries) with the words cost about 2 ms a search, more than
 * finding most pages' ids. Rows come back as arrays, mapped by a mapper made once per shape
 * (db/array-rows.ts).
 */
export function createCampaignListQueries(db: Db, opts: { markEvery?: number; fewMatches?: number } = {}) {
  const fewMatches = opts.fewMatches ?? SEARCH_COUNT_CAP;
  const marks = createPageMarks(db, { every: opts.markEvery ?? MARK_EVERY });
  const exec = arrayRunner(db);
  const totalShapes = new Map<string, Built>();
  const pageShapes = new Map<string, { rows: Built; map: (row: unknown[]) => ListRow }>();
  const pageIdsShapes = new Map<string, Built>();

  /**
   * What the list holds: who sees what, and the request's filters (`ownerId`, the viewer's
   * account, the category and the search's terms are placeholders).
   */
  function conditions(
    viewer: Viewer,
    query: CampaignListInput,
    ownerId: Placeholder | undefined,
    terms: SearchTerms | null,
  ): { conds: SQL[]; search: SQL | undefined } {
    const conds = [itemVisibleSql(viewer, campaigns)];
    if (ownerId !== undefined) conds.push(eq(campaigns.ownerId, ownerId));
    if (query.type) conds.push(eq(campaigns.type, P.type));
    const date = campaigns.executionDate;
    // ending: the active campaigns that have a date
    if (query.sort === 'ending') conds.push(gte(date, sql`now()`));
    if (query.status === 'active') conds.push(or(isNull(date), gte(date, sql`now()`)) as SQL);
    if (query.status === 'past') conds.push(lt(date, sql`now()`));
    const search = terms ? searchSql(campaigns.searchVector, campaigns.title, { ts: P.ts, like: P.like }, terms.ts !== null) : undefined;
    return { conds, search };
  }

  /** The whole list of what the viewer sees, nothing else asked (`ending` leaves out campaigns without a date): list_counts holds its total. */
  const whole = (query: CampaignListInput, ownerId: unknown) =>
    !query.q.trim() && !query.type && !query.status && query.sort !== 'ending' && ownerId === undefined;

  /**
   * A search, or a category, status or `ending` view of everyone's campaigns: its total stops at
   * SEARCH_COUNT_CAP (an exact count of a category or of the active campaigns at a million rows
   * reads tens of thousands of them on every request, while its page reads 21). The whole list
   * reads list_counts; a person's own campaigns are few and counted exactly.
   */
  const cappedTotal = (query: CampaignListInput, ownerId: unknown) => ownerId === undefined && !whole(query, ownerId);

  /**
   * The page's ids of a search with few matches (at most SEARCH_COUNT_CAP): the statement read
   * first found them all by the search indexes and gave their ids (`totalQuery`), and the page is
   * those rows in the sort's order, read by their keys, so the words are matched once per request.
   * Left to itself the planner may walk the sort's index checking every row's words for a word it
   * has no statistics for (a typo, a rare word: it guesses about 0.4 % of the rows), and a word that
   * matched nothing read all 1,000,000 campaigns of the bench that way (7.7 s). A search with more
   * matches than the cap keeps the planner's own plan: its statistics then hold the word.
   */
  function fewIds(order: SortOrder, conds: SQL[], offset: boolean): SQL {
    const dir = sql.raw(order.dir);
    const join = order.key.table === campaigns ? sql`` : sql` join ${campaignSortKeys} on ${campaignSortKeys.campaignId} = ${campaigns.id}`;
    return sql`(with m as materialized (
        select ${campaigns.id} as id, ${order.key} as k from ${campaigns}${join}
        where ${and(sql`${campaigns.id} = any(string_to_array(${P.ids}::text, ',')::uuid[])`, ...conds)})
      select id from m order by k ${dir}, id ${dir} offset ${offset ? P.offset : sql`0`} limit ${P.limit})`;
  }

  /**
   * The total's query: one row (n, and for the whole list the generation of its page marks). A
   * search's gives its matches' ids instead of n (comma-separated, at most SEARCH_COUNT_CAP + 1 of
   * them): their number is its total, and when they are few its page reads them (`fewIds`).
   */
  function totalQuery(viewer: Viewer, query: CampaignListInput, ownerId: unknown, conds: SQL[], searched: boolean) {
    if (searched) {
      const matches = db
        .select({ id: campaigns.id })
        .from(campaigns)
        .where(and(...conds))
        .limit(SEARCH_COUNT_CAP + 1)
        .as('matches');
      return db.select({ ids: sql<string>`coalesce(string_agg(${matches.id}::text, ','), '')`, generation: sql<null>`null` }).from(matches);
    }
    if (cappedTotal(query, ownerId)) {
      // a category, status or `ending` view (a search is answered above) counts at most
      // SEARCH_COUNT_CAP + 1 matches: an exact count of a large category over a million rows
      // would read them all, and nobody pages that deep
      const matches = db
        .select({ one: sql`1`.as('one') })
        .from(campaigns)
        .where(and(...conds))
        .limit(SEARCH_COUNT_CAP + 1)
        .as('matches');
      return db.select({ n: sql<string>`count(*)`, generation: sql<null>`null` }).from(matches);
    }
    if (!whole(query, ownerId))
      return db
        .select({ n: sql<string>`count(*)`, generation: sql<null>`null` })
        .from(campaigns)
        .where(and(...conds));
    return db
      .select({ n: visibleTotalSql('campaigns', viewer, campaigns), generation: listVersions.generation })
      .from(listVersions)
      .where(eq(listVersions.entity, 'campaigns'));
  }

  /**
   * The ids of a search's page when it has more matches than a page of few (`fewIds`) takes:
   * comma-separated, in the sort's order, by the plan PostgreSQL makes for the words. The page is
   * then read by these ids as a page of few matches.
   */
  function pageIdsQuery(
    query: CampaignListInput,
    conds: SQL[],
    search: SQL,
    from: 'top' | 'cursor',
    offset: boolean,
    limit: number | Placeholder = P.limit,
  ): Built {
    const order = CAMPAIGN_ORDERS[query.sort ?? 'newest'];
    const start = from === 'cursor' ? afterSortCursor(order, P.cursor) : undefined;
    const base = db
      .select({ id: campaigns.id, k: sql`${order.key}`.as('k') })
      .from(campaigns)
      .$dynamic();
    const page = (order.key.table === campaigns ? base : base.innerJoin(campaignSortKeys, eq(campaignSortKeys.campaignId, campaigns.id)))
      .where(and(...conds, search, start))
      .orderBy(...orderOf(order))
      .limit(limit)
      .offset(offset ? P.offset : 0)
      .as('page');
    const dir = sql.raw(order.dir);
    return db
      .select({ ids: sql<string>`coalesce(string_agg(${page.id}::text, ',' order by ${page.k} ${dir}, ${page.id} ${dir}), '')` })
      .from(page)
      .toSQL();
  }

  /** The page's rows: their ids by the sort's index, then those rows with everything the answer shows. */
  function rowsQuery(viewer: Viewer, query: CampaignListInput, conds: SQL[], search: SQL | undefined, few: boolean, from: From, offset: boolean) {
    const order = CAMPAIGN_ORDERS[query.sort ?? 'newest'];
    const start =
      from === 'cursor'
        ? afterSortCursor(order, P.cursor)
        : from === 'mark'
          ? sql`(${campaigns.createdAt}, ${campaigns.id}) <= (${P.markT}::timestamptz, ${P.markId}::uuid)`
          : undefined;
    const base = db.select({ id: campaigns.id }).from(campaigns).$dynamic();
    const ids =
      search && few
        ? fewIds(order, [...conds, ...(start ? [start] : [])], offset)
        : (order.key.table === campaigns ? base : base.innerJoin(campaignSortKeys, eq(campaignSortKeys.campaignId, campaigns.id)))
            .where(and(...conds, search, start))
            .orderBy(...orderOf(order))
            .limit(P.limit)
            .offset(offset ? P.offset : 0);
    const selection = { ...campaignSelection(viewer.userId), keys: { raised: campaignSortKeys.raised, supporters: campaignSortKeys.supporters } };
    const rows = db
      .select(selection)
      .from(campaigns)
      .innerJoin(users, eq(users.id, campaigns.ownerId))
      .innerJoin(campaignSortKeys, eq(campaignSortKeys.campaignId, campaigns.id))
      .where(inArray(campaigns.id, ids))
      .orderBy(...orderOf(order))
      .toSQL();
    return { rows, map: rowMapper<ListRow>(selection) };
  }

  /**
   * The request's two statements with its values. A deep `page=` of the whole list starts from a
   * page mark: its total (with the marks' generation) is read first to find it. Marks are kept
   * per set of audiences, so only for viewers who see exactly some audiences (no own campaigns added).
   */
  async function plan(actor: Actor, query: CampaignListInput, filter: { ownerId?: string }) {
    // a category's list is seen with the audiences its items can have (no adult ones for a visitor)
    const viewer = viewerOfCategory(viewerOf(actor), query.type);
    const sort = query.sort ?? 'newest';
    const cursor = readSortCursor(query.cursor, CAMPAIGN_ORDERS[sort]);
    // the viewer and the owner as the statements see them: their accounts are placeholders
    const shapeViewer: Viewer = { ...viewer, userId: viewer.userId === null ? null : P.viewer };
    const ownerId = filter.ownerId === undefined ? undefined : P.owner;
    // the conditions are built once per shape: the search's terms are values like the others
    const terms = searchTerms(query.q);
    let built: ReturnType<typeof conditions> | undefined;
    const conds = () => (built ??= conditions(shapeViewer, query, ownerId, terms));
    const searched = terms ? conds().search : undefined;
    const values: Values = {
      viewer: viewer.userId,
      owner: filter.ownerId ?? null,
      type: query.type ?? null,
      limit: query.limit + 1,
      ts: terms?.ts ?? null,
      like: terms?.like ?? null,
    };
    // a search is planned with its words (see createCampaignListQueries)
    const prepare = terms === null;
    // the shape of the request's statements but for where its page starts (null: not kept)
    const totalKind = query.q.trim() || cappedTotal(query, ownerId) ? 'capped' : whole(query, ownerId) ? 'counts' : 'count';
    const searchKind = terms === null ? '' : terms.ts === null ? 'title' : 'words';
    const filters = `${sort}|${ownerId ? 'owner' : ''}|${query.type ? 'type' : ''}|${query.status ?? ''}|${viewer.userId === null ? '' : 'user'}|${audiencesKey(viewer.audiences)}|${totalKind}|${searchKind}`;
    const offset = cursor ? 0 : (query.page - 1) * query.limit;
    // a search of several words on one of its first pages: its total is its first matches in the
    // sort's order (`pageIdsQuery`), and the page is among them: the words are matched once
    // (docs/decisions.md); one word is cheaper counted in the table's order
    const ordered = searched !== undefined && terms?.ts?.includes('&') === true && !cursor && offset + query.limit <= SEARCH_COUNT_CAP;
    const total = fill(
      ordered
        ? shapeOf(totalShapes, `${filters}|ordered`, () => pageIdsQuery(query, conds().conds, searched, 'top', false, SEARCH_COUNT_CAP + 1))
        : shapeOf(totalShapes, filters, () =>
            totalQuery(shapeViewer, query, ownerId, searched ? [...conds().conds, searched] : conds().conds, searched !== undefined).toSQL(),
          ),
      values,
    );

    let from: From = cursor ? 'cursor' : 'top';
    let skip = offset;
    let counted: unknown[][] | null = null;
    if (cursor) Object.assign(values, { key: cursor.k, id: cursor.id });
    const markable = viewer.userId === null || viewer.audiences.length === AUDIENCES.length;
    if (!cursor && offset >= marks.every && markable && sort === 'newest' && whole(query, filter.ownerId)) {
      counted = await exec(total, prepare);
      const [n, generation] = counted[0];
      const rank = Number(n) - 1 - offset;
      const mark: PageMark | null = rank >= 0 ? marks.find(viewer.audiences, Number(generation), rank) : null;
      if (mark) {
        from = 'mark';
        Object.assign(values, { markT: mark.t, markId: mark.id });
        skip = mark.rank - rank;
      }
    }
    // a search of words (but `ordered`) counts its words alone first: past the cap its total is
    // the cap's whatever its title pieces add, and the count needs no title checked (docs/decisions.md)
    let wordsTotal: Statement | null = null;
    let totalRan = !searched;
    if (searched && !ordered && terms?.ts) {
      wordsTotal = fill(
        shapeOf(totalShapes, `${filters}|words`, () =>
          totalQuery(shapeViewer, query, ownerId, [...conds().conds, searchWordsSql(campaigns.searchVector, P.ts)], true).toSQL(),
        ),
        values,
      );
      const words = await exec(wordsTotal, false);
      if (totalOf(words, true) > SEARCH_COUNT_CAP) counted = words;
    }
    // a search's total first: with few matches its page reads them all (fewIds)
    if (searched && !counted) {
      counted = await exec(total, prepare, ordered ? SEARCH_PAGE_SETTINGS : undefined);
      totalRan = true;
    }
    let few = searched !== undefined && totalOf(counted, true) <= fewMatches;
    if (few) values.ids = counted?.[0]?.[0];
    values.offset = skip;
    // more matches: the page's ids by the words' own plan, then read as a page of few matches
    let pageIds: Statement | null = null;
    if (ordered && !few) {
      // the first matches in the sort's order hold the page and the row after it
      const first = String(counted?.[0]?.[0] ?? '').split(',');
      values.ids = first.slice(skip, skip + query.limit + 1).join(',');
      few = true;
      skip = 0;
      values.offset = 0;
    } else if (searched && !few) {
      const start = from === 'cursor' ? 'cursor' : 'top';
      pageIds = fill(
        shapeOf(pageIdsShapes, `${filters}|${start}|${skip > 0 ? 'offset' : ''}`, () => pageIdsQuery(query, conds().conds, searched, start, skip > 0)),
        values,
      );
      values.ids = (await exec(pageIds, false, SEARCH_PAGE_SETTINGS))[0]?.[0] ?? '';
      few = true;
      from = 'top';
      skip = 0;
      values.offset = 0;
    }
    const page = shapeOf(pageShapes, `${filters}|${from}|${skip > 0 ? 'offset' : ''}|${few ? 'few' : ''}`, () =>
      rowsQuery(shapeViewer, query, conds().conds, searched, few, from, skip > 0),
    );
    // the page's statement has no words in it (a search's page is read by its ids): always prepared
    return { total, totalRan, wordsTotal, ordered, counted, idsTotal: searched !== undefined, pageIds, rows: fill(page.rows, values), map: page.map, prepare };
  }

  return {
    /** A list request's page, total and next cursor (a malformed or foreign cursor is a 400). */
    async run(actor: Actor, query: CampaignListInput, filter: { ownerId?: string } = {}): Promise<ListResult> {
      const p = await plan(actor, query, filter);
      const [rows, totals] = await Promise.all([exec(p.rows, true), p.counted ?? exec(p.total, p.prepare)]);
      const n = totalOf(totals, p.idsTotal);
      const searched = Boolean(query.q.trim()) || cappedTotal(query, filter.ownerId);
      // the statement reads one row more than the page: whether there is a next page
      const page = rows.slice(0, query.limit).map(p.map);
      const last = page[page.length - 1];
      const sort = query.sort ?? 'newest';
      return {
        rows: page,
        total: searched ? Math.min(n, SEARCH_COUNT_CAP) : n,
        totalCapped: searched && n > SEARCH_COUNT_CAP,
        nextCursor: rows.length > query.limit && last ? encodeSortCursor(CAMPAIGN_ORDERS[sort], keyOf(sort, last), last.c.id) : null,
      };
    },

    /**
     * The statements `run` runs for this request now, with their values, and whether it prepares
     * them (the benchmark runs the same raw, prepared when the app prepares them).
     */
    async statements(actor: Actor, query: CampaignListInput, filter: { ownerId?: string } = {}) {
      const p = await plan(actor, query, filter);
      // every total is counted now ('counter' was a repeated search's cached total, gone with the cache)
      const totalFrom = 'count' as 'count' | 'counter';
      return {
        /** The page's rows (always a prepared statement; a search's reads the ids `pageIds` or its total gave). */
        rows: p.rows,
        /** A search with many matches: the statement that gave its page's ids (unprepared), run before `rows`. */
        pageIds: p.pageIds,
        /** A search of words: the count of its words alone (unprepared), run first; it gave the total when `total` is null. */
        wordsTotal: p.wordsTotal,
        /** The total's statement, or null when the words' count gave it (more matches than the cap). */
        total: p.totalRan ? p.total : null,
        totalFrom,
        /** The total query gives a search's matches' ids (comma-separated): their number is the total. */
        idsTotal: p.idsTotal,
        /** Whether the total (and `pageIds`: never) is prepared: not for a search. */
        prepared: p.prepare,
        /** Planner settings the total runs with (a search of several words: SEARCH_PAGE_SETTINGS); `pageIds` always has them. */
        totalSettings: p.ordered ? SEARCH_PAGE_SETTINGS : null,
        pageIdsSettings: SEARCH_PAGE_SETTINGS,
        capped: Boolean(query.q.trim()) || cappedTotal(query, filter.ownerId),
      };
    },

    /** Resolves when no page marks are being taken. */
    settled: () => marks.settled(),
  };
}
