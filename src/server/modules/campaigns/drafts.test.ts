import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { campaigns, changeHistory, projects } from '../../db/schema';
import { releaseDue } from '../../jobs/release';
import { createJobRunner } from '../../jobs/runner';
import { buildTestApp, call, openTestDatabase, signUpVerified, trpc, type Client } from '../../../../test/helpers';

/**
 * Drafts and scheduled release (issue #30, "States"), for campaigns and projects on both doors:
 * a draft is its owner's alone; to a visitor and a signed-in stranger it answers exactly what a
 * missing item answers, and no list, search, total, tag suggestion, profile tab or favorite shows
 * it; a released item never goes back; money and support wait for the release; the release job
 * releases what is due, once, and the history says who released it.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let owner: Client & { userId: string };
let stranger: Client & { userId: string };

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  owner = await signUpVerified(app, database, { username: 'd_owner' });
  stranger = await signUpVerified(app, database, { username: 'd_stranger' });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const KINDS = [
  { kind: 'campaigns', one: 'campaign', table: campaigns, notFound: M.campaignNotFound },
  { kind: 'projects', one: 'project', table: projects, notFound: M.projectNotFound },
] as const;

type Kind = (typeof KINDS)[number];

async function create(k: Kind, who: Client, payload: Record<string, unknown>) {
  const res = await call(app, who, { method: 'POST', url: `/api/${k.kind}`, payload });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return res.json() as { _id: string; visibility: string; releaseAt: string | null };
}

/** What each door answers a caller for one item: detail, list, search, and a tag's suggestion. */
async function seenBy(k: Kind, who: Client | null, id: string, word: string) {
  const rest = await call(app, who, { method: 'GET', url: `/api/${k.kind}/${id}` });
  const t = await trpc(app, who, 'query', `${k.kind}.get`, { id });
  const list = (await call(app, who, { method: 'GET', url: `/api/${k.kind}?limit=100` })).json() as { items: { _id: string }[]; total: number };
  const search = (await call(app, who, { method: 'GET', url: `/api/${k.kind}?q=${word}` })).json() as { items: { _id: string }[]; total: number };
  const tList = await trpc(app, who, 'query', `${k.kind}.list`, { q: word });
  const tags = (await call(app, who, { method: 'GET', url: `/api/tags?q=${word}` })).json() as { tags: string[] };
  const tTags = await trpc(app, who, 'query', 'tags.search', { q: word });
  return {
    rest: { status: rest.statusCode, body: rest.json() },
    trpc: { status: t.status, error: t.error ? { message: t.error.message, code: t.error.data.code } : null },
    inList: list.items.some((i) => i._id === id),
    total: list.total,
    inSearch: search.items.some((i) => i._id === id) || search.total > 0,
    inTrpcSearch: (tList.data.items as { _id: string }[]).some((i) => i._id === id),
    tag: tags.tags.includes(word),
    trpcTag: (tTags.data.tags as string[]).includes(word),
  };
}

