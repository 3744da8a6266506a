import { count } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, openTestDatabase, signUp, trpc, type Client } from '../../../test/helpers';
import { campaigns, comments, teams } from '../db/schema';

/**
 * Text PostgreSQL refuses (NUL) and dates it cannot store are refused by the shared schemas
 * with a 400 naming the field, on both doors, before anything reaches the database.
 */
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let ann: Client & { userId: string };
let campaignId: string;
let teamId: string;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  ann = await signUp(app, { username: 'guard_ann' });
  campaignId = (await call(app, ann, { method: 'POST', url: '/api/campaigns', payload: { title: 'Guarded' } })).json()._id;
  teamId = (await call(app, ann, { method: 'POST', url: '/api/teams', payload: { name: 'Guards' } })).json()._id;
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const rows = async (table: typeof campaigns | typeof comments | typeof teams) => Number((await database.db.select({ n: count() }).from(table))[0].n);
const NUL = 'a\u0000b';

describe('the NUL character', () => {
  it('is a 400 naming the field in every search, signed out, on both doors', async () => {
    for (const url of ['/api/campaigns', '/api/projects', '/api/teams', '/api/public/users', '/api/tags']) {
      const res = await call(app, null, { method: 'GET', url: `${url}?q=a%00b` });
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toEqual({ error: 'q cannot contain the NUL character (U+0000)' });
    }
    const team = await call(app, null, { method: 'GET', url: '/api/teams?tag=a%00b' });
    expect(team.json()).toEqual({ error: 'tag cannot contain the NUL character (U+0000)' });
    for (const path of ['campaigns.list', 'projects.list', 'teams.list', 'users.list', 'tags.search']) {
      const res = await trpc(app, null, 'query', path, { q: NUL });
      expect(res.status, path).toBe(400);
      expect(res.error?.message).toBe('q cannot contain the NUL character (U+0000)');
    }
  });

  it('is a 400 naming the field in stored text, and nothing is stored', async () => {
    const before = { campaigns: await rows(campaigns), comments: await rows(comments), teams: await rows(teams) };
    const cases: [string, string, object, string][] = [
      ['POST', '/api/campaigns', { title: NUL }, 'title'],
      ['POST', '/api/campaigns', { title: 'ok', description: NUL }, 'description'],
      ['POST', '/api/campaigns', { title: 'ok', tags: ['fine', NUL] }, 'tags'],
      ['POST', '/api/campaigns', { title: 'ok', images: [{ url: '/uploads/x.webp', alt: NUL }] }, 'images.alt'],
      ['POST', '/api/projects', { title: 'ok', imageUrl: NUL }, 'imageUrl'],
      ['PUT', `/api/campaigns/${campaignId}`, { title: NUL }, 'title'],
      ['POST', `/api/campaigns/${campaignId}/comments`, { text: NUL }, 'text'],
      ['POST', '/api/teams', { name: NUL }, 'name'],
      ['POST', `/api/teams/${teamId}/members`, { email: `x${NUL}@example.com` }, 'email'],
      ['PUT', '/api/user/profile', { name: NUL }, 'name'],
    ];
    for (const [method, url, payload, field] of cases) {
      const res = await call(app, ann, { method: method as 'POST', url, payload });
      expect(res.statusCode, `${method} ${url} ${field}`).toBe(400);
      expect(res.json().error).toBe(`${field} cannot contain the NUL character (U+0000)`);
    }
    const tag = await call(app, ann, { method: 'POST', url: `/api/teams/${teamId}/tags/a%00b` });
    expect(tag.statusCode).toBe(400);
    expect(tag.json().error).toBe('tag cannot contain the NUL character (U+0000)');

    const viaTrpc = await trpc(app, ann, 'mutation', 'campaigns.create', { title: NUL });
    expect(viaTrpc.status).toBe(400);
    expect(viaTrpc.error?.message).toBe('title cannot contain the NUL character (U+0000)');
    const comment = await trpc(app, ann, 'mutation', 'comments.create', { campaignId, data: { text: NUL } });
    expect(comment.error?.message).toBe('data.text cannot contain the NUL character (U+0000)');
    const profile = await trpc(app, ann, 'mutation', 'users.updateProfile', { tags: [NUL] });
    expect(profile.error?.message).toBe('tags cannot contain the NUL character (U+0000)');

    expect({ campaigns: await rows(campaigns), comments: await rows(comments), teams: await rows(teams) }).toEqual(before);
    expect((await call(app, ann, { method: 'GET', url: `/api/campaigns/${campaignId}` })).json().title).toBe('Guarded');
  });

  it('is refused in path parameters', async () => {
    const res = await call(app, null, { method: 'GET', url: '/api/campaigns/a%00b' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('id cannot contain the NUL character (U+0000)');
  });
});

describe('dates PostgreSQL cannot store', () => {
  it('in a crafted list cursor are a 400, on both doors', async () => {
    for (const t of ['+275760-09-13T00:00:00.000Z', '0000-01-01T00:00:00.000Z', 'soon']) {
      const cursor = Buffer.from(JSON.stringify({ t, id: '00000000-0000-4000-8000-000000000000' })).toString('base64url');
      for (const url of ['/api/campaigns', '/api/projects', '/api/teams']) {
        const res = await call(app, null, { method: 'GET', url: `${url}?cursor=${cursor}` });
        expect(res.statusCode, `${url} ${t}`).toBe(400);
        expect(res.json()).toEqual({ error: 'Invalid cursor' });
      }
      expect((await trpc(app, null, 'query', 'campaigns.list', { cursor })).status).toBe(400);
    }
  });

  const outOfRange = [
    '0000-01-01',
    '0001-01-01',
    '0999-12-31T23:59:59.999Z',
    '-000001-01-01T00:00:00Z',
    '+275760-09-13T00:00:00.000Z',
    '+010000-01-01T00:00:00.000Z',
  ];

  it('are a 400 naming the field on both doors, and nothing is stored', async () => {
    const before = await rows(campaigns);
    for (const executionDate of outOfRange) {
      const rest = await call(app, ann, { method: 'POST', url: '/api/campaigns', payload: { title: 'Dated', executionDate } });
      expect(rest.statusCode, executionDate).toBe(400);
      expect(rest.json()).toEqual({ error: 'executionDate must be a date between the years 1000 and 9999' });
      const edit = await call(app, ann, { method: 'PUT', url: `/api/campaigns/${campaignId}`, payload: { executionDate } });
      expect(edit.statusCode, executionDate).toBe(400);
      const viaTrpc = await trpc(app, ann, 'mutation', 'campaigns.create', { title: 'Dated', executionDate });
      expect(viaTrpc.status, executionDate).toBe(400);
      expect(viaTrpc.error?.message).toBe('executionDate must be a date between the years 1000 and 9999');
    }
    const garbage = await call(app, ann, { method: 'POST', url: '/api/campaigns', payload: { title: 'Dated', executionDate: 'soon' } });
    expect(garbage.json()).toEqual({ error: 'Enter a valid execution date' });
    expect(await rows(campaigns)).toBe(before);
  });

  it('keep working at the edges of what is stored', async () => {
    for (const executionDate of ['1000-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z']) {
      const res = await call(app, ann, { method: 'POST', url: '/api/campaigns', payload: { title: 'Edge', executionDate } });
      expect(res.statusCode, executionDate).toBe(201);
      const got = await call(app, null, { method: 'GET', url: `/api/campaigns/${res.json()._id}` });
      expect(got.json().executionDate).toBe(executionDate);
    }
  });
});
