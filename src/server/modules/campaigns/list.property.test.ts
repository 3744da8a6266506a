import { eq, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../../test/helpers';
import { CAMPAIGN_SORTS, CAMPAIGN_STATUSES, type CampaignSort, type CampaignStatus, type Category } from '../../../shared/constants';
import { CampaignListQuery } from '../../../shared/schemas/campaigns';
import { rowsOf } from '../../db/client';
import { campaigns, campaignTotals, supports, users } from '../../db/schema';
import type { Actor } from '../../deps';
import { canSeeItem } from '../../lib/access';
import { createCampaignListQueries } from './list-queries';

/**
 * The campaign list against an oracle: every campaign read back, filtered and sorted in plain
 * TypeScript (who sees it: access.ts `canSeeItem`; the search's rules written out below), through
 * random inserts (some of them drafts), edits of title, tags and description, type changes (adult and back), re-dating
 * (execution date and created_at; it releases a draft), money and supports that move `funded` and `supported`, and
 * deletes; for a visitor, an adult-access user and an owner without adult access. Every page by
 * `page=` and by cursor, and the total, for searches drawn from the data, each category, status
 * and sort. A second property walks pages by cursor while campaigns change between pages.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
const visitor: Actor = { user: null, session: null, ip: '127.0.0.1' };
let adultUser: Actor;
let owner: Actor;
/** Whether the database's lower() folds accented capitals (C locale: no), for the title rule. */
let foldsAccents = true;

beforeAll(async () => {
  database = await openTestDatabase();
  const [a] = await database.db.insert(users).values({ email: 'adult@example.com', passwordHash: 'x', hasAdultAccess: true }).returning();
  const [o] = await database.db.insert(users).values({ email: 'owner@example.com', passwordHash: 'x', hasAdultAccess: false }).returning();
  adultUser = { user: a, session: null, ip: '127.0.0.1' } as unknown as Actor;
  owner = { user: o, session: null, ip: '127.0.0.1' } as unknown as Actor;
  foldsAccents = rowsOf<{ f: boolean }>(await database.db.execute(sql`select lower('É') = 'é' as f`))[0].f;
});
afterAll(async () => {
  await database?.close();
});

const DAY = 86_400_000;
/** Words that are prefixes, stems and pieces of one another, a stop word, digits, accents. */
const WORDS = [
  'art',
  'Artist',
  'artists',
  'heart',
  'party',
  'Études',
  'run',
  'running',
  'music',
  'musical',
  'museum',
  'the',
  'abc123',
  'café',
  'game',
  'photos',
];
const TYPES: Category[] = ['art', 'music', 'game', 'photography', 'adult'];

const text = (n: number) => fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: n }).map((w) => w.join(' '));
const fields = fc.record({
  title: fc.tuple(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }), fc.constantFrom(' ', ', ', '-', '.')).map(([w, sep]) => w.join(sep)),
  description: text(4),
  tags: fc.array(fc.constantFrom('art', 'music', 'running', 'cafe'), { maxLength: 2 }).map((t) => [...new Set(t)]),
});
/** An execution date: none, days in the past, or days ahead (never near now, where a test would race the clock). */
const executionDay = fc.option(fc.integer({ min: -30, max: 30 }).filter((d) => d !== 0));

