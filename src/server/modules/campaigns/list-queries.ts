import { and, eq, getTableColumns, gte, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import { SEARCH_COUNT_CAP, type CampaignSort, type CampaignStatus, type Category } from '../../../shared/constants';
import type { ListQuery } from '../../../shared/schemas/campaigns';
import type { Db } from '../../db/client';
import { campaigns, campaignSortKeys, listVersions, users } from '../../db/schema';
import type { Actor } from '../../deps';
import { AUDIENCES, itemVisibleSql, viewerOf, type Viewer } from '../../lib/access';
import { afterSortCursor, encodeSortCursor, orderOf, readSortCursor, searchCondition, visibleTotalSql, type SortOrder } from '../../lib/listing';
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

/** Pages of the newest-first list from this offset on start from a page mark (page-marks.ts). */
const MARK_EVERY = 1000;

export interface ListResult {
  rows: ListRow[];
  total: number;
  /** A search's total stops at SEARCH_COUNT_CAP: true when there are more. */
  totalCapped: boolean;
  nextCursor: string | null;
}

/** The campaign list over one database. `markEvery` (tests) spaces the page marks. */
export function createCampaignListQueries(db: Db, opts: { markEvery?: number } = {}) {
  const marks = createPageMarks(db, { every: opts.markEvery ?? MARK_EVERY });

  /** What the list holds: who sees what, and the request's filters. */
  function conditions(viewer: Viewer, query: CampaignListInput, ownerId: string | undefined): SQL[] {
    const conds = [itemVisibleSql(viewer, campaigns)];
    if (ownerId !== undefined) conds.push(eq(campaigns.ownerId, ownerId));
    if (query.type) conds.push(eq(campaigns.type, query.type));
    const date = campaigns.executionDate;
    // ending: the active campaigns that have a date
    if (query.sort === 'ending') conds.push(gte(date, sql`now()`));
    if (query.status === 'active') conds.push(or(isNull(date), gte(date, sql`now()`)) as SQL);
    if (query.status === 'past') conds.push(lt(date, sql`now()`));
    const search = searchCondition(campaigns.searchVector, campaigns.title, query.q);
    if (search) conds.push(search);
    return conds;
  }

  /** The whole list of what the viewer sees, nothing else asked (`ending` leaves out campaigns without a date): list_counts holds its total. */
  const whole = (query: CampaignListInput, ownerId: string | undefined) =>
    !query.q.trim() && !query.type && !query.status && query.sort !== 'ending' && ownerId === undefined;

  /**
   * A search, or a category, status or `ending` view of everyone's campaigns: its total stops at
   * SEARCH_COUNT_CAP (an exact count of a category or of the active campaigns at a million rows
   * reads tens of thousands of them on every request, while its page reads 21). The whole list
   * reads list_counts; a person's own campaigns are few and counted exactly.
   */
  const cappedTotal = (query: CampaignListInput, ownerId: string | undefined) => ownerId === undefined && !whole(query, ownerId);

  /** The total's query: one row (n, and for the whole list the generation of its page marks). */
  function totalQuery(viewer: Viewer, query: CampaignListInput, ownerId: string | undefined, conds: SQL[]) {
    if (query.q.trim() || cappedTotal(query, ownerId)) {
      // counts at most SEARCH_COUNT_CAP + 1 matches: an exact count of a common word or a large
      // category over a million rows would read them all, and nobody pages that deep
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

  /** The page's rows: their ids by the sort's index, then those rows with everything the answer shows. */
  function rowsQuery(viewer: Viewer, query: CampaignListInput, conds: SQL[], from: SQL | undefined, offset: number) {
    const sort = query.sort ?? 'newest';
    const order = CAMPAIGN_ORDERS[sort];
    const base = db.select({ id: campaigns.id }).from(campaigns).$dynamic();
    const ids = (order.key.table === campaigns ? base : base.innerJoin(campaignSortKeys, eq(campaignSortKeys.campaignId, campaigns.id)))
      .where(and(...conds, from))
      .orderBy(...orderOf(order))
      .limit(query.limit + 1)
      .offset(offset);
    return db
      .select({ ...campaignSelection(viewer.userId), keys: { raised: campaignSortKeys.raised, supporters: campaignSortKeys.supporters } })
      .from(campaigns)
      .innerJoin(users, eq(users.id, campaigns.ownerId))
      .innerJoin(campaignSortKeys, eq(campaignSortKeys.campaignId, campaigns.id))
      .where(inArray(campaigns.id, ids))
      .orderBy(...orderOf(order));
  }

  /**
   * The request's two queries. A deep `page=` of the whole list starts from a page mark: its
   * total (with the marks' generation) is read first to find it. Marks are kept per set of
   * audiences, so only for viewers who see exactly some audiences (no own campaigns added).
   */
  async function plan(actor: Actor, query: CampaignListInput, filter: { ownerId?: string }) {
    const viewer = viewerOf(actor);
    const sort = query.sort ?? 'newest';
    const cursor = readSortCursor(query.cursor, CAMPAIGN_ORDERS[sort]);
    const conds = conditions(viewer, query, filter.ownerId);
    const total = totalQuery(viewer, query, filter.ownerId, conds);
    const offset = cursor ? 0 : (query.page - 1) * query.limit;
    let from = cursor ? afterSortCursor(CAMPAIGN_ORDERS[sort], cursor) : undefined;
    let skip = offset;
    let counted: { n: string; generation: number | null }[] | null = null;
    const markable = viewer.userId === null || viewer.audiences.length === AUDIENCES.length;
    if (!cursor && offset >= marks.every && markable && sort === 'newest' && whole(query, filter.ownerId)) {
      counted = await total;
      const rank = Number(counted[0].n) - 1 - offset;
      const mark: PageMark | null = rank >= 0 ? marks.find(viewer.audiences, Number(counted[0].generation), rank) : null;
      if (mark) {
        from = sql`(${campaigns.createdAt}, ${campaigns.id}) <= (${mark.t}::timestamptz, ${mark.id}::uuid)`;
        skip = mark.rank - rank;
      }
    }
    return { total, counted, rows: rowsQuery(viewer, query, conds, from, skip) };
  }

  return {
    /** A list request's page, total and next cursor (a malformed or foreign cursor is a 400). */
    async run(actor: Actor, query: CampaignListInput, filter: { ownerId?: string } = {}): Promise<ListResult> {
      const p = await plan(actor, query, filter);
      const [rows, totals] = await Promise.all([p.rows, p.counted ?? p.total]);
      const n = Number(totals[0]?.n ?? 0);
      const searched = Boolean(query.q.trim()) || cappedTotal(query, filter.ownerId);
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      const sort = query.sort ?? 'newest';
      return {
        rows: page,
        total: searched ? Math.min(n, SEARCH_COUNT_CAP) : n,
        totalCapped: searched && n > SEARCH_COUNT_CAP,
        nextCursor: rows.length > query.limit && last ? encodeSortCursor(CAMPAIGN_ORDERS[sort], keyOf(sort, last), last.c.id) : null,
      };
    },

    /** The SQL `run` runs for this request now, with its values (the benchmark runs the same raw). */
    async statements(actor: Actor, query: CampaignListInput, filter: { ownerId?: string } = {}) {
      const p = await plan(actor, query, filter);
      // every total is counted now ('counter' was a repeated search's cached total, gone with the cache)
      const totalFrom = 'count' as 'count' | 'counter';
      return {
        rows: p.rows.toSQL(),
        total: p.total.toSQL(),
        totalFrom,
        prepared: false,
        capped: Boolean(query.q.trim()) || cappedTotal(query, filter.ownerId),
      };
    },

    /** Resolves when no page marks are being taken. */
    settled: () => marks.settled(),
  };
}
