import { eq, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../../test/helpers';
import { ListQuery } from '../../../shared/schemas/campaigns';
import { campaigns, users } from '../../db/schema';
import { SEARCH_BLOCK_BITS } from '../../db/schema/search';
import type { Actor } from '../../deps';
import { encodeCursor } from '../../lib/listing';
import { createCampaignListQueries, listTotal } from './list-queries';
import { at, nextBlock } from './search-blocks.fixtures';

/**
 * Searches answered from the search postings (one word) or bitmaps (several) must answer exactly
 * what the campaigns' own search answers. Random sequences of changes (campaigns with titles, descriptions and tags
 * from words that are prefixes, stems and substrings of each other, in mixed case, with
 * punctuation, digits and accents; edits of each, a type changed across adult, a changed
 * created_at, deletes, campaigns on both sides of a bitmap block's end), and after each step a set of searches (whole words, prefixes, stems, a
 * piece of a title word, a stop word, in other cases) compared for both audiences: every page by
 * cursor walk and by `page=`, and the total.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let ownerId: string;
const anonymous: Actor = { user: null, session: null, ip: '127.0.0.1' };
let adultViewer: Actor;

beforeAll(async () => {
  database = await openTestDatabase();
  const [owner] = await database.db.insert(users).values({ email: 'search@example.com', passwordHash: 'x', hasAdultAccess: true }).returning();
  ownerId = owner.id;
  adultViewer = { user: owner, session: null, ip: '127.0.0.1' } as unknown as Actor;
});
afterAll(async () => {
  await database?.close();
});

/** Words that overlap: prefixes, stems, substrings of one another, a stop word, digits, accents. */
const WORDS = [
  'art',
  'Artist',
  'artists',
  'heart',
  'party',
  'etude',
  'Études',
  'run',
  'running',
  'runner',
  'music',
  'musical',
  'museum',
  'the',
  'abc123',
  '2024',
  'café',
  'Über',
  'quartet',
  'Art-house',
  'heart!',
];
/** What people search for: the words, their prefixes and pieces, other cases, several words, punctuation. */
const QUERIES = [
  'art',
  'ART',
  'arti',
  'artist',
  'eart',
  'heart',
  'etude',
  'etu',
  'étude',
  'run',
  'runn',
  'running',
  'mus',
  'musical',
  'the',
  'abc',
  '2024',
  '202',
  'caf',
  'café',
  'über',
  'uart',
  'house',
  'zzz',
  'art heart',
  'heart art',
  'run the',
  'the art',
  'the the',
  'art, heart',
  'art-house',
  'Art-House',
  'heart!',
  'etude.',
  'music café',
  'étude quartet',
  'party music',
  'runn art',
  'art zzz',
  'art heart music',
  'art - heart',
  'heart.music',
  'music/art',
  'art heart.music',
  'arti artist',
  'art arti',
];
/**
 * Text across title words: its first part ends one, its last part starts one, the middle ones
 * are whole (mostly no full-text match: only the title half finds these). One in every run.
 */
const ACROSS = ['eart music', 'tist runn', 'usic heart mus', 'eart, mus', '-music hea', 'art musical-', 'eart.mus', 'music/hea'];
/** Few title words, so that titles often hold two of them side by side (for the searches above). */
const TITLE_PAIRS = ['heart', 'music', 'Artist', 'runner', 'musical'];

const words = (n: number) => fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: n }).map((w) => w.join(' '));
const fields = fc.record({
  title: fc
    .tuple(
      fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
      fc.array(fc.constantFrom(...TITLE_PAIRS), { minLength: 2, maxLength: 4 }),
      fc.boolean(),
    )
    // '.' and '/' join words into one token of the text search parser (a host name, a path): the
    // title's words are then not the campaign's lexemes
    .chain(([w, pairs, few]) => fc.constantFrom(' ', ', ', ' - ', '-', '.', '/').map((sep) => (few ? pairs : w).join(sep))),
  description: words(6),
  tags: fc.array(fc.constantFrom('art', 'music', 'running', 'cafe', 'heart'), { maxLength: 3 }).map((t) => [...new Set(t)]),
});

type Step =
  | { kind: 'insert'; n: number; adult: boolean; minutesAgo: number; f: { title: string; description: string; tags: string[] } }
  | { kind: 'edit'; pick: number; f: { title: string; description: string; tags: string[] } }
  | { kind: 'toggleAdult'; pick: number }
  | { kind: 'redate'; pick: number; minutesAgo: number }
  | { kind: 'delete'; pick: number }
  | { kind: 'nextBlock'; before: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('insert' as const),
      n: fc.integer({ min: 1, max: 5 }),
      adult: fc.boolean(),
      minutesAgo: fc.integer({ min: 0, max: 10_000 }),
      f: fields,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('edit' as const), pick: fc.nat(), f: fields }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('toggleAdult' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('redate' as const), pick: fc.nat(), minutesAgo: fc.integer({ min: 0, max: 10_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  // the next campaigns go at the end of a bitmap block (SEARCH_BLOCK_BITS slots) and on into the next one
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('nextBlock' as const), before: fc.integer({ min: 0, max: 3 }) }) },
);

