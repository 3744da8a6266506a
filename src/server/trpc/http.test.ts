import { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
import type { FastifyInstance } from 'fastify';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../shared/messages';
import { CampaignSchema } from '../../shared/schemas/campaigns';
import { validateSessionToken } from '../auth/session';
import type { Actor } from '../deps';
import { buildTestApp, call, freshIp, openTestDatabase, signUp } from '../../../test/helpers';
import { appRouter, type AppRouter } from './router';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let base: string;
let alice: Awaited<ReturnType<typeof signUp>>;
let campaignId: string;
let commentId: string;

/** The app's own link (src/client/trpc.ts) over a real connection, as alice (bearer) or signed out. */
const client = (token?: string, batch = true) => {
  const link = (batch ? httpBatchLink : httpLink)({
    url: `${base}/trpc`,
    transformer: superjson,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return createTRPCClient<AppRouter>({ links: [link] });
};

/** The same procedure called in process, with zod parsing its declared answer: what tRPC's own handler answered. */
async function reference(token?: string) {
  let actor: Actor = { user: null, session: null, ip: '127.0.0.1' };
  if (token) {
    const valid = await validateSessionToken(app.deps.db, token);
    if (!valid) throw new Error('no session');
    actor = { user: valid.user, session: valid.session, ip: '127.0.0.1' };
  }
  return appRouter.createCaller({ actor, deps: app.deps, services: app.services, req: {} as never, res: { header() {} } as never });
}

/** Every Date in a value, by path: the answer's dates must arrive as Dates. */
function datesIn(v: unknown, path = '', out: string[] = []): string[] {
  if (v instanceof Date) out.push(path);
  else if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) datesIn(x, `${path}.${i}`, out);
  } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) datesIn(x, `${path}.${k}`, out);
  return out;
}

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('not listening');
  base = `http://127.0.0.1:${address.port}`;
  alice = await signUp(app, { username: 'alice' });
  const executionDate = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  const created = await call(app, alice, {
    method: 'POST',
    url: '/api/campaigns',
    payload: { title: 'Seed library', description: 'Seeds for everyone', tags: ['garden'], executionDate },
  });
  if (created.statusCode !== 201) throw new Error(created.body);
  campaignId = (created.json() as { _id: string })._id;
  await call(app, alice, { method: 'POST', url: '/api/campaigns', payload: { title: 'Tool library', tags: ['tools'] } });
  // a mutation through the link goes to tRPC's own handler
  const comment = await client(alice.token).comments.create.mutate({ campaignId, data: { text: 'First!' } });
  commentId = comment._id;
  await client(alice.token).favorites.add.mutate({ targetType: 'campaign', targetId: campaignId });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

