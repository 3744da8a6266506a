import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../db/schema';
import { buildTestApp, call, openTestDatabase, signUp, trpc } from '../../../../test/helpers';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

describe('tag suggestions and the access rule', () => {
  it('never suggest a tag only adult items carry to people who may not see them', async () => {
    const owner = await signUp(app, { username: 'tg_owner' });
    const adult = await signUp(app, { username: 'tg_adult' });
    const other = await signUp(app, { username: 'tg_other' });
    for (const who of [owner, adult]) await database.db.update(users).set({ hasAdultAccess: true }).where(eq(users.id, who.userId));
    const adultOnly = await call(app, owner, {
      method: 'POST',
      url: '/api/campaigns',
      payload: { title: 'Hidden', type: 'adult', tags: ['velvetonly', 'velvetshared'] },
    });
    expect(adultOnly.statusCode).toBe(201);
    const open = await call(app, owner, { method: 'POST', url: '/api/projects', payload: { title: 'Open', type: 'code', tags: ['velvetshared'] } });
    expect(open.statusCode).toBe(201);
    const tags = async (who: typeof owner | null) => (await call(app, who, { method: 'GET', url: '/api/tags?q=velvet' })).json().tags as string[];
    expect(await tags(null)).toEqual(['velvetshared']);
    expect(await tags(other)).toEqual(['velvetshared']);
    expect((await trpc(app, other, 'query', 'tags.search', { q: 'velvet' })).data.tags).toEqual(['velvetshared']);
    expect((await tags(adult)).sort()).toEqual(['velvetonly', 'velvetshared']);
    // the owner who lost adult access still sees their own item, and so its tags
    await database.db.update(users).set({ hasAdultAccess: false }).where(eq(users.id, owner.userId));
    expect((await tags(owner)).sort()).toEqual(['velvetonly', 'velvetshared']);
  });
});