describe.each(KINDS)('a draft $one', (k) => {
  it('is its owner’s alone: to a visitor and a stranger it is exactly a missing one, on both doors, in every list, search, total and tag', async () => {
    const word = `draftword${k.one}`;
    const before = (await call(app, null, { method: 'GET', url: `/api/${k.kind}` })).json().total as number;
    const draft = await create(k, owner, { title: `Secret ${word}`, tags: [word], visibility: 'draft' });
    expect(draft).toMatchObject({ visibility: 'draft', releaseAt: null });
    const missing = randomUUID();
    for (const who of [null, stranger]) {
      const seen = await seenBy(k, who, draft._id, word);
      const gone = await seenBy(k, who, missing, word);
      // the same status and body as an id that names nothing
      expect(seen.rest).toEqual(gone.rest);
      expect(seen.rest).toEqual({ status: 404, body: { error: k.notFound } });
      expect(seen.trpc).toEqual(gone.trpc);
      expect(seen).toMatchObject({ inList: false, inSearch: false, inTrpcSearch: false, tag: false, trpcTag: false, total: before });
    }
    const mine = await seenBy(k, owner, draft._id, word);
    expect(mine.rest.status).toBe(200);
    expect(mine.rest.body).toMatchObject({ _id: draft._id, visibility: 'draft' });
    expect(mine).toMatchObject({ inList: true, inSearch: true, inTrpcSearch: true, tag: true, trpcTag: true, total: before + 1 });
    expect(mine.trpc.status).toBe(200);

    // a favorite of it is refused as of a missing item; a profile tab does not show it
    const fav = await call(app, stranger, { method: 'POST', url: '/api/favorites', payload: { targetType: k.one, targetId: draft._id } });
    const favMissing = await call(app, stranger, { method: 'POST', url: '/api/favorites', payload: { targetType: k.one, targetId: missing } });
    expect({ status: fav.statusCode, body: fav.json() }).toEqual({ status: favMissing.statusCode, body: favMissing.json() });
    const tab =
      k.kind === 'campaigns'
        ? (await call(app, stranger, { method: 'GET', url: `/api/public/users/${owner.userId}/campaigns` })).json()
        : (await call(app, stranger, { method: 'GET', url: `/api/projects?ownerId=${owner.userId}` })).json();
    expect((tab.items as { _id: string }[]).some((i) => i._id === draft._id)).toBe(false);

    // released by its owner: everyone sees it, and it never goes back
    const released = await call(app, owner, { method: 'PUT', url: `/api/${k.kind}/${draft._id}`, payload: { visibility: 'released' } });
    expect(released.statusCode).toBe(200);
    expect(released.json()).toMatchObject({ visibility: 'released', releaseAt: null });
    const after = await seenBy(k, null, draft._id, word);
    expect(after).toMatchObject({ inList: true, inSearch: true, tag: true, total: before + 1 });
    expect(after.rest.status).toBe(200);
    const back = await call(app, owner, { method: 'PUT', url: `/api/${k.kind}/${draft._id}`, payload: { visibility: 'draft' } });
    expect({ status: back.statusCode, body: back.json() }).toEqual({ status: 400, body: { error: M.cannotUnrelease } });
    const tBack = await trpc(app, owner, 'mutation', `${k.kind}.update`, { id: draft._id, data: { visibility: 'draft' } });
    expect(tBack.error).toMatchObject({ message: M.cannotUnrelease, data: { httpStatus: 400 } });
    const history = await database.db
      .select()
      .from(changeHistory)
      .where(and(eq(changeHistory.key, draft._id), eq(changeHistory.action, 'update')));
    expect(history.map((h) => ({ fields: h.fields, actor: h.actorId }))).toEqual([{ fields: ['releasedAt'], actor: owner.userId }]);
  });

  it('is released by default (spec clients), scheduled with a future releaseAt, moved, cancelled, and a past time is refused', async () => {
    expect((await create(k, owner, { title: 'Plain' })).visibility).toBe('released');
    const past = await call(app, owner, {
      method: 'POST',
      url: `/api/${k.kind}`,
      payload: { title: 'Late', releaseAt: new Date(Date.now() - 60_000).toISOString() },
    });
    expect({ status: past.statusCode, body: past.json() }).toEqual({ status: 400, body: { error: M.releaseAtPast } });
    const both = await call(app, owner, {
      method: 'POST',
      url: `/api/${k.kind}`,
      payload: { title: 'Both', visibility: 'released', releaseAt: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect({ status: both.statusCode, body: both.json() }).toEqual({ status: 400, body: { error: M.releaseAtWithReleased } });
    const bad = await call(app, owner, { method: 'POST', url: `/api/${k.kind}`, payload: { title: 'Odd', visibility: 'hidden' } });
    expect({ status: bad.statusCode, body: bad.json() }).toEqual({ status: 400, body: { error: M.visibilityInvalid } });

    const at = new Date(Date.now() + 3 * 86_400_000);
    const scheduled = await create(k, owner, { title: 'Soon', releaseAt: at.toISOString() });
    expect(scheduled).toMatchObject({ visibility: 'scheduled', releaseAt: at.toISOString() });
    expect((await call(app, stranger, { method: 'GET', url: `/api/${k.kind}/${scheduled._id}` })).statusCode).toBe(404);
    const later = new Date(at.getTime() + 3_600_000);
    const moved = await trpc(app, owner, 'mutation', `${k.kind}.update`, { id: scheduled._id, data: { releaseAt: later.toISOString() } });
    expect(moved.data).toMatchObject({ visibility: 'scheduled' });
    expect(new Date(moved.data.releaseAt).getTime()).toBe(later.getTime());
    const cancelled = await call(app, owner, { method: 'PUT', url: `/api/${k.kind}/${scheduled._id}`, payload: { releaseAt: null } });
    expect(cancelled.json()).toMatchObject({ visibility: 'draft', releaseAt: null });
    // a stranger cannot release someone else's draft: it does not exist for them
    const theirs = await call(app, stranger, { method: 'PUT', url: `/api/${k.kind}/${scheduled._id}`, payload: { visibility: 'released' } });
    expect({ status: theirs.statusCode, body: theirs.json() }).toEqual({ status: 404, body: { error: k.notFound } });
  });

  it('is released by the job once its time has come, exactly once, recorded as the system’s', async () => {
    const draft = await create(k, owner, { title: 'Timed', releaseAt: new Date(Date.now() + 60_000).toISOString() });
    // not yet
    await releaseDue(database.db, new Date());
    expect((await call(app, null, { method: 'GET', url: `/api/${k.kind}/${draft._id}` })).statusCode).toBe(404);
    // its time passed while nobody ran the job: the next passes (two at once) catch up, once
    const later = new Date(Date.now() + 120_000);
    const [a, b] = await Promise.all([releaseDue(database.db, later), releaseDue(database.db, later)]);
    expect(a + b).toBeGreaterThanOrEqual(1);
    const seen = await call(app, null, { method: 'GET', url: `/api/${k.kind}/${draft._id}` });
    expect(seen.statusCode).toBe(200);
    expect(seen.json()).toMatchObject({ visibility: 'released', releaseAt: null });
    const history = await database.db
      .select()
      .from(changeHistory)
      .where(and(eq(changeHistory.key, draft._id), eq(changeHistory.action, 'update')));
    expect(history.map((h) => ({ fields: h.fields, actor: h.actorId, subject: h.subjectUserId }))).toEqual([
      { fields: ['releasedAt', 'releaseAt'], actor: null, subject: owner.userId },
    ]);
    expect(await releaseDue(database.db, later)).toBe(0);
  });
});

describe('the release tick', () => {
  it('runs on its own schedule (every minute in production) once the jobs are started, and a run of the jobs releases too', async () => {
    const k = KINDS[0];
    const runner = createJobRunner({
      db: database.db,
      storage: app.deps.storage,
      services: app.services,
      log: app.log,
      intervalMs: 3_600_000,
      releaseIntervalMs: 25,
    });
    const soon = await create(k, owner, { title: 'On the tick', releaseAt: new Date(Date.now() + 1_000).toISOString() });
    runner.start();
    try {
      await expect
        .poll(async () => (await call(app, null, { method: 'GET', url: `/api/${k.kind}/${soon._id}` })).statusCode, { timeout: 30_000, interval: 100 })
        .toBe(200);
    } finally {
      await runner.stop();
    }
    // the scheduled run (the admin's Run now) releases what is due as well, and counts it
    const due = await create(KINDS[1], owner, { title: 'On the run', releaseAt: new Date(Date.now() + 60_000).toISOString() });
    const run = await app.jobs.runNow(new Date(Date.now() + 120_000));
    expect(run?.counts).toMatchObject({ released: 1 });
    expect((await call(app, stranger, { method: 'GET', url: `/api/projects/${due._id}` })).statusCode).toBe(200);
  });
});

describe('money and support on a draft', () => {
  it('are refused with a clear message, even for its owner, and open at release', async () => {
    const draft = await create(KINDS[0], owner, { title: 'Not yet open', actionMode: 'both', visibility: 'draft' });
    const donate = (who: Client) =>
      call(app, who, {
        method: 'POST',
        url: `/api/campaigns/${draft._id}/donations`,
        headers: { 'idempotency-key': randomUUID() },
        payload: { amount: 5, card: '4242424242424242' },
      });
    const d = await donate(owner);
    expect({ status: d.statusCode, body: d.json() }).toEqual({ status: 409, body: { error: M.draftClosed } });
    const s = await call(app, owner, { method: 'POST', url: `/api/campaigns/${draft._id}/support`, payload: {} });
    expect({ status: s.statusCode, body: s.json() }).toEqual({ status: 409, body: { error: M.draftClosed } });
    // a stranger: as for a missing campaign
    expect((await donate(stranger)).statusCode).toBe(404);
    await call(app, owner, { method: 'PUT', url: `/api/campaigns/${draft._id}`, payload: { visibility: 'released' } });
    expect((await donate(stranger)).statusCode).toBe(201);
  });
});
