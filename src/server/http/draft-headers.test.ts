import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRAFT_HEADERS, showsDraft } from './draft-headers';
import { buildApp } from '../app';
import { buildTestApp, call, openTestDatabase, signUpVerified, testConfig, trpc, type Client } from '../../../test/helpers';

/*
 * Every answer of the two API doors whose JSON shows a draft (issue #30) is kept by no cache,
 * indexed by no search engine and referred to no other site; answers that show none keep the
 * API's own headers. REST and tRPC (its direct reads, its batches and its own handler's answers).
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
/** The same app without test/contract.ts's check of each /api answer (which reads plain JSON only): for compressed answers. */
let unchecked: FastifyInstance;
let owner: Client & { userId: string };
let member: Client & { userId: string };
let stranger: Client & { userId: string };

const KINDS = [
  { kind: 'campaigns', one: 'campaign' },
  { kind: 'projects', one: 'project' },
] as const;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  unchecked = await buildApp({ config: testConfig(), db: database.db, client: 'none', logger: false });
  await unchecked.ready();
  owner = await signUpVerified(app, database, { username: 'dh_owner' });
  member = await signUpVerified(app, database, { username: 'dh_member' });
  stranger = await signUpVerified(app, database, { username: 'dh_stranger' });
});
afterAll(async () => {
  await app?.close();
  await unchecked?.close();
  await database?.close();
});

type Headers = Record<string, string | string[] | number | undefined>;

function expectDraftHeaders(headers: Headers, what: string) {
  expect(headers['x-robots-tag'], what).toBe(DRAFT_HEADERS['x-robots-tag']);
  expect(headers['cache-control'], what).toBe(DRAFT_HEADERS['cache-control']);
  expect(headers['referrer-policy'], what).toBe(DRAFT_HEADERS['referrer-policy']);
}

function expectPublicHeaders(headers: Headers, what: string) {
  expect(headers['x-robots-tag'], what).toBeUndefined();
  expect(headers['cache-control'], what).toBe('no-store');
}

const trpcGet = (who: Client | null, path: string, input: unknown, headers: Record<string, string> = {}) =>
  call(app, who, { method: 'GET', url: `/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`, headers });

describe('showsDraft', () => {
  it('finds a draft’s or a scheduled item’s visibility, and not the words inside a text', () => {
    expect(showsDraft('{"items":[{"_id":"a","visibility":"released"},{"_id":"b","visibility":"draft"}]}')).toBe(true);
    expect(showsDraft('{"result":{"data":{"json":{"visibility":"scheduled"}}}}')).toBe(true);
    expect(showsDraft('{"visibility":"released"}')).toBe(false);
    expect(showsDraft(JSON.stringify({ description: '"visibility":"draft"', visibility: 'released' }))).toBe(false);
    expect(showsDraft('[]')).toBe(false);
  });
});