async function apply(s: Step): Promise<void> {
  const { db } = database;
  if (s.kind === 'nextBlock') {
    // never back: a slot is given once
    await db.execute(
      sql`select setval('campaign_search_slot_seq', greatest(last_value, (last_value / ${SEARCH_BLOCK_BITS}::int + 1) * ${SEARCH_BLOCK_BITS}::int - 1 - ${s.before}::int)) from campaign_search_slot_seq`,
    );
    return;
  }
  if (s.kind === 'insert') {
    await db.insert(campaigns).values(
      Array.from({ length: s.n }, (_, i) => ({
        ownerId,
        title: i === 0 ? s.f.title : `${s.f.title} ${WORDS[(i * 7) % WORDS.length]}`,
        description: s.f.description,
        tags: s.f.tags,
        type: s.adult && i % 2 === 0 ? ('adult' as const) : ('art' as const),
        // some share a created_at: the id breaks the tie
        createdAt: new Date(Date.UTC(2026, 0, 1) - (s.minutesAgo + (i % 2)) * 60_000),
      })),
    );
    return;
  }
  const all = (await db.select({ id: campaigns.id }).from(campaigns).orderBy(campaigns.id)).map((r) => r.id);
  if (!all.length) return;
  const id = all[s.pick % all.length];
  if (s.kind === 'edit') await db.update(campaigns).set(s.f).where(eq(campaigns.id, id));
  else if (s.kind === 'toggleAdult')
    await db
      .update(campaigns)
      .set({ type: sql`case when ${campaigns.type} = 'adult' then 'art'::category else 'adult'::category end` })
      .where(eq(campaigns.id, id));
  else if (s.kind === 'redate')
    await db
      .update(campaigns)
      .set({ createdAt: new Date(Date.UTC(2026, 0, 1) - s.minutesAgo * 60_000) })
      .where(eq(campaigns.id, id));
  else await db.delete(campaigns).where(eq(campaigns.id, id));
}

type Lists = ReturnType<typeof createCampaignListQueries>;

/** Every page of a search, walked by cursor and by `page=`, with the total of the first page. */
async function answers(lists: Lists, actor: Actor, q: string, limit: number) {
  const pages: string[][] = [];
  const first = await lists.run(actor, ListQuery.parse({ q, limit }));
  const total = listTotal(actor, first.totals);
  let rows = first.rows;
  for (let i = 0; i < 100; i++) {
    pages.push(rows.map((r) => r.c.id));
    if (rows.length <= limit) break;
    const last = rows[limit - 1];
    rows = (await lists.run(actor, ListQuery.parse({ q, limit, cursor: encodeCursor({ createdAt: last.c.createdAt, id: last.c.id }) }))).rows;
  }
  const byPage: string[][] = [];
  for (let page = 1; page <= pages.length + 1; page++) byPage.push((await lists.run(actor, ListQuery.parse({ q, limit, page }))).rows.map((r) => r.c.id));
  return { total, capped: first.capped, pages, byPage };
}

