import { and, desc, eq, getTableColumns, inArray, Placeholder, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import { SEARCH_COUNT_CAP } from '../../../shared/constants';
import type { ListQuery } from '../../../shared/schemas/campaigns';
import { arrayRunner, rowMapper, type Statement } from '../../db/array-rows';
import type { Db } from '../../db/client';
import { campaigns, listCounts, users } from '../../db/schema';
import type { Actor } from '../../deps';
import { canSeeAdult } from '../../lib/items';
import { afterCursor, decodeCursor, likeEscape, prefixTsQuery, searchMatch } from '../../lib/listing';

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
 */

const { searchVector: _sv, ...campaignColumns } = getTableColumns(campaigns);
export { campaignColumns };

const raisedSql = sql<string>`coalesce((
  select sum(e.amount) from ledger_entries e join ledger_groups g on g.id = e.group_id
  where e.account_type = 'campaign' and e.account_id = ${campaigns.id}::text
    and e.currency = ${campaigns.currency} and g.kind in ('donation', 'refund')), 0)`;
const supportersSql = sql<string>`(select count(*) from supports s where s.campaign_id = ${campaigns.id} and s.confirmed_at is not null)`;

/** What a campaign answer selects; `viewerId` (a value or a placeholder) adds what they donated. */
export function campaignSelection(viewerId: unknown) {
  return {
    c: campaignColumns,
    owner: { id: users.id, username: users.username, name: users.name, imageUrl: users.imageUrl },
    raised: raisedSql,
    supporters: supportersSql,
    donated:
      viewerId === null
        ? sql<string>`0`
        : sql<string>`coalesce((select sum(d.amount) from donations d where d.campaign_id = ${campaigns.id} and d.donor_id = ${viewerId}::uuid and d.status = 'succeeded'), 0)`,
  };
}

export type CampaignRow = {
  c: Omit<typeof campaigns.$inferSelect, 'searchVector'>;
  owner: { id: string; username: string | null; name: string | null; imageUrl: string | null };
  raised: string | number;
  supporters: string | number;
  donated: string | number;
};

/** A row of the list's total query: per-adult counts from list_counts, or one count(*). */
export type TotalRow = { adult?: boolean; n: string | number };

/** `campaigns` under another name, for the list's inner page query. */
const listPage = alias(campaigns, 'page');

/** The list's total from its total query's rows (list_counts rows skip adult ones for who may not see them). */
export function listTotal(actor: Actor, rows: readonly TotalRow[]): number {
  return rows.reduce((sum, r) => (r.adult && !canSeeAdult(actor) ? sum : sum + Number(r.n)), 0);
}

/** One request's list, ready to run; `sql()` shows the statements with their values (the benchmark runs them raw). */
export interface CampaignListRun {
  rows(): Promise<CampaignRow[]>;
  total(): Promise<TotalRow[]>;
  /** True for a search, whose total stops counting after SEARCH_COUNT_CAP. */
  capped: boolean;
  sql(): { rows: Statement; total: Statement; prepared: boolean };
}

/** The parts of a list request that change its SQL text (a statement built once each). */
interface Shape {
  seeAdult: boolean;
  owner: boolean;
  cursor: boolean;
  viewer: boolean;
  /** Whole and partial words, or (when nothing but punctuation was typed) only a title substring. */
  search: 'none' | 'words' | 'title';
}

/** Values or placeholders for the parts of the SQL that vary. */
interface Args {
  seeAdult: boolean;
  ownerId?: unknown;
  search?: { ts: unknown; like: unknown };
  cursor?: { t: unknown; id: unknown };
  limit: unknown;
  offset: unknown;
  viewerId: unknown;
}

function build(db: Db, a: Args) {
  const p = listPage;
  const base: SQL[] = [];
  if (!a.seeAdult) base.push(sql`${p.type} <> 'adult'`);
  if (a.ownerId !== undefined) base.push(sql`${p.ownerId} = ${a.ownerId}::uuid`);
  if (a.search) base.push(searchMatch(p.searchVector, p.title, a.search.ts, a.search.like));
  const where = [...base];
  if (a.cursor) where.push(afterCursor(p.createdAt, p.id, a.cursor));

  const pageIds = db
    .select({ id: p.id })
    .from(p)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(p.createdAt), desc(p.id))
    .limit(a.limit as number)
    .offset(a.offset as number);
  const rowsSelection = campaignSelection(a.viewerId);
  const rows = db
    .select(rowsSelection)
    .from(campaigns)
    .innerJoin(users, eq(users.id, campaigns.ownerId))
    .where(inArray(campaigns.id, pageIds))
    .orderBy(desc(campaigns.createdAt), desc(campaigns.id));
  // a search counts at most SEARCH_COUNT_CAP + 1 matches: an exact count of a common word over a
  // million rows would scan the table, and nobody pages that deep
  const count = { n: sql<string>`count(*)` };
  const totalSelection = a.search || a.ownerId !== undefined ? count : { adult: listCounts.adult, n: listCounts.n };
  const total = a.search
    ? db
        .select(count)
        .from(
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
  return {
    rows: { ...rows.toSQL(), map: rowMapper<CampaignRow>(rowsSelection) },
    total: { ...total.toSQL(), map: rowMapper<TotalRow>(totalSelection) },
  };
}

/** A statement whose params may hold placeholders, and how to map its rows. */
interface Built<T> extends Statement {
  map: (row: unknown[]) => T;
}

/** The statement with this request's values in place of its placeholders. */
function filled(q: Statement, values: Record<string, unknown>): Statement {
  return {
    sql: q.sql,
    params: q.params.map((p) => (p instanceof Placeholder ? values[p.name] : p)),
  };
}

/**
 * The campaign list's queries over one database. `forRequest` checks the cursor (a malformed one
 * is a 400) and answers the request's statements without running them.
 */
export function createCampaignListQueries(db: Db) {
  const run = arrayRunner(db);
  const built = new Map<string, { rows: Built<CampaignRow>; total: Built<TotalRow> }>();

  function shapeStatements(s: Shape) {
    const key = `${+s.seeAdult}${+s.owner}${+s.cursor}${+s.viewer}${s.search}`;
    let stmts = built.get(key);
    if (!stmts) {
      const ph = sql.placeholder;
      stmts = build(db, {
        seeAdult: s.seeAdult,
        ownerId: s.owner ? ph('ownerId') : undefined,
        search: s.search === 'none' ? undefined : { ts: s.search === 'words' ? ph('ts') : null, like: ph('like') },
        cursor: s.cursor ? { t: ph('t'), id: ph('id') } : undefined,
        limit: ph('limit'),
        offset: ph('offset'),
        viewerId: s.viewer ? ph('viewerId') : null,
      });
      built.set(key, stmts);
    }
    return stmts;
  }

  function runner<T>(b: Built<T>, q: Statement, prepare: boolean) {
    return async () => (await run(q, prepare)).map(b.map);
  }

  function forRequest(actor: Actor, query: Out<typeof ListQuery>, filter: { ownerId?: string } = {}): CampaignListRun {
    const { page, limit } = query;
    const cursor = query.cursor ? decodeCursor(query.cursor) : null;
    const seeAdult = canSeeAdult(actor);
    const viewerId = actor.user?.id ?? null;
    const text = query.q.trim();
    // one row more than the page: it says whether there is a next page
    const limitPlus = limit + 1;
    const offset = cursor ? 0 : (page - 1) * limit;

    const ts = text ? prefixTsQuery(text) : null;
    const stmts = shapeStatements({
      seeAdult,
      owner: filter.ownerId !== undefined,
      cursor: cursor !== null,
      viewer: viewerId !== null,
      search: !text ? 'none' : ts ? 'words' : 'title',
    });
    const values = { limit: limitPlus, offset, ownerId: filter.ownerId, t: cursor?.t, id: cursor?.id, viewerId, ts, like: `%${likeEscape(text)}%` };
    // a search is planned anew each time with its words (see above); the other shapes are prepared
    const prepare = !text;
    const rows = filled(stmts.rows, values);
    const total = filled(stmts.total, values);
    return {
      rows: runner(stmts.rows, rows, prepare),
      total: runner(stmts.total, total, prepare),
      capped: Boolean(text),
      sql: () => ({ rows, total, prepared: prepare }),
    };
  }

  return { forRequest };
}

export type CampaignListQueries = ReturnType<typeof createCampaignListQueries>;
