import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATEGORIES } from '../../shared/constants';
import { campaigns, projects, users } from '../db/schema';
import type { Actor } from '../deps';
import { openTestDatabase } from '../../../test/helpers';
import { audienceOf, canSeeItem, itemVisibleSql, viewerOf } from './access';

/**
 * The access rule in TypeScript and in SQL, held equal: for every category and every kind of
 * viewer (signed out, signed in, adult access, the owner, an admin), `canSeeItem` and
 * `itemVisibleSql` agree on every item, and the generated column `audience` agrees with
 * `audienceOf`. A new state of an item is added to the module and to the fixtures here.
 */

type Db = Awaited<ReturnType<typeof openTestDatabase>>;
let database: Db;
const ids = { owner: '', other: '', adultUser: '', admin: '' };

function actorOf(id: string | null, extra: { hasAdultAccess?: boolean; isAdmin?: boolean } = {}): Actor {
  if (id === null) return { user: null, session: null, ip: '127.0.0.1' };
  return {
    user: {
      id,
      email: `${id}@example.com`,
      username: null,
      name: null,
      role: 'user',
      isAdmin: extra.isAdmin ?? false,
      hasAdultAccess: extra.hasAdultAccess ?? false,
      emailVerified: true,
    } as never,
    session: { id: 's', userId: id } as never,
    ip: '127.0.0.1',
  };
}

beforeAll(async () => {
  database = await openTestDatabase();
  const { db } = database;
  for (const key of Object.keys(ids) as (keyof typeof ids)[]) {
    const [u] = await db
      .insert(users)
      .values({
        email: `${key.toLowerCase()}-${Math.random().toString(36).slice(2)}@example.com`,
        passwordHash: 'x',
        hasAdultAccess: key === 'adultUser',
        isAdmin: key === 'admin',
      })
      .returning({ id: users.id });
    ids[key] = u.id;
  }
  for (const type of CATEGORIES) {
    await db.insert(campaigns).values({ ownerId: ids.owner, title: `c ${type}`, type });
    await db.insert(projects).values({ ownerId: ids.owner, title: `p ${type}`, type });
  }
});
afterAll(() => database?.close());

describe('the access rule', () => {
  it('keeps the generated audience column equal to audienceOf', async () => {
    for (const table of [campaigns, projects]) {
      const rows = await database.db.select({ type: table.type, audience: table.audience }).from(table);
      expect(rows.length).toBe(CATEGORIES.length);
      for (const r of rows) expect(r.audience).toBe(audienceOf(r));
    }
  });

  it('answers the same in TypeScript and in SQL for every viewer and item', async () => {
    const viewers: Record<string, Actor> = {
      signedOut: actorOf(null),
      other: actorOf(ids.other),
      adultUser: actorOf(ids.adultUser, { hasAdultAccess: true }),
      owner: actorOf(ids.owner),
      admin: actorOf(ids.admin, { isAdmin: true }),
    };
    for (const [name, actor] of Object.entries(viewers)) {
      for (const table of [campaigns, projects]) {
        const rows = await database.db
          .select({ id: table.id, type: table.type, ownerId: table.ownerId, seen: sql<boolean>`${itemVisibleSql(viewerOf(actor), table)}` })
          .from(table);
        for (const r of rows) expect({ name, type: r.type, seen: r.seen }).toEqual({ name, type: r.type, seen: canSeeItem(actor, r) });
        const seen = rows.filter((r) => r.seen).map((r) => r.type);
        // what each viewer sees, spelled out: the adult category only with adult access or as its owner
        expect(seen.includes('adult')).toBe(name === 'adultUser' || name === 'owner');
        expect(seen.length).toBe(CATEGORIES.length - (seen.includes('adult') ? 0 : 1));
      }
    }
  });
});
