import { eq, inArray, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../../test/helpers';
import { campaigns, listVersions, users } from '../../db/schema';
import type { Actor } from '../../deps';
import { ListQuery } from '../../../shared/schemas/campaigns';
import { createCampaignListQueries } from './list-queries';

/**
 * `?page=` answers from page marks (keyset) must be exactly what OFFSET answers. Random
 * sequences of changes (campaigns dated now or in the past, deletes, type changes across adult,
 * a changed created_at), with marks taken now and then so that some are stale, and after each
 * step every page of the list, for both audiences and a few page sizes, compared with a plain
 * OFFSET query. Marks every 3 rows, so nearly every page starts from one.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let ownerId: string;
const anonymous: Actor = { user: null, session: null, ip: '127.0.0.1' };
let adultViewer: Actor;

beforeAll(async () => {
  database = await openTestDatabase();
  const [owner] = await database.db.insert(users).values({ email: 'marks@example.com', passwordHash: 'x', hasAdultAccess: true }).returning();
  ownerId = owner.id;
  adultViewer = { user: owner, session: null, ip: '127.0.0.1' } as unknown as Actor;
});
afterAll(async () => {
  await database?.close();
});

type Step =
  | { kind: 'insertPast'; n: number; adult: boolean; minutesAgo: number }
  | { kind: 'insertNow'; n: number }
  | { kind: 'delete'; pick: number }
  | { kind: 'toggleAdult'; pick: number }
  | { kind: 'redate'; pick: number; minutesAgo: number }
  | { kind: 'settle' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('insertPast' as const),
      n: fc.integer({ min: 1, max: 8 }),
      adult: fc.boolean(),
      minutesAgo: fc.integer({ min: 6, max: 100_000 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('insertNow' as const), n: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('toggleAdult' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('redate' as const), pick: fc.nat(), minutesAgo: fc.integer({ min: 6, max: 100_000 }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'settle' as const }) },
);

async function apply(s: Step, settle: () => Promise<void>): Promise<void> {
  const { db } = database;
  const ids = async () => (await db.select({ id: campaigns.id }).from(campaigns).orderBy(campaigns.id)).map((r) => r.id);
  switch (s.kind) {
    case 'insertPast':
      await db.insert(campaigns).values(
        Array.from({ length: s.n }, (_, i) => ({
          ownerId,
          title: `past ${i}`,
          type: s.adult && i % 2 === 0 ? ('adult' as const) : ('art' as const),
          createdAt: new Date(Date.now() - (s.minutesAgo + i) * 60_000),
        })),
      );
      return;
    case 'insertNow':
      await db.insert(campaigns).values(Array.from({ length: s.n }, (_, i) => ({ ownerId, title: `now ${i}` })));
      return;
    case 'delete':
    case 'toggleAdult':
    case 'redate': {
      const all = await ids();
      if (!all.length) return;
      const id = all[s.pick % all.length];
      if (s.kind === 'delete') await db.delete(campaigns).where(eq(campaigns.id, id));
      else if (s.kind === 'toggleAdult')
        await db
          .update(campaigns)
          .set({ type: sql`case when ${campaigns.type} = 'adult' then 'art'::category else 'adult'::category end` })
          .where(inArray(campaigns.id, [id]));
      else
        await db
          .update(campaigns)
          .set({ createdAt: new Date(Date.now() - s.minutesAgo * 60_000) })
          .where(eq(campaigns.id, id));
      return;
    }
    case 'settle':
      await settle();
  }
}

/** The list by OFFSET, the reference: ids of the page, newest first. */
async function byOffset(seeAdult: boolean, offset: number, limit: number): Promise<string[]> {
  const rows = await database.db.execute<{ id: string }>(sql`
    select id from campaigns ${seeAdult ? sql`` : sql`where audience = 'public'`}
    order by created_at desc, id desc limit ${limit} offset ${offset}`);
  const list = Array.isArray(rows) ? rows : (rows as unknown as { rows: { id: string }[] }).rows;
  return list.map((r) => r.id);
}

describe('page marks', () => {
  it('answer every page exactly as OFFSET does, through any changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        await database.db.delete(campaigns);
        const lists = createCampaignListQueries(database.db, { markEvery: 3 });
        for (const s of steps) {
          await apply(s, lists.settled);
          for (const [actor, seeAdult] of [
            [anonymous, false],
            [adultViewer, true],
          ] as const) {
            // the whole list in order once; each page must be its slice (what OFFSET answers)
            const all = await byOffset(seeAdult, 0, 1_000_000);
            for (const limit of [1, 2, 5]) {
              for (let page = 1; page <= Math.ceil(all.length / limit) + 1; page++) {
                const got = await lists.run(actor, ListQuery.parse({ page, limit }));
                const want = all.slice((page - 1) * limit, page * limit);
                expect(
                  got.rows.map((r) => r.c.id),
                  `page ${page}, limit ${limit}, adult ${seeAdult}`,
                ).toEqual(want);
                expect(got.total).toBe(all.length);
                expect(got.nextCursor !== null).toBe(page * limit < all.length);
              }
            }
          }
        }
        await lists.settled();
      }),
      { numRuns: 30 },
    );
  });

  it('are taken once a deep page is asked for, and then answer it', async () => {
    await database.db.delete(campaigns);
    await database.db
      .insert(campaigns)
      .values(Array.from({ length: 40 }, (_, i) => ({ ownerId, title: `c${i}`, createdAt: new Date(Date.now() - (60 + i) * 60_000) })));
    const lists = createCampaignListQueries(database.db, { markEvery: 3 });
    const query = ListQuery.parse({ page: 7, limit: 5 });
    // the first deep page pages by OFFSET and starts taking the marks
    expect((await lists.statements(anonymous, query)).rows.sql).not.toMatch(/<= \(\$\d+::timestamptz, \$\d+::uuid\)/);
    await lists.settled();
    expect((await lists.statements(anonymous, query)).rows.sql).toMatch(/<= \(\$\d+::timestamptz, \$\d+::uuid\)/);
    const got = await lists.run(anonymous, query);
    expect(got.rows.map((r) => r.c.id)).toEqual(await byOffset(false, 30, 5));
    const [{ generation }] = await database.db.select({ generation: listVersions.generation }).from(listVersions).where(eq(listVersions.entity, 'campaigns'));
    // a campaign dated now moves no mark: the generation stays
    await database.db.insert(campaigns).values({ ownerId, title: 'fresh' });
    const [after] = await database.db.select({ generation: listVersions.generation }).from(listVersions).where(eq(listVersions.entity, 'campaigns'));
    expect(after.generation).toBe(generation);
    // a campaign dated in the past does
    await database.db.insert(campaigns).values({ ownerId, title: 'old', createdAt: new Date('2001-01-01T00:00:00Z') });
    const [later] = await database.db.select({ generation: listVersions.generation }).from(listVersions).where(eq(listVersions.entity, 'campaigns'));
    expect(later.generation).toBeGreaterThan(generation);
  });
});
