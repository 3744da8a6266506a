import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../../test/helpers';
import { ListQuery } from '../../../shared/schemas/campaigns';
import { campaigns, users } from '../../db/schema';
import type { Actor } from '../../deps';
import { prefixTsQuery } from '../../lib/listing';
import { createCampaignListQueries, listTotal } from './list-queries';
import { at, nextBlock } from './search-blocks.fixtures';
import { createSearchBitmaps } from './search-bitmaps';
import { createWordsSearches } from './search-intersections';

/**
 * The server's copy of the search's block bitmaps (search-bitmaps.ts): read again exactly when a
 * block changed, answering the same with any memory, and right for bitmaps held dense (the
 * property test's blocks hold a few campaigns each, always sparse).
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let ownerId: string;
const anonymous: Actor = { user: null, session: null, ip: '127.0.0.1' };

beforeAll(async () => {
  database = await openTestDatabase();
  const [owner] = await database.db.insert(users).values({ email: 'bitmaps@example.com', passwordHash: 'x' }).returning();
  ownerId = owner.id;
});
afterAll(async () => {
  await database?.close();
});
beforeEach(async () => {
  await database.db.delete(campaigns);
});

async function termsOf(q: string) {
  const words = createWordsSearches(database.db);
  const search = await words.of(q, prefixTsQuery(q) as string);
  if (!search) throw new Error(`not a search of several words: ${q}`);
  const terms = await words.terms(search);
  if (!terms) throw new Error(`too many terms: ${q}`);
  return terms;
}

const everything = { seeAdult: true, cursorAt: null, need: 1000, cap: 1001 };

describe('search bitmaps held by the server', () => {
  it('read a block again when, and only when, one of its bitmaps changed', async () => {
    const { db } = database;
    const ids: string[][] = [];
    for (const hours of [
      [1, 2],
      [10, 11, 12],
      [20, 21],
    ]) {
      await nextBlock(database.db);
      const rows = await db
        .insert(campaigns)
        .values(hours.map((h) => ({ ownerId, title: `Art heart ${h}`, createdAt: at(h) })))
        .returning({ id: campaigns.id });
      ids.push(rows.map((r) => r.id));
    }
    const bitmaps = createSearchBitmaps(db);
    const lists = createCampaignListQueries(db, { bitmaps });
    const found = async () => listTotal(anonymous, (await lists.run(anonymous, ListQuery.parse({ q: 'art heart', limit: 20 }))).totals);
    expect(await found()).toBe(7);
    expect(bitmaps.held().reads).toBe(3);
    // nothing changed: no bitmap read
    expect(await found()).toBe(7);
    expect(bitmaps.held().reads).toBe(3);
    // an edit in the oldest block, a delete in the middle one, a new campaign in the newest: each block read again once
    await db.update(campaigns).set({ title: 'Something else' }).where(eq(campaigns.id, ids[0][0]));
    expect(await found()).toBe(6);
    expect(bitmaps.held().reads).toBe(4);
    await db.delete(campaigns).where(eq(campaigns.id, ids[1][0]));
    expect(await found()).toBe(5);
    expect(bitmaps.held().reads).toBe(5);
    await db.insert(campaigns).values({ ownerId, title: 'Heart of art', createdAt: at(22) });
    expect(await found()).toBe(6);
    expect(bitmaps.held().reads).toBe(6);
    // an edit that leaves the campaign's terms as they were changes no bitmap
    await db.update(campaigns).set({ goalAmount: 12345 }).where(eq(campaigns.id, ids[2][0]));
    expect(await found()).toBe(6);
    expect(bitmaps.held().reads).toBe(6);
    // a campaign of the oldest block dated after every other: that block is read first
    await db
      .update(campaigns)
      .set({ createdAt: at(30) })
      .where(eq(campaigns.id, ids[0][1]));
    const first = await lists.run(anonymous, ListQuery.parse({ q: 'art heart', limit: 2 }));
    expect(first.rows.map((r) => r.c.id)[0]).toBe(ids[0][1]);
    expect(bitmaps.held().reads).toBe(7);
    // a search whose terms are held reads no block's version before its campaigns
    const before = bitmaps.held().reads;
    expect((await bitmaps.choose(await termsOf('art heart'), everything)).at).not.toBeNull();
    expect(bitmaps.held().reads).toBe(before);
  });

  it('find a campaign whose words came into the lexicon after the search was last made', async () => {
    const { db } = database;
    await db.insert(campaigns).values({ ownerId, title: 'Art heart', createdAt: at(1) });
    const lists = createCampaignListQueries(db);
    const found = async () => (await lists.run(anonymous, ListQuery.parse({ q: 'art heart', limit: 20 }))).rows.map((r) => r.c.title).sort();
    expect(await found()).toEqual(['Art heart']);
    expect(await found()).toEqual(['Art heart']);
    // 'artistry' and 'heartfelt' are new terms in the ranges of 'art' and 'heart'
    await db.insert(campaigns).values({ ownerId, title: 'Artistry heartfelt', createdAt: at(2) });
    expect(await found()).toEqual(['Art heart', 'Artistry heartfelt']);
  });

  it('answer the same holding no bitmaps at all as holding all of them', async () => {
    const { db } = database;
    for (const hours of [[1], [5, 6], [9]]) {
      await nextBlock(database.db);
      await db.insert(campaigns).values(hours.map((h) => ({ ownerId, title: `Music art heart ${h}`, createdAt: at(h) })));
    }
    await db.insert(campaigns).values({ ownerId, title: 'Quartet runner', createdAt: at(10) });
    const none = createSearchBitmaps(db, { maxBytes: 0 });
    const all = createSearchBitmaps(db);
    let kept = 0;
    for (const q of ['art heart', 'music heart', 'music art heart', 'art heart', 'quartet runner']) {
      const terms = await termsOf(q);
      expect(await none.choose(terms, everything), q).toEqual(await all.choose(terms, everything));
      // with the bit of the campaigns apart when the title half is limited
      kept = new Set([...terms.a.flat(), ...terms.b.flat(), ...(terms.bx ?? []).flat(), ...(terms.bx ? ['o:'] : [])]).size;
    }
    // only the last search's terms are kept (they were not held: read, the others dropped)
    expect(none.held().terms).toBe(kept);
    expect(all.held().terms).toBeGreaterThan(kept);
    expect(all.held().bytes).toBeGreaterThan(none.held().bytes);
  });

  it('find and page exactly as the campaigns do where a word is in most of a block', async () => {
    const { db } = database;
    // 1,500 campaigns of one block hold 'crowd' (more than a sparse bitmap holds), every 50th also 'lantern'
    await nextBlock(database.db);
    await db.execute(sql`insert into campaigns (owner_id, title, created_at, type)
      select ${ownerId}::uuid, case when i % 50 = 0 then 'Crowd lantern ' || i else 'Crowd ' || i end,
        timestamptz '2026-01-01' + i * interval '1 minute', case when i % 7 = 0 then 'adult' else 'other' end::category
      from generate_series(1, 1500) i`);
    const fast = createCampaignListQueries(db);
    const plain = createCampaignListQueries(db, { postings: false });
    const adultViewer = { user: { id: ownerId, hasAdultAccess: true, isAdmin: false }, session: null, ip: '127.0.0.1' } as unknown as Actor;
    for (const actor of [anonymous, adultViewer]) {
      for (const q of ['crowd lantern', 'lantern crowd 50', 'crowd crowd']) {
        for (const page of [1, 2, 3]) {
          const query = ListQuery.parse({ q, limit: 7, page });
          const [a, b] = [await fast.run(actor, query), await plain.run(actor, query)];
          expect(
            a.rows.map((r) => r.c.id),
            q,
          ).toEqual(b.rows.map((r) => r.c.id));
          expect(listTotal(actor, a.totals), q).toBe(listTotal(actor, b.totals));
        }
        expect((await fast.statements(actor, ListQuery.parse({ q, limit: 7 }))).rows.sql, q).toContain('campaign_search_slots');
      }
    }
    const lanterns = await db.select({ id: campaigns.id }).from(campaigns).where(sql`${campaigns.title} like 'Crowd lantern %'`);
    expect(lanterns).toHaveLength(30);
    // the denser word gone from the lanterns: no match left
    await db
      .update(campaigns)
      .set({ title: 'Lantern' })
      .where(
        inArray(
          campaigns.id,
          lanterns.map((l) => l.id),
        ),
      );
    expect((await fast.run(anonymous, ListQuery.parse({ q: 'crowd lantern', limit: 7 }))).rows).toEqual([]);
  });
});