describe('tRPC reads answered from the declared answer', () => {
  it('revive on the client exactly what the procedure declares, dates as Dates, one call or a batch', async () => {
    const calls = {
      me: (c: ReturnType<typeof client>) => c.auth.me.query(),
      list: (c: ReturnType<typeof client>) => c.campaigns.list.query({}),
      search: (c: ReturnType<typeof client>) => c.campaigns.list.query({ q: 'seed', limit: 5 }),
      get: (c: ReturnType<typeof client>) => c.campaigns.get.query({ id: campaignId }),
      comments: (c: ReturnType<typeof client>) => c.comments.list.query({ campaignId }),
      replies: (c: ReturnType<typeof client>) => c.comments.replies.query({ campaignId, commentId }),
      user: (c: ReturnType<typeof client>) => c.users.get.query({ id: alice.userId }),
      userCampaigns: (c: ReturnType<typeof client>) => c.users.campaigns.query({ userId: alice.userId }),
      favorites: (c: ReturnType<typeof client>) => c.favorites.list.query({}),
      favoriteIds: (c: ReturnType<typeof client>) => c.favorites.ids.query({ type: 'campaign', targetIds: [campaignId] }),
      teams: (c: ReturnType<typeof client>) => c.teams.mine.query({}),
      blocks: (c: ReturnType<typeof client>) => c.blocks.list.query(),
      supported: (c: ReturnType<typeof client>) => c.donations.supported.query(),
    };
    const ref = await reference(alice.token);
    const expected: Record<string, unknown> = {
      me: await ref.auth.me(),
      list: await ref.campaigns.list({}),
      search: await ref.campaigns.list({ q: 'seed', limit: 5 }),
      get: await ref.campaigns.get({ id: campaignId }),
      comments: await ref.comments.list({ campaignId }),
      replies: await ref.comments.replies({ campaignId, commentId }),
      user: await ref.users.get({ id: alice.userId }),
      userCampaigns: await ref.users.campaigns({ userId: alice.userId }),
      favorites: await ref.favorites.list({}),
      favoriteIds: await ref.favorites.ids({ type: 'campaign', targetIds: [campaignId] }),
      teams: await ref.teams.mine({}),
      blocks: await ref.blocks.list(),
      supported: await ref.donations.supported(),
    };
    for (const batch of [true, false]) {
      const c = client(alice.token, batch);
      // all at once: the batch link sends them as one request
      const got = await Promise.all(Object.values(calls).map((f) => f(c)));
      Object.keys(calls).forEach((name, i) => {
        expect(got[i], name).toEqual(expected[name]);
        expect(datesIn(got[i]), name).toEqual(datesIn(expected[name]));
      });
    }
    const campaign = expected.get as { createdAt: unknown; executionDate: unknown };
    expect(campaign.createdAt).toBeInstanceOf(Date);
    expect(campaign.executionDate).toBeInstanceOf(Date);
    expect(datesIn(expected.list).length).toBeGreaterThanOrEqual(4);
  });

  it("write superjson's format with only the declared fields", async () => {
    const input = encodeURIComponent(JSON.stringify({ json: { id: campaignId } }));
    const res = await fetch(`${base}/trpc/campaigns.get?input=${input}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('vary')).toBe('trpc-accept, accept');
    const body = (await res.json()) as { result: { data: { json: Record<string, unknown>; meta: { values: Record<string, string[]>; v: number } } } };
    const { json, meta } = body.result.data;
    expect(Object.keys(json).sort()).toEqual(
      Object.keys(CampaignSchema.shape)
        .filter((k) => json[k] !== undefined)
        .sort(),
    );
    expect(meta.v).toBe(1);
    expect(meta.values.createdAt).toEqual(['Date']);
    expect(meta.values.executionDate).toEqual(['Date']);
    expect(superjson.deserialize(body.result.data as Parameters<typeof superjson.deserialize>[0])).toEqual(
      await (await reference()).campaigns.get({ id: campaignId }),
    );
  });

  it("keep the shared schemas' errors and statuses, per call in a batch", async () => {
    const anon = client();
    const missing = '00000000-0000-4000-8000-000000000000';
    const rest = await call(app, { ip: freshIp() }, { method: 'GET', url: `/api/campaigns/${missing}` });
    const [notFound, badLimit, fine] = await Promise.allSettled([
      anon.campaigns.get.query({ id: missing }),
      anon.campaigns.list.query({ limit: 0 }),
      anon.campaigns.list.query({ limit: 1 }),
    ]);
    expect(notFound.status).toBe('rejected');
    const nf = (notFound as PromiseRejectedResult).reason as TRPCClientError<AppRouter>;
    expect(nf).toBeInstanceOf(TRPCClientError);
    expect(nf.data?.httpStatus).toBe(rest.statusCode);
    expect(nf.message).toBe((rest.json() as { error: string }).error);
    const bl = (badLimit as PromiseRejectedResult).reason as TRPCClientError<AppRouter>;
    expect(bl.data?.httpStatus).toBe(400);
    expect(bl.message).toBe(M.limitInvalid);
    expect(fine.status).toBe('fulfilled');
    expect((fine as PromiseFulfilledResult<{ items: unknown[] }>).value.items).toHaveLength(1);

    // the batch itself: one status per call, 207 for a mix
    const input = encodeURIComponent(JSON.stringify({ 0: { json: { id: missing } }, 1: { json: { limit: 1 } } }));
    const mixed = await fetch(`${base}/trpc/campaigns.get,campaigns.list?batch=1&input=${input}`);
    expect(mixed.status).toBe(207);
    const items = (await mixed.json()) as [{ error: { json: { data: { httpStatus: number } } } }, { result: unknown }];
    expect(items[0].error.json.data.httpStatus).toBe(404);
    expect(items[1].result).toBeDefined();

    // signed out where sign-in is needed
    await expect(anon.favorites.list.query({})).rejects.toMatchObject({ message: M.signInRequired, data: { httpStatus: 401 } });
  });

  it("leave unknown paths, mutations by GET and malformed input to tRPC's own answers", async () => {
    const unknown = await fetch(`${base}/trpc/campaigns.nope`);
    expect(unknown.status).toBe(404);
    const byGet = await fetch(`${base}/trpc/comments.create`);
    expect(byGet.status).toBe(405);
    const malformed = await fetch(`${base}/trpc/campaigns.list?input=%7Bnot-json`);
    expect(malformed.status).toBe(400);
    const tooMany = Array.from({ length: 21 }, () => 'campaigns.list').join(',');
    const big = await fetch(`${base}/trpc/${tooMany}?batch=1&input=%7B%7D`);
    expect(big.status).toBe(400);
  });
});
