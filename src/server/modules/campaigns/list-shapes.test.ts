import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../../test/helpers';
import { CampaignListQuery } from '../../../shared/schemas/campaigns';
import { campaigns, supports, users } from '../../db/schema';
import type { Actor } from '../../deps';
import { createCampaignListQueries } from './list-queries';

/**
 * One list answers request after request of the same kind, each with its own values: who asks
 * (their own adult campaigns, what they support), whose campaigns, which words, which category.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
const visitor: Actor = { user: null, session: null, ip: '127.0.0.1' };
let ann: Actor;
let bob: Actor;
const ids: Record<string, string> = {};

beforeAll(async () => {
  database = await openTestDatabase();
  const [a, b] = await database.db
    .insert(users)
    .values([
      { email: 'ann@example.com', passwordHash: 'x', hasAdultAccess: false },
      { email: 'bob@example.com', passwordHash: 'x', hasAdultAccess: false },
    ])
    .returning();
  ann = { user: a, session: null, ip: '127.0.0.1' } as unknown as Actor;
  bob = { user: b, session: null, ip: '127.0.0.1' } as unknown as Actor;
  const rows = await database.db
    .insert(campaigns)
    .values([
      { ownerId: a.id, title: 'Ann after dark', type: 'adult' as const },
      { ownerId: a.id, title: 'Ann plays music', type: 'music' as const },
      { ownerId: b.id, title: 'Bob after dark', type: 'adult' as const },
      { ownerId: b.id, title: 'Bob takes photographs', type: 'photography' as const },
    ])
    .returning();
  for (const r of rows) ids[r.title] = r.id;
  await database.db.insert(supports).values({ campaignId: ids['Bob takes photographs'], userId: a.id, confirmedAt: new Date() });
});
afterAll(async () => {
  await database?.close();
});

const titles = (r: { rows: { c: { title: string } }[] }) => r.rows.map((x) => x.c.title).sort();

describe('the campaign list, asked again and again', () => {
  it('answers each request with its own values, whoever asked the same kind of request before', async () => {
    const lists = createCampaignListQueries(database.db);
    const all = CampaignListQuery.parse({});
    const pub = ['Ann plays music', 'Bob takes photographs'];
    for (let round = 0; round < 2; round++) {
      expect(titles(await lists.run(visitor, all))).toEqual(pub);
      // each signed-in person sees their own adult campaign, and nobody else's
      expect(titles(await lists.run(ann, all))).toEqual(['Ann after dark', ...pub].sort());
      expect(titles(await lists.run(bob, all))).toEqual(['Bob after dark', ...pub].sort());
      expect(titles(await lists.run(visitor, all))).toEqual(pub);
      // what they support is theirs
      const supported = async (actor: Actor) => (await lists.run(actor, all)).rows.filter((r) => r.supported).map((r) => r.c.title);
      expect(await supported(ann)).toEqual(['Bob takes photographs']);
      expect(await supported(bob)).toEqual([]);
      // a person's own campaigns, as someone else and as themselves
      expect(titles(await lists.run(visitor, all, { ownerId: ann.user!.id }))).toEqual(['Ann plays music']);
      expect(titles(await lists.run(visitor, all, { ownerId: bob.user!.id }))).toEqual(['Bob takes photographs']);
      expect(titles(await lists.run(bob, all, { ownerId: bob.user!.id }))).toEqual(['Bob after dark', 'Bob takes photographs']);
      // searches and categories
      expect(titles(await lists.run(visitor, CampaignListQuery.parse({ q: 'music' })))).toEqual(['Ann plays music']);
      expect(titles(await lists.run(visitor, CampaignListQuery.parse({ q: 'photographs' })))).toEqual(['Bob takes photographs']);
      expect(titles(await lists.run(ann, CampaignListQuery.parse({ q: 'dark' })))).toEqual(['Ann after dark']);
      expect(titles(await lists.run(bob, CampaignListQuery.parse({ q: 'dark' })))).toEqual(['Bob after dark']);
      expect(titles(await lists.run(visitor, CampaignListQuery.parse({ type: 'music' })))).toEqual(['Ann plays music']);
      expect(titles(await lists.run(visitor, CampaignListQuery.parse({ type: 'photography' })))).toEqual(['Bob takes photographs']);
      const q = CampaignListQuery.parse({ limit: 1 });
      const first = await lists.run(visitor, q);
      const second = await lists.run(visitor, CampaignListQuery.parse({ limit: 1, cursor: first.nextCursor }));
      expect([...titles(first), ...titles(second)].sort()).toEqual(pub);
      expect(titles(await lists.run(visitor, CampaignListQuery.parse({ limit: 1, page: 2 })))).toEqual(titles(second));
    }
  });
});
