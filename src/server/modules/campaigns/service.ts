import { and, desc, eq, getTableColumns, inArray, ne, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import { SEARCH_COUNT_CAP } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { toMajor } from '../../../shared/money';
import type { CampaignDto, CreateCampaignInput, ListQuery, UpdateCampaignInput } from '../../../shared/schemas/campaigns';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client';
import { campaigns, listCounts, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { forbidden, notFound } from '../../lib/errors';
import { assertCategoryAllowed, assertOwnImages, canSeeAdult, imageUrlsOf, itemPatch, itemValues } from '../../lib/items';
import { changedFields, recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { afterCursor, decodeCursor, encodeCursor, searchCondition } from '../../lib/listing';
import { requireUser } from '../auth/service';
import { coordinationText } from './coordination';

type Out<T extends z.ZodType> = z.output<T>;

const { searchVector: _sv, ...campaignColumns } = getTableColumns(campaigns);

const raisedSql = sql<string>`coalesce((
  select sum(e.amount) from ledger_entries e join ledger_groups g on g.id = e.group_id
  where e.account_type = 'campaign' and e.account_id = ${campaigns.id}::text
    and e.currency = ${campaigns.currency} and g.kind in ('donation', 'refund')), 0)`;
const supportersSql = sql<string>`(select count(*) from supports s where s.campaign_id = ${campaigns.id} and s.confirmed_at is not null)`;
const donatedSql = (viewerId: string | null) =>
  viewerId
    ? sql<string>`coalesce((select sum(d.amount) from donations d where d.campaign_id = ${campaigns.id} and d.donor_id = ${viewerId}::uuid and d.status = 'succeeded'), 0)`
    : sql<string>`0`;

function selection(viewerId: string | null) {
  return {
    c: campaignColumns,
    owner: { id: users.id, username: users.username, name: users.name, imageUrl: users.imageUrl },
    raised: raisedSql,
    supporters: supportersSql,
    donated: donatedSql(viewerId),
  };
}

type Row = {
  c: Omit<typeof campaigns.$inferSelect, 'searchVector'>;
  owner: { id: string; username: string | null; name: string | null; imageUrl: string | null };
  raised: string | number;
  supporters: string | number;
  donated: string | number;
};

export function toCampaignDto(r: Row, now = new Date()): CampaignDto {
  const supporters = Number(r.supporters);
  return {
    _id: r.c.id,
    title: r.c.title,
    description: r.c.description,
    tags: r.c.tags,
    type: r.c.type,
    targetType: r.c.targetType,
    coordination: coordinationText(r.c.executionDate, supporters),
    goalAmount: r.c.targetType === 'supporters' ? r.c.goalAmount : toMajor(r.c.goalAmount),
    currency: r.c.currency,
    imageUrl: r.c.imageUrl,
    images: r.c.images.map((i) => ({ url: i.url, alt: i.alt ?? '' })),
    actionMode: r.c.actionMode,
    executionDate: r.c.executionDate,
    isPast: r.c.executionDate !== null && r.c.executionDate.getTime() < now.getTime(),
    totalRaised: toMajor(Number(r.raised)),
    support: supporters,
    supporters,
    donated: toMajor(Number(r.donated)),
    ownerId: { _id: r.owner.id, username: r.owner.username, name: r.owner.name, imageUrl: r.owner.imageUrl, avatarUrl: r.owner.imageUrl },
    createdAt: r.c.createdAt,
    updatedAt: r.c.updatedAt,
  };
}

/** A row of the list's total query: per-adult counts from list_counts, or one count(*). */
type TotalRow = { adult?: boolean; n: string | number };

/** `campaigns` under another name, for the list's inner page query. */
const listPage = alias(campaigns, 'page');

/** The list's total from its total query's rows (list_counts rows skip adult ones for who may not see them). */
export function listTotal(actor: Actor, rows: readonly TotalRow[]): number {
  return rows.reduce((sum, r) => (r.adult && !canSeeAdult(actor) ? sum : sum + Number(r.n)), 0);
}

/**
 * The campaign list's two queries, built but not run: the page of rows, and the total (read
 * from list_counts when nothing narrows the list, else a count). The service runs them; the
 * benchmark (bench/) takes their `.toSQL()` to run the very same SQL without the API around it.
 * A malformed cursor throws a 400.
 *
 * The page's ids are chosen first, on `campaigns` alone (alias `page`), and only those rows are
 * joined with their owner and get their money and supporter subqueries: with an offset
 * (`page=`) Postgres would otherwise evaluate the subqueries for every skipped row. For who may
 * not see adult campaigns the filter is the literal `type <> 'adult'`, which is the predicate
 * of the partial index campaigns_public_created_id_idx (index-only scan for deep pages).
 */
export function campaignListQueries(db: Db, actor: Actor, query: Out<typeof ListQuery>, filter: { ownerId?: string } = {}) {
  const { q, page, limit } = query;
  const cursor = query.cursor ? decodeCursor(query.cursor) : null;
  const p = listPage;
  const base: SQL[] = [];
  if (!canSeeAdult(actor)) base.push(sql`${p.type} <> 'adult'`);
  if (filter.ownerId) base.push(eq(p.ownerId, filter.ownerId));
  const search = searchCondition(p.searchVector, p.title, q);
  if (search) base.push(search);
  const where = [...base];
  if (cursor) where.push(afterCursor(p.createdAt, p.id, cursor));

  const pageIds = db
    .select({ id: p.id })
    .from(p)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(p.createdAt), desc(p.id))
    // one row more than the page: it says whether there is a next page
    .limit(limit + 1)
    .offset(cursor ? 0 : (page - 1) * limit);
  const rows = db
    .select(selection(actor.user?.id ?? null))
    .from(campaigns)
    .innerJoin(users, eq(users.id, campaigns.ownerId))
    .where(inArray(campaigns.id, pageIds))
    .orderBy(desc(campaigns.createdAt), desc(campaigns.id));
  // a search counts at most SEARCH_COUNT_CAP + 1 matches: an exact count of a common word over a
  // million rows would scan the table, and nobody pages that deep
  const total: PromiseLike<TotalRow[]> & { toSQL(): { sql: string; params: unknown[] } } = search
    ? db
        .select({ n: sql<string>`count(*)` })
        .from(
          db
            .select({ one: sql`1`.as('one') })
            .from(p)
            .where(and(...base))
            .limit(SEARCH_COUNT_CAP + 1)
            .as('matches'),
        )
    : !filter.ownerId
      ? db.select({ adult: listCounts.adult, n: listCounts.n }).from(listCounts).where(eq(listCounts.entity, 'campaigns'))
      : db
          .select({ n: sql<string>`count(*)` })
          .from(p)
          .where(and(...base));
  return { rows, total, capped: Boolean(search) };
}

export function createCampaignsService(deps: Deps) {
  const { db } = deps;

  async function load(actor: Actor, id: string): Promise<CampaignDto> {
    if (!isUuid(id)) throw notFound(M.campaignNotFound);
    const conds: SQL[] = [eq(campaigns.id, id)];
    if (!canSeeAdult(actor)) conds.push(ne(campaigns.type, 'adult'));
    const [row] = await db
      .select(selection(actor.user?.id ?? null))
      .from(campaigns)
      .innerJoin(users, eq(users.id, campaigns.ownerId))
      .where(and(...conds))
      .limit(1);
    if (!row) throw notFound(M.campaignNotFound);
    return toCampaignDto(row as Row);
  }

  const service = {
    /**
     * Newest first. `page` pages by offset (the documented API); `cursor` (each answer's
     * nextCursor) pages by keyset, which is what the app's infinite scroll uses, so a deep
     * page costs the same as the first.
     */
    async list(actor: Actor, query: Out<typeof ListQuery>, filter: { ownerId?: string } = {}) {
      const { page, limit } = query;
      if (filter.ownerId !== undefined && !isUuid(filter.ownerId)) return { items: [], total: 0, totalCapped: false, page, limit, nextCursor: null };
      const q = campaignListQueries(db, actor, query, filter);
      const [rows, totalRows] = await Promise.all([q.rows, q.total]);
      const counted = listTotal(actor, totalRows);
      const totalCapped = q.capped && counted > SEARCH_COUNT_CAP;
      const total = totalCapped ? SEARCH_COUNT_CAP : counted;
      const now = new Date();
      const pageRows = (rows as Row[]).slice(0, limit);
      const items = pageRows.map((r) => toCampaignDto(r, now));
      const nextCursor = rows.length > limit ? encodeCursor(pageRows[pageRows.length - 1].c) : null;
      return { items, total, totalCapped, page, limit, nextCursor };
    },

    /** A person's campaigns (their profile's tab); 404 when there is no such person. */
    async listOfUser(actor: Actor, userId: string, query: Out<typeof ListQuery>) {
      const [person] = isUuid(userId) ? await db.select({ id: users.id }).from(users).where(eq(users.id, userId)) : [];
      if (!person) throw notFound(M.userNotFound);
      return service.list(actor, query, { ownerId: userId });
    },

    get: load,

    /** The visible ones among these ids (for favorites), in no particular order. */
    async byIds(actor: Actor, ids: string[]) {
      const valid = ids.filter(isUuid);
      if (!valid.length) return [];
      const conds: SQL[] = [inArray(campaigns.id, valid)];
      if (!canSeeAdult(actor)) conds.push(ne(campaigns.type, 'adult'));
      const rows = await db
        .select(selection(actor.user?.id ?? null))
        .from(campaigns)
        .innerJoin(users, eq(users.id, campaigns.ownerId))
        .where(and(...conds));
      return (rows as Row[]).map((r) => toCampaignDto(r));
    },

    async create(actor: Actor, input: Out<typeof CreateCampaignInput>): Promise<CampaignDto> {
      const { user } = requireUser(actor);
      assertCategoryAllowed(user, input.type);
      const id = await db.transaction(async (tx) => {
        await assertOwnImages(tx, user.id, imageUrlsOf(input));
        const [row] = await tx
          .insert(campaigns)
          .values({ ownerId: user.id, ...itemValues(input), executionDate: input.executionDate ?? null })
          .returning({ id: campaigns.id });
        await recordChange(tx, {
          modelName: 'Campaign',
          action: 'create',
          key: row.id,
          fields: Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined),
          actorId: user.id,
        });
        return row.id;
      });
      return load(actor, id);
    },

    /** The owner edits text, tags, images, goal and execution date. */
    async update(actor: Actor, id: string, input: Out<typeof UpdateCampaignInput>): Promise<CampaignDto> {
      const { user } = requireUser(actor);
      if (!isUuid(id)) throw notFound(M.campaignNotFound);
      await db.transaction(async (tx) => {
        const [before] = await tx.select(campaignColumns).from(campaigns).where(eq(campaigns.id, id)).for('update');
        if (!before || (before.type === 'adult' && !user.hasAdultAccess && before.ownerId !== user.id)) throw notFound(M.campaignNotFound);
        if (before.ownerId !== user.id) throw forbidden(M.notOwner);
        assertCategoryAllowed(user, input.type);
        await assertOwnImages(tx, user.id, imageUrlsOf(input), imageUrlsOf(before));
        const patch: Partial<typeof campaigns.$inferInsert> = { ...itemPatch(input, before.targetType), executionDate: input.executionDate };
        const fields = changedFields(before as Record<string, unknown>, patch as Record<string, unknown>);
        if (!fields.length) return;
        await tx.update(campaigns).set({ ...patch, updatedAt: new Date() }).where(eq(campaigns.id, id));
        await recordChange(tx, { modelName: 'Campaign', action: 'update', key: id, fields, actorId: user.id, subjectUserId: before.ownerId });
      });
      return load(actor, id);
    },
  };
  return service;
}

export type CampaignsService = ReturnType<typeof createCampaignsService>;
