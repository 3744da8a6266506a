import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocks } from '../../db/schema';
import { buildTestApp, call, openTestDatabase, signUp, trpc, type Client } from '../../../../test/helpers';
import { checkCap, checkPaging, groupedTimes, insertPeople, newestFirst, restPages, trpcPages } from '../users/paging-checks';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
type Person = Awaited<ReturnType<typeof signUp>>;
let pager: Person;
let capper: Person;
let other: Person;
/** pager's 45 blocks and capper's 105, newest first */
let expected: { blockedId: string }[];
let expectedCap: { blockedId: string }[];

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  pager = await signUp(app, { username: 'b_pager' });
  capper = await signUp(app, { username: 'b_capper' });
  other = await signUp(app, { username: 'b_other' });
  // the blocked people and the blocks are not the subject: straight into the tables
  const people = await insertPeople(database.db, 105, 'bp');
  const times = groupedTimes(105);
  expected = newestFirst(
    await database.db
      .insert(blocks)
      .values(people.slice(0, 45).map((id, i) => ({ blockerId: pager.userId, blockedId: id, createdAt: times[i] })))
      .returning(),
  );
  expectedCap = newestFirst(
    await database.db
      .insert(blocks)
      .values(people.map((id, i) => ({ blockerId: capper.userId, blockedId: id, createdAt: times[i] })))
      .returning(),
  );
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const ids = (body: { blocked: { userId: string }[] }) => body.blocked.map((b) => b.userId);
const doors = (who: Client | null) => ({
  rest: restPages(app, who, '/api/blocks', ids),
  trpc: trpcPages(app, who, 'blocks.list', {}, ids),
});

describe.each(['rest', 'trpc'] as const)('GET /api/blocks, paged, through the %s door', (door) => {
  it('pages 20 at a time by cursor, newest first, each with the person', async () => {
    await checkPaging(
      doors(pager)[door],
      expected.map((b) => b.blockedId),
      20,
    );
    const first = await call(app, pager, { method: 'GET', url: '/api/blocks?limit=1' });
    expect(Object.keys(first.json()).sort()).toEqual(['blocked', 'nextCursor']);
    expect(Object.keys(first.json().blocked[0]).sort()).toEqual(['_id', 'createdAt', 'imageUrl', 'name', 'userId', 'username']);
    expect(first.json().blocked[0].username).toMatch(/^bp_/);
  });

  it('caps a limit above 100 at 100', async () => {
    await checkCap(
      doors(capper)[door],
      expectedCap.map((b) => b.blockedId),
    );
  });

  it('never shows another person’s blocks, with or without their cursor; signed out is 401', async () => {
    const mine = await doors(pager)[door]({ limit: 20 });
    const theirs = await doors(other)[door]({ limit: 20, cursor: mine.nextCursor });
    expect(theirs.status).toBe(200);
    expect(theirs.ids).toEqual([]);
    expect(theirs.nextCursor).toBeNull();
    expect((await doors(null)[door]({})).status).toBe(401);
    expect((await doors(null)[door]({ cursor: mine.nextCursor })).status).toBe(401);
  });
});

describe('whether I blocked one person (GET /api/blocks/{id}, blocks.status)', () => {
  it('answers for that person alone, on both doors; signed out is 401', async () => {
    const someone = expected[30].blockedId;
    expect((await call(app, pager, { method: 'GET', url: `/api/blocks/${someone}` })).json()).toEqual({ blocked: true, userId: someone });
    expect((await trpc(app, pager, 'query', 'blocks.status', { userId: someone })).data).toEqual({ blocked: true, userId: someone });
    expect((await call(app, other, { method: 'GET', url: `/api/blocks/${someone}` })).json()).toEqual({ blocked: false, userId: someone });
    expect((await trpc(app, other, 'query', 'blocks.status', { userId: someone })).data).toEqual({ blocked: false, userId: someone });
    expect((await call(app, pager, { method: 'GET', url: '/api/blocks/not-an-id' })).json()).toEqual({ blocked: false, userId: 'not-an-id' });
    expect((await call(app, null, { method: 'GET', url: `/api/blocks/${someone}` })).statusCode).toBe(401);
    expect((await trpc(app, null, 'query', 'blocks.status', { userId: someone })).status).toBe(401);

    // it follows block and unblock
    await call(app, other, { method: 'POST', url: '/api/blocks', payload: { userId: pager.userId } });
    expect((await trpc(app, other, 'query', 'blocks.status', { userId: pager.userId })).data.blocked).toBe(true);
    await call(app, other, { method: 'DELETE', url: `/api/blocks/${pager.userId}` });
    expect((await call(app, other, { method: 'GET', url: `/api/blocks/${pager.userId}` })).json().blocked).toBe(false);
    expect(
      await database.db
        .select()
        .from(blocks)
        .where(and(eq(blocks.blockerId, other.userId), eq(blocks.blockedId, pager.userId))),
    ).toEqual([]);
  });

  it('lists the first 20 when tRPC is called without input', async () => {
    const res = await trpc(app, pager, 'query', 'blocks.list');
    expect(res.status).toBe(200);
    expect(res.data.blocked).toHaveLength(20);
    expect(res.data.nextCursor).toEqual(expect.any(String));
  });
});
