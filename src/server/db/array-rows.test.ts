import { desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/helpers';
import { campaignSelection, type CampaignRow } from '../modules/campaigns/list-queries';
import { arrayRunner, rowMapper } from './array-rows';
import type { Database } from './client';
import { campaigns, supports, users } from './schema';

let database: Database;

beforeAll(async () => {
  database = await openTestDatabase();
  const { db } = database;
  const [owner] = await db
    .insert(users)
    .values({ email: 'rows@example.com', passwordHash: 'x', username: 'rows', name: null, imageUrl: '/uploads/avatar/a.jpg' })
    .returning({ id: users.id });
  const [withEverything] = await db
    .insert(campaigns)
    .values({
      ownerId: owner.id,
      title: 'Mural "for" the \\ square',
      description: 'A long one, with ünïcode and\nnew lines',
      tags: ['art', 'with space', 'quote"d'],
      type: 'art',
      goalAmount: 123456,
      currency: 'EUR',
      imageUrl: '/uploads/cover/c.webp',
      images: [{ url: '/uploads/gallery/g.webp', alt: 'first' }, { url: '/uploads/gallery/h.webp' }],
      executionDate: new Date('2027-03-04T05:06:07.890Z'),
    })
    .returning({ id: campaigns.id });
  await db.insert(campaigns).values({ ownerId: owner.id, title: 'Bare', createdAt: new Date('2020-01-01T00:00:00Z') });
  await db.insert(supports).values({ campaignId: withEverything.id, email: 'fan@example.com', confirmedAt: new Date() });
});

afterAll(async () => {
  await database.close();
});

describe('rows as arrays, mapped once per selection', () => {
  it('give the same objects as Drizzle, dates, nulls, arrays, JSON and numbers included', async () => {
    for (const viewer of [null, '00000000-0000-4000-8000-000000000000']) {
      const selection = campaignSelection(viewer);
      const query = database.db.select(selection).from(campaigns).innerJoin(users, eq(users.id, campaigns.ownerId)).orderBy(desc(campaigns.createdAt));
      const byDrizzle = await query;
      const mapped = (await arrayRunner(database.db)(query.toSQL(), false)).map(rowMapper<CampaignRow>(selection));
      expect(byDrizzle).toHaveLength(2);
      expect(mapped).toEqual(byDrizzle);
      expect(mapped[0].c.executionDate).toBeInstanceOf(Date);
      expect(mapped[0].c.images).toEqual([{ url: '/uploads/gallery/g.webp', alt: 'first' }, { url: '/uploads/gallery/h.webp' }]);
      expect(mapped[1].c.executionDate).toBeNull();
      expect(Number(mapped[0].supporters)).toBe(1);
    }
  });

  it('refuses a selection it cannot map', () => {
    expect(() => rowMapper({ a: { b: { c: campaigns.id } } })).toThrow(/unsupported field a\.b/);
  });
});

describe('a statement with planner settings of its own', () => {
  const show = { sql: 'select current_setting($1)', params: ['effective_cache_size'] };

  it('runs with them, and no other statement does, on any of the connections', async () => {
    const run = arrayRunner(database.db);
    const before = String((await run(show, false))[0][0]);
    const value = before === '4MB' ? '8MB' : '4MB';
    const withIt = await Promise.all(Array.from({ length: 12 }, () => run(show, false, { effective_cache_size: value })));
    expect(withIt.map((rows) => rows[0][0])).toEqual(Array(12).fill(value));
    // the pool's connections, each at least once: none kept the setting
    const after = await Promise.all(Array.from({ length: 24 }, () => run(show, false)));
    expect(new Set(after.map((rows) => rows[0][0]))).toEqual(new Set([before]));
  });
});