type Step =
  | {
      kind: 'insert';
      n: number;
      mine: boolean;
      type: Category;
      day: number | null;
      minutesAgo: number;
      f: { title: string; description: string; tags: string[] };
    }
  | { kind: 'edit'; pick: number; f: { title: string; description: string; tags: string[] } }
  | { kind: 'retype'; pick: number; type: Category }
  | { kind: 'redate'; pick: number; day: number | null; minutesAgo: number }
  | { kind: 'money'; pick: number; shard: number; foreign: boolean; raised: number; refunded: number; chargedBack: number }
  | { kind: 'support'; pick: number; email: number; confirmed: boolean }
  | { kind: 'unsupport'; pick: number }
  | { kind: 'delete'; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('insert' as const),
      n: fc.integer({ min: 1, max: 4 }),
      mine: fc.boolean(),
      type: fc.constantFrom(...TYPES),
      day: executionDay,
      minutesAgo: fc.integer({ min: 0, max: 10_000 }),
      f: fields,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('edit' as const), pick: fc.nat(), f: fields }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retype' as const), pick: fc.nat(), type: fc.constantFrom(...TYPES) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('redate' as const), pick: fc.nat(), day: executionDay, minutesAgo: fc.integer({ min: 0, max: 10_000 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('money' as const),
      pick: fc.nat(),
      shard: fc.integer({ min: 0, max: 2 }),
      foreign: fc.boolean(),
      raised: fc.integer({ min: 0, max: 5000 }),
      refunded: fc.integer({ min: 0, max: 300 }),
      chargedBack: fc.integer({ min: 0, max: 300 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('support' as const), pick: fc.nat(), email: fc.integer({ min: 0, max: 3 }), confirmed: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unsupport' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
);

async function pickId(pick: number): Promise<string | null> {
  const all = (await database.db.select({ id: campaigns.id }).from(campaigns).orderBy(campaigns.id)).map((r) => r.id);
  return all.length ? all[pick % all.length] : null;
}

/** Applies a step; answers the campaign it changed (null for an insert or when there was none). */
async function apply(s: Step): Promise<string | null> {
  const { db } = database;
  const now = Date.now();
  if (s.kind === 'insert') {
    await db.insert(campaigns).values(
      Array.from({ length: s.n }, (_, i) => ({
        ownerId: (s.mine ? owner : adultUser).user!.id,
        title: i === 0 ? s.f.title : `${s.f.title} ${WORDS[(i * 5) % WORDS.length]}`,
        description: s.f.description,
        tags: s.f.tags,
        type: i === 1 ? ('other' as const) : s.type,
        currency: i === 2 ? ('EUR' as const) : ('USD' as const),
        executionDate: s.day === null ? null : new Date(now + (s.day + i) * DAY + (s.day + i === 0 ? DAY : 0)),
        // some share a created_at: the id breaks the tie
        createdAt: new Date(now - (s.minutesAgo + (i % 2)) * 60_000),
        // the fourth of a batch is a draft (seen by its owner only) until a redate releases it
        releasedAt: i === 3 ? null : new Date(now),
      })),
    );
    return null;
  }
  const id = await pickId(s.pick);
  if (!id) return null;
  if (s.kind === 'edit') await db.update(campaigns).set(s.f).where(eq(campaigns.id, id));
  else if (s.kind === 'retype') await db.update(campaigns).set({ type: s.type }).where(eq(campaigns.id, id));
  else if (s.kind === 'redate')
    await db
      .update(campaigns)
      .set({
        executionDate: s.day === null ? null : new Date(now + s.day * DAY),
        createdAt: new Date(now - s.minutesAgo * 60_000),
        releasedAt: sql`coalesce(${campaigns.releasedAt}, now())`,
      })
      .where(eq(campaigns.id, id));
  else if (s.kind === 'money') {
    // a shard of the running totals, in the campaign's currency or another (which `funded` ignores)
    const [c] = await db.select({ currency: campaigns.currency }).from(campaigns).where(eq(campaigns.id, id));
    const currency = s.foreign ? (c.currency === 'GBP' ? 'USD' : 'GBP') : c.currency;
    await db
      .insert(campaignTotals)
      .values({ campaignId: id, currency, shard: s.shard, raised: s.raised, refunded: s.refunded, chargedBack: s.chargedBack })
      .onConflictDoUpdate({
        target: [campaignTotals.campaignId, campaignTotals.currency, campaignTotals.shard],
        set: { raised: sql`${campaignTotals.raised} + ${s.raised}`, refunded: s.refunded, chargedBack: s.chargedBack },
      });
  } else if (s.kind === 'support') {
    const email = `fan${s.email}@example.com`;
    await db
      .insert(supports)
      .values({ campaignId: id, email, confirmedAt: s.confirmed ? new Date() : null })
      .onConflictDoUpdate({ target: [supports.campaignId, supports.email], set: { confirmedAt: s.confirmed ? new Date() : null } });
  } else if (s.kind === 'unsupport') {
    const [one] = await db.select({ id: supports.id }).from(supports).where(eq(supports.campaignId, id)).limit(1);
    if (one) await db.delete(supports).where(eq(supports.id, one.id));
  } else {
    // money holds a campaign (RESTRICT): its totals go first, as when no money has moved
    await db.transaction(async (tx) => {
      await tx.delete(campaignTotals).where(eq(campaignTotals.campaignId, id));
      await tx.delete(campaigns).where(eq(campaigns.id, id));
    });
  }
  return id;
}

/** A campaign as the oracle reads it back: its columns, its words as the stemmer gives them, its money and supporters. */
interface Item {
  id: string;
  ownerId: string;
  type: string;
  title: string;
  /** The description and tags as written (the searches are drawn from them). */
  words: string;
  createdAt: number;
  executionDate: number | null;
  /** Null while a draft. */
  releasedAt: Date | null;
  /** Lexemes of the title, tags, description and category name, each field alone. */
  lexemes: string[];
  raised: number;
  supporters: number;
}

async function readAll(): Promise<Item[]> {
  const rows = rowsOf<{
    id: string;
    owner_id: string;
    type: string;
    title: string;
    words: string;
    created_at: string | Date;
    execution_date: string | Date | null;
    released_at: string | Date | null;
    lexemes: string[] | string;
    raised: string;
    supporters: string;
  }>(
    await database.db.execute(sql`
      select c.id, c.owner_id, c.type::text as type, c.title, c.description || ' ' || array_to_string(c.tags, ' ') as words, c.created_at, c.execution_date, c.released_at,
        array(select distinct unnest(tsvector_to_array(to_tsvector('english', c.title))
                || tsvector_to_array(to_tsvector('english', array_to_string(c.tags, ' ')))
                || tsvector_to_array(to_tsvector('english', c.description))
                || tsvector_to_array(to_tsvector('english', c.type::text)))) as lexemes,
        coalesce((select sum(t.raised - t.refunded - t.charged_back) from campaign_totals t where t.campaign_id = c.id and t.currency = c.currency), 0) as raised,
        (select count(*) from supports s where s.campaign_id = c.id and s.confirmed_at is not null) as supporters
      from campaigns c`),
  );
  const time = (v: string | Date | null) => (v === null ? null : new Date(v).getTime());
  return rows.map((r) => ({
    id: r.id,
    ownerId: r.owner_id,
    type: r.type,
    title: r.title,
    words: r.words,
    createdAt: time(r.created_at) as number,
    executionDate: time(r.execution_date),
    releasedAt: r.released_at === null ? null : new Date(r.released_at),
    lexemes: Array.isArray(r.lexemes)
      ? r.lexemes
      : String(r.lexemes)
          .replace(/^\{|\}$/g, '')
          .split(',')
          .filter(Boolean)
          .map((l) => l.replace(/^"|"$/g, '')),
    raised: Number(r.raised),
    supporters: Number(r.supporters),
  }));
}

/** The words a search is made of (lib/listing.ts prefixTsQuery splits the same way). */
const searchWords = (q: string) =>
  q
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, 8);