describe('search postings', () => {
  it('answer every search exactly as the campaigns do, through any changes', async () => {
    let answeredFromPostings = 0;
    let intersected = 0;
    let counted = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 8 }),
        fc.tuple(fc.subarray(QUERIES, { minLength: 4, maxLength: 8 }), fc.constantFrom(...ACROSS)).map(([q, across]) => [...q, across]),
        async (steps, queries) => {
          await database.db.delete(campaigns);
          // titles the ACROSS searches find only by their title (the steps may edit or delete them)
          await database.db.insert(campaigns).values(
            ['Heart music', 'Artist runner', 'Music heart museum', 'heart, music', 'music-heart', 'Quartet musical-'].map((title, i) => ({
              ownerId,
              title,
              createdAt: new Date(Date.UTC(2026, 0, 1) - i * 997 * 60_000),
            })),
          );
          const fast = createCampaignListQueries(database.db);
          const plain = createCampaignListQueries(database.db, { postings: false });
          for (const s of steps) {
            await apply(s);
            for (const actor of [anonymous, adultViewer]) {
              for (const q of queries) {
                const limit = q.length % 2 === 0 ? 2 : 3;
                const stmts = await fast.statements(actor, ListQuery.parse({ q, limit }));
                if (/campaign_search_postings|campaign_search_slots/.test(stmts.rows.sql)) answeredFromPostings++;
                if (stmts.rows.sql.includes('campaign_search_slots')) intersected++;
                // a first page nobody counted yet: the page and its total from one statement
                if (stmts.totalFrom === 'rows') counted++;
                expect(await answers(fast, actor, q, limit), `"${q}", adult ${actor === adultViewer}`).toEqual(await answers(plain, actor, q, limit));
              }
            }
          }
        },
      ),
      { numRuns: 25 },
    );
    // the property held over searches the postings answered, not only over ones they passed on
    expect(answeredFromPostings).toBeGreaterThan(100);
    expect(intersected).toBeGreaterThan(50);
    expect(counted).toBeGreaterThan(50);
  });

  it('read the bitmap blocks latest date first, whatever order their campaigns came in', async () => {
    const { db } = database;
    await db.delete(campaigns);
    // three blocks in this order: one campaign between the others' dates, two old ones, five new ones
    for (const hours of [[21.5], [1, 2], [19, 20, 21, 22, 23]]) {
      await nextBlock(database.db);
      await db.insert(campaigns).values(hours.map((h) => ({ ownerId, title: `Art heart ${h}`, createdAt: at(h) })));
    }
    const fast = createCampaignListQueries(db);
    const plain = createCampaignListQueries(db, { postings: false });
    const walked = await answers(fast, anonymous, 'art heart', 2);
    expect((await fast.statements(anonymous, ListQuery.parse({ q: 'art heart', limit: 2 }))).rows.sql).toContain('campaign_search_slots');
    expect(new Set(walked.pages.flat()).size).toBe(8);
    expect(walked).toEqual(await answers(plain, anonymous, 'art heart', 2));
  });

  it('find the title matches only the title half finds, in blocks apart from the others', async () => {
    const { db } = database;
    await db.delete(campaigns);
    // each in a block of its own, after a full-text match: a title the text search parser reads
    // as one path ('music' and 'art' are not its lexemes), and a title word whose lexemes miss
    // the first word's stem ('heart' for 'art' or 'eart')
    const titled = async (title: string, hours: number) => {
      await nextBlock(database.db);
      const [c] = await db
        .insert(campaigns)
        .values({ ownerId, title, createdAt: at(hours) })
        .returning();
      await db.insert(campaigns).values({ ownerId, title: 'Art music', createdAt: at(hours + 0.5) });
      return c.id;
    };
    const apart = await titled('Heart/music/artists', 1);
    const missing = await titled('Heart music', 2);
    const fast = createCampaignListQueries(db);
    const plain = createCampaignListQueries(db, { postings: false });
    for (const [q, found] of [
      ['music/art', apart],
      ['eart music', missing],
      ['art music', missing],
    ] as const) {
      expect((await fast.statements(anonymous, ListQuery.parse({ q, limit: 2 }))).rows.sql, q).toContain('campaign_search_slots');
      const walked = await answers(fast, anonymous, q, 2);
      expect(walked.pages.flat(), q).toContain(found);
      expect(walked, q).toEqual(await answers(plain, anonymous, q, 2));
    }
  });

  it('find campaigns when two words of a search have the same one term', async () => {
    const { db } = database;
    await db.delete(campaigns);
    // 'arti' and 'artist' each match only the lexeme 'artist' here
    const [c] = await db.insert(campaigns).values({ ownerId, title: 'Artist runner' }).returning();
    await db.insert(campaigns).values({ ownerId, title: 'Runner' });
    const fast = createCampaignListQueries(db);
    const plain = createCampaignListQueries(db, { postings: false });
    expect((await fast.statements(anonymous, ListQuery.parse({ q: 'arti artist', limit: 2 }))).rows.sql).toContain('campaign_search_slots');
    const walked = await answers(fast, anonymous, 'arti artist', 2);
    expect(walked.pages.flat()).toEqual([c.id]);
    expect(walked).toEqual(await answers(plain, anonymous, 'arti artist', 2));
  });

  it('keep one row per term of every campaign, and none of a deleted one', async () => {
    const { db } = database;
    await db.delete(campaigns);
    const [c] = await db
      .insert(campaigns)
      .values({ ownerId, title: 'Running, the Heart-house', description: 'Études for a quartet', tags: ['café'] })
      .returning();
    const termsOf = async (q: ReturnType<typeof sql>) => {
      const res = await db.execute<{ term: string }>(q);
      const rows = Array.isArray(res) ? (res as { term: string }[]) : (res as unknown as { rows: { term: string }[] }).rows;
      return rows.map((r) => r.term);
    };
    const terms = () => termsOf(sql`select term from campaign_search_postings where campaign_id = ${c.id} order by term`);
    const expected = () => termsOf(sql`select t as term from campaigns, campaign_search_terms_of(search_vector, title) t where id = ${c.id} order by 1`);
    expect(await terms()).toEqual(expect.arrayContaining(['t:running', 't:heart', 't:house', 't:the', 'w:run', 'w:heart', 'w:quartet']));
    expect(await terms()).toEqual(await expected());
    await db.update(campaigns).set({ title: 'Walking' }).where(eq(campaigns.id, c.id));
    expect(await terms()).toContain('t:walking');
    expect(await terms()).not.toContain('t:running');
    expect(await terms()).toEqual(await expected());
    await db.delete(campaigns).where(eq(campaigns.id, c.id));
    expect(await terms()).toEqual([]);
  });

  it('set exactly the bits of every campaign, across blocks, through changes', async () => {
    const { db } = database;
    await db.delete(campaigns);
    const rowsOf = async <T>(q: ReturnType<typeof sql>) => {
      const res = await db.execute(q);
      return (Array.isArray(res) ? res : (res as unknown as { rows: unknown[] }).rows) as T[];
    };
    // each campaign's terms as its bits say, and as its row says ('a:' for an adult one)
    const bitTerms = () =>
      rowsOf<{ id: string; terms: string }>(sql`select s.campaign_id as id, string_agg(b.term, ' ' order by b.term) as terms
        from campaign_search_slots s join campaign_search_bits b on b.block = s.slot / ${SEARCH_BLOCK_BITS}::int and get_bit(b.bits, ${SEARCH_BLOCK_BITS - 1}::int - s.slot % ${SEARCH_BLOCK_BITS}::int) = 1
        group by 1 order by 1`);
    const rowTerms = () =>
      rowsOf<{ id: string; terms: string }>(sql`select c.id, string_agg(t, ' ' order by t) as terms
        from campaigns c, campaign_search_bit_terms_of(c.search_vector, c.title, c.type = 'adult') t group by 1 order by 1`);
    const setBits = async () => Number((await rowsOf<{ n: string }>(sql`select coalesce(sum(bit_count(bits)), 0) as n from campaign_search_bits`))[0].n);
    const ids = (
      await db
        .insert(campaigns)
        .values([
          { ownerId, title: 'Heart music' },
          { ownerId, title: 'Runner', type: 'adult' },
          { ownerId, title: 'Art heart.music' },
        ])
        .returning()
    ).map((c) => c.id);
    await db.execute(
      sql`select setval('campaign_search_slot_seq', greatest(last_value, (last_value / ${SEARCH_BLOCK_BITS}::int + 1) * ${SEARCH_BLOCK_BITS}::int - 2)) from campaign_search_slot_seq`,
    );
    ids.push(
      ...(
        await db
          .insert(campaigns)
          .values([
            { ownerId, title: 'Art house' },
            { ownerId, title: 'Quartet', description: 'Études' },
            { ownerId, title: 'Café' },
          ])
          .returning()
      ).map((c) => c.id),
    );
    const blocks = await rowsOf<{ n: string }>(sql`select count(distinct slot / ${SEARCH_BLOCK_BITS}::int) as n from campaign_search_slots`);
    expect(Number(blocks[0].n)).toBe(2);
    expect(await bitTerms()).toEqual(await rowTerms());
    // a title the text search parser reads as one host name: the campaign is apart ('o:')
    expect((await bitTerms()).filter((r) => r.terms.split(' ').includes('o:')).map((r) => r.id)).toEqual([ids[2]]);
    await db.update(campaigns).set({ title: 'Walking', type: 'adult' }).where(eq(campaigns.id, ids[4]));
    await db.update(campaigns).set({ type: 'art' }).where(eq(campaigns.id, ids[1]));
    await db.update(campaigns).set({ title: 'Art heart music' }).where(eq(campaigns.id, ids[2]));
    await db.update(campaigns).set({ title: 'Café 1.5' }).where(eq(campaigns.id, ids[5]));
    await db.delete(campaigns).where(eq(campaigns.id, ids[3]));
    expect(await bitTerms()).toEqual(await rowTerms());
    expect((await bitTerms()).filter((r) => r.terms.split(' ').includes('o:')).map((r) => r.id)).toEqual([ids[5]]);
    const expected = await rowTerms();
    expect(await setBits()).toBe(expected.reduce((n, r) => n + r.terms.split(' ').length, 0));
    // a rebuild numbers the slots anew, in created_at order, with the same bits
    await db.execute(sql`select campaign_search_rebuild_bits()`);
    expect(await bitTerms()).toEqual(expected);
    await db.delete(campaigns);
    expect(await setBits()).toBe(0);
  });
});