describe.each(KINDS)('the API answers about a draft $one', (k) => {
  it('carry no-store, noindex and no-referrer on both doors when they show it, and only then', async () => {
    // a released item whose text quotes what a draft's JSON says
    const pub = await call(app, owner, {
      method: 'POST',
      url: `/api/${k.kind}`,
      payload: { title: 'Out in the open', description: 'It says "visibility":"draft" but is not one' },
    });
    expect(pub.statusCode).toBe(201);
    expectPublicHeaders(pub.headers, 'creating a released item');
    const released = pub.json() as { _id: string };

    const created = await call(app, owner, { method: 'POST', url: `/api/${k.kind}`, payload: { title: 'Quiet plans', visibility: 'draft' } });
    expect(created.statusCode).toBe(201);
    expectDraftHeaders(created.headers, 'creating a draft (REST)');
    const draft = created.json() as { _id: string };
    const scheduled = await trpc(app, owner, 'mutation', `${k.kind}.create`, { title: 'Soon', releaseAt: new Date(Date.now() + 86_400_000).toISOString() });
    expect(scheduled.data).toMatchObject({ visibility: 'scheduled' });
    // tRPC's own handler (a mutation): a Response, read from a copy
    expectDraftHeaders(scheduled.headers, 'creating a scheduled draft (tRPC)');
    expect(scheduled.data.title).toBe('Soon');
    expect((await call(app, owner, { method: 'POST', url: `/api/${k.kind}/${draft._id}/circle/members`, payload: { who: 'dh_member' } })).statusCode).toBe(201);

    // the owner's and the member's reads of it, on both doors; the owner's list holds it
    for (const who of [owner, member]) {
      const rest = await call(app, who, { method: 'GET', url: `/api/${k.kind}/${draft._id}` });
      expect(rest.statusCode).toBe(200);
      expectDraftHeaders(rest.headers, 'REST detail');
      const t = await trpcGet(who, `${k.kind}.get`, { id: draft._id });
      expect(t.statusCode).toBe(200);
      expectDraftHeaders(t.headers, 'tRPC detail');
    }
    expectDraftHeaders((await call(app, owner, { method: 'GET', url: `/api/${k.kind}?limit=100` })).headers, 'the owner’s list (REST)');
    // compressed after the hook read it (through the app without the contract check, which reads plain JSON only)
    const ownList = await call(unchecked, owner, { method: 'GET', url: `/api/${k.kind}?limit=100`, headers: { 'accept-encoding': 'br' } });
    expect(ownList.headers['content-encoding']).toBe('br');
    expectDraftHeaders(ownList.headers, 'the owner’s list (REST, compressed)');
    const tCompressed = await call(unchecked, owner, {
      method: 'GET',
      url: `/trpc/${k.kind}.list?input=${encodeURIComponent(JSON.stringify({ json: { q: '' } }))}`,
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(tCompressed.headers['content-encoding']).toBe('gzip');
    expectDraftHeaders(tCompressed.headers, 'the owner’s list (tRPC, compressed)');
    const tList = await trpcGet(owner, `${k.kind}.list`, { q: '' });
    expectDraftHeaders(tList.headers, 'the owner’s list (tRPC)');
    // a batch of which one answer shows it
    const batch = await call(app, owner, {
      method: 'GET',
      url: `/trpc/${k.kind}.get,${k.kind}.get?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { json: { id: released._id } }, 1: { json: { id: draft._id } } }))}`,
    });
    expect(batch.statusCode).toBe(200);
    expectDraftHeaders(batch.headers, 'a tRPC batch');
    // updates, through tRPC's own handler and REST
    const update = await trpc(app, owner, 'mutation', `${k.kind}.update`, { id: draft._id, data: { title: 'Quieter plans' } });
    expect(update.status).toBe(200);
    expectDraftHeaders(update.headers, 'updating a draft (tRPC)');
    const restUpdate = await call(app, owner, { method: 'PUT', url: `/api/${k.kind}/${draft._id}`, payload: { title: 'Quietest plans' } });
    expectDraftHeaders(restUpdate.headers, 'updating a draft (REST)');

    // answers that show no draft: the released item, the public list, and a stranger's and a
    // visitor's 404 for the draft (the same as for a missing id)
    for (const who of [null, stranger, owner]) {
      expectPublicHeaders((await call(app, who, { method: 'GET', url: `/api/${k.kind}/${released._id}` })).headers, 'a released item (REST)');
      expectPublicHeaders((await trpcGet(who, `${k.kind}.get`, { id: released._id })).headers, 'a released item (tRPC)');
    }
    for (const who of [null, stranger]) {
      expectPublicHeaders((await call(app, who, { method: 'GET', url: `/api/${k.kind}?limit=100` })).headers, 'the public list');
      expectPublicHeaders((await trpcGet(who, `${k.kind}.list`, { q: '' })).headers, 'the public list (tRPC)');
      const seen = await call(app, who, { method: 'GET', url: `/api/${k.kind}/${draft._id}` });
      const missing = await call(app, who, { method: 'GET', url: `/api/${k.kind}/${randomUUID()}` });
      expect(seen.statusCode).toBe(404);
      expect({ body: seen.body, headers: { ...seen.headers, date: undefined } }).toEqual({
        body: missing.body,
        headers: { ...missing.headers, date: undefined },
      });
      expectPublicHeaders(seen.headers, 'a draft’s 404');
      const tSeen = await trpcGet(who, `${k.kind}.get`, { id: draft._id });
      expect(tSeen.statusCode).toBe(404);
      expectPublicHeaders(tSeen.headers, 'a draft’s 404 (tRPC)');
    }
    // once released, its answers are public ones
    const out = await call(app, owner, { method: 'PUT', url: `/api/${k.kind}/${draft._id}`, payload: { visibility: 'released' } });
    expect(out.statusCode).toBe(200);
    expectPublicHeaders(out.headers, 'releasing');
    expectPublicHeaders((await call(app, member, { method: 'GET', url: `/api/${k.kind}/${draft._id}` })).headers, 'a released item (member)');
  });
});