/** Each word's stem, as the English stemmer gives it (null: a stop word), asked of the database once per word. */
const stems = new Map<string, string | null>();
async function stemsOf(q: string): Promise<(string | null)[]> {
  const out: (string | null)[] = [];
  for (const w of searchWords(q)) {
    if (!stems.has(w)) {
      const [r] = rowsOf<{ l: string[] | string }>(await database.db.execute(sql`select tsvector_to_array(to_tsvector('english', ${w})) as l`));
      const l = Array.isArray(r.l)
        ? r.l
        : String(r.l)
            .replace(/^\{|\}$/g, '')
            .split(',')
            .filter(Boolean);
      stems.set(w, l[0] ?? null);
    }
    out.push(stems.get(w) ?? null);
  }
  return out;
}

/** The database's lower() of a title (C locale: ASCII letters only). */
const lower = (s: string) => (foldsAccents ? s.toLowerCase() : s.replace(/[A-Z]/g, (c) => c.toLowerCase()));

/**
 * The search's rules, plainly: every word (stop words left out) is the start of one of the
 * campaign's words, stemmed (title, tags, description, category name); or the typed text, as it
 * is, is a piece of the title whatever its case.
 */
function matches(item: Item, q: string, wordStems: (string | null)[]): boolean {
  const text = q.trim();
  if (!text) return true;
  const words = wordStems.filter((s): s is string => s !== null);
  const fullText = words.length > 0 && words.every((w) => item.lexemes.some((l) => l.startsWith(w)));
  return fullText || lower(item.title).includes(lower(text));
}

interface Ask {
  q: string;
  type?: Category;
  status?: CampaignStatus;
  sort: CampaignSort;
  limit: number;
}

/** The list the oracle expects: what the viewer sees, filtered and sorted. */
async function expected(actor: Actor, all: Item[], a: Ask): Promise<string[]> {
  const now = Date.now();
  const wordStems = await stemsOf(a.q);
  const active = (i: Item) => i.executionDate === null || i.executionDate >= now;
  const list = all.filter(
    (i) =>
      canSeeItem(actor, i) &&
      matches(i, a.q, wordStems) &&
      (!a.type || i.type === a.type) &&
      (a.status !== 'active' || active(i)) &&
      (a.status !== 'past' || !active(i)) &&
      (a.sort !== 'ending' || (i.executionDate !== null && i.executionDate >= now)),
  );
  const byId = (x: Item, y: Item) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
  const key: Record<CampaignSort, (x: Item, y: Item) => number> = {
    newest: (x, y) => y.createdAt - x.createdAt || byId(y, x),
    ending: (x, y) => (x.executionDate as number) - (y.executionDate as number) || byId(x, y),
    funded: (x, y) => y.raised - x.raised || byId(y, x),
    supported: (x, y) => y.supporters - x.supporters || byId(y, x),
  };
  return list.sort(key[a.sort]).map((i) => i.id);
}

type Lists = ReturnType<typeof createCampaignListQueries>;
const parse = (a: Ask, more: { page?: number; cursor?: string } = {}) =>
  CampaignListQuery.parse({ q: a.q, type: a.type, status: a.status, sort: a.sort, limit: a.limit, ...more });

/** Every page by cursor and by `page=`, and the total, held to the oracle's list. */
async function check(lists: Lists, actor: Actor, all: Item[], a: Ask, label: string): Promise<void> {
  const want = await expected(actor, all, a);
  const pages = Math.ceil(want.length / a.limit);
  let cursor: string | undefined;
  for (let page = 1; page <= pages + 1; page++) {
    const slice = want.slice((page - 1) * a.limit, page * a.limit);
    const byPage = await lists.run(actor, parse(a, { page }));
    expect(
      byPage.rows.map((r) => r.c.id),
      `${label} page=${page}`,
    ).toEqual(slice);
    expect(byPage.total, `${label} total`).toBe(want.length);
    expect(byPage.totalCapped).toBe(false);
    if (page > pages) break;
    const byCursor = await lists.run(actor, parse(a, { cursor }));
    expect(
      byCursor.rows.map((r) => r.c.id),
      `${label} cursor page ${page}`,
    ).toEqual(slice);
    expect(byCursor.nextCursor === null, `${label} last page ${page}`).toBe(page === pages);
    cursor = byCursor.nextCursor ?? undefined;
  }
}

/**
 * Searches drawn from the data: a title's word, a prefix of it, a piece of a title, prefixes of
 * words of the description, the tags and the category's name (which only the full-text half
 * finds), two words from different places, a stop word.
 */
function searchesOf(all: Item[], seed: number): string[] {
  const out = ['', 'music', 'the', 'phot', 'mus'];
  const pick = <T>(xs: T[], k: number) => xs[(seed * 7 + k * 13) % xs.length];
  const prefix = (w: string) => w.slice(0, Math.max(2, w.length - 2));
  if (all.length) {
    const title = pick(all, 1).title;
    const w = pick(searchWords(title), 2) ?? 'art';
    const other = pick(all, 3);
    const elsewhere = pick([...searchWords(other.words), other.type], 4);
    out.push(w, prefix(w), title.slice(1, Math.min(title.length, 7)), `${w} ${pick(searchWords(other.title), 4)}`);
    out.push(w.toUpperCase(), prefix(elsewhere), `${prefix(elsewhere)} ${prefix(w)}`, `${prefix(other.type)} ${prefix(pick(searchWords(other.title), 5))}`);
  }
  return out;
}

describe('the campaign list', () => {
  it('answers every page and total as the oracle does, through any changes, for every viewer', async () => {
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 2, maxLength: 8 }),
        fc.array(
          fc.record({
            type: fc.option(fc.constantFrom(...TYPES), { nil: undefined, freq: 2 }),
            status: fc.option(fc.constantFrom(...CAMPAIGN_STATUSES), { nil: undefined, freq: 2 }),
            sort: fc.constantFrom(...CAMPAIGN_SORTS),
            limit: fc.integer({ min: 1, max: 4 }),
            search: fc.nat(),
          }),
          { minLength: 3, maxLength: 6 },
        ),
        // how many matches a search may have to be read whole (list-queries.ts `fewIds`): none, a
        // few or the default (100, more than these lists hold), so that searches take both ways
        fc.constantFrom(0, 2, 5, 100),
        async (steps, asks, fewMatches) => {
          await database.db.delete(campaignTotals);
          await database.db.delete(campaigns);
          const lists = createCampaignListQueries(database.db, { fewMatches });
          for (const s of steps) {
            await apply(s);
            const all = await readAll();
            for (const [name, actor] of [
              ['visitor', visitor],
              ['adult', adultUser],
              ['owner', owner],
            ] as const) {
              for (const [i, a] of asks.entries()) {
                const qs = searchesOf(all, a.search + i);
                const q = qs[a.search % qs.length];
                const ask: Ask = { q, type: a.type, status: a.status, sort: a.sort, limit: a.limit };
                if ((await expected(actor, all, ask)).length) nonEmpty++;
                await check(lists, actor, all, ask, `${name} ${JSON.stringify(ask)} after ${s.kind}`);
              }
              // each sort of the whole list, with nothing else asked
              for (const sort of CAMPAIGN_SORTS) {
                if ((await expected(actor, all, { q: '', sort, limit: 3 })).length) nonEmpty++;
                await check(lists, actor, all, { q: '', sort, limit: 3 }, `${name} ${sort}`);
              }
            }
          }
        },
      ),
      { numRuns: 20 },
    );
    // the property held over lists that had rows, not only over empty ones
    expect(nonEmpty).toBeGreaterThan(300);
  });

  it('pages by cursor without duplicates or gaps among the campaigns that did not change meanwhile', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 8, maxLength: 16 }),
        fc.constantFrom(...CAMPAIGN_SORTS),
        fc.array(step, { minLength: 4, maxLength: 12 }),
        fc.integer({ min: 1, max: 3 }),
        async (before, sort, meanwhile, limit) => {
          await database.db.delete(campaignTotals);
          await database.db.delete(campaigns);
          const lists = createCampaignListQueries(database.db);
          for (const s of before) await apply(s);
          const first = await readAll();
          const changed = new Set<string>();
          const seen: string[] = [];
          let cursor: string | undefined;
          let i = 0;
          for (let page = 0; page < 200; page++) {
            const got = await lists.run(adultUser, parse({ q: '', sort, limit }, { cursor }));
            seen.push(...got.rows.map((r) => r.c.id));
            if (!got.nextCursor) break;
            cursor = got.nextCursor;
            // a change between pages (an insert changes no campaign that was there)
            const s = meanwhile[i++ % meanwhile.length];
            const id = await apply(s);
            if (id) changed.add(id);
          }
          const last = await readAll();
          const stillThere = new Set(last.map((c) => c.id));
          // the campaigns there throughout and never touched: in the oracle's order, each once
          const want = (await expected(adultUser, first, { q: '', sort, limit })).filter((id) => !changed.has(id) && stillThere.has(id));
          const unchangedSeen = seen.filter((id) => want.includes(id));
          expect(unchangedSeen, `${sort}`).toEqual(want);
          expect(new Set(unchangedSeen).size).toBe(unchangedSeen.length);
        },
      ),
      { numRuns: 40 },
    );
  });
});
