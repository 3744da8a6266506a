import { and, count, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { campaignUpdates, changeHistory, emailOutbox, images as uploads, users } from '../../db/schema';
import { deleteUnreferencedUploads } from '../../jobs/cleanup';
import { WRITE_BUDGETS } from '../../lib/rate-limit';
import { buildTestApp, call, freshIp, openTestDatabase, signUp, trpc, uploadImages, type Client } from '../../../../test/helpers';
import { setAdmin } from '../users/admin-grant';

/*
 * Updates to backers (issue #33 item 5), on both doors (REST /api/campaigns/{id}/updates and
 * tRPC updates.*): who reads an update and who gets a locked teaser, who is emailed (once, in the
 * post's transaction), owner-only writes, an invisible campaign's 404, and input refused with
 * the texts of shared/messages.ts and nothing stored.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
type Person = Awaited<ReturnType<typeof signUp>>;
let owner: Person;
let donor: Person;
let supporter: Person;
let fan: Person;
let stranger: Person;
let admin: Person;
const GUEST = 'guest.backer@example.com';
const anonymous: Client = { ip: '10.250.0.1' };
let keySeq = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  owner = await signUp(app, { username: 'up_owner' });
  donor = await signUp(app, { username: 'up_donor' });
  supporter = await signUp(app, { username: 'up_supporter' });
  fan = await signUp(app, { username: 'up_fan' });
  stranger = await signUp(app, { username: 'up_stranger' });
  admin = await signUp(app, { username: 'up_admin' });
  await setAdmin(database.db, admin.email, true);
  for (const who of [owner, donor, supporter, fan, stranger, admin]) {
    await database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, who.userId));
  }
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

/** A released campaign of the owner's with a donor's gift, a guest's gift, a supporter, and a fan (the donor favorites it too). */
async function backedCampaign(title: string): Promise<string> {
  const res = await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title, actionMode: 'both' } });
  expect(res.statusCode).toBe(201);
  const id = res.json()._id as string;
  for (const [who, extra] of [
    [donor, {}],
    [anonymous, { email: GUEST }],
  ] as const) {
    const paid = await call(app, who, {
      method: 'POST',
      url: `/api/campaigns/${id}/donations`,
      headers: { 'idempotency-key': `updates-gift-${++keySeq}-${Date.now()}` },
      payload: { amount: 5, card: '4242424242424242', ...extra },
    });
    expect(paid.statusCode).toBe(201);
    expect(paid.json().status).toBe('succeeded');
  }
  expect((await call(app, supporter, { method: 'POST', url: `/api/campaigns/${id}/support`, payload: {} })).statusCode).toBe(201);
  for (const who of [fan, donor, owner]) {
    const fav = await call(app, who, { method: 'POST', url: '/api/favorites', payload: { targetType: 'campaign', targetId: id } });
    expect(fav.statusCode).toBeLessThan(300);
  }
  return id;
}

const post = (who: Client | null, id: string, payload: Record<string, unknown>) =>
  call(app, who, { method: 'POST', url: `/api/campaigns/${id}/updates`, payload });
const list = (who: Client | null, id: string, query = '') => call(app, who, { method: 'GET', url: `/api/campaigns/${id}/updates${query}` });
const updateRows = async () => Number((await database.db.select({ n: count() }).from(campaignUpdates))[0].n);
const mailsOf = async (kind = 'campaign_update') =>
  database.db.select({ to: emailOutbox.to, subject: emailOutbox.subject, text: emailOutbox.text }).from(emailOutbox).where(eq(emailOutbox.kind, kind));
const mailCount = async () => Number((await database.db.select({ n: count() }).from(emailOutbox).where(eq(emailOutbox.kind, 'campaign_update')))[0].n);

describe('who reads an update', () => {
  it('shows public updates to everyone and backers-only ones to donors, supporters, the owner and admins; others get a teaser; newest first on both doors', async () => {
    const id = await backedCampaign('Reading room');
    const images = await uploadImages(app, owner, 2);
    const pub = await post(owner, id, { title: 'Public news', body: 'Everyone may read this.' });
    expect(pub.statusCode).toBe(201);
    const secret = await post(owner, id, { title: 'Backers news', body: 'Only for backers.', audience: 'backers', images });
    expect(secret.statusCode).toBe(201);
    expect(secret.json()).toMatchObject({ title: 'Backers news', body: 'Only for backers.', audience: 'backers', locked: false, images });

    for (const [name, who] of [
      ['owner', owner],
      ['donor', donor],
      ['supporter', supporter],
      ['admin', admin],
    ] as const) {
      const rest = await list(who, id);
      expect([name, rest.statusCode]).toEqual([name, 200]);
      const items = rest.json().items;
      expect([name, items.map((u: { title: string; locked: boolean; body: string | null }) => [u.title, u.locked, u.body])]).toEqual([
        name,
        [
          ['Backers news', false, 'Only for backers.'],
          ['Public news', false, 'Everyone may read this.'],
        ],
      ]);
      expect(items[0].images).toEqual(images);
      expect(rest.json().canPost).toBe(name === 'owner');
      const t = await trpc(app, who, 'query', 'updates.list', { campaignId: id });
      expect([name, t.status, t.data.items.map((u: { locked: boolean }) => u.locked)]).toEqual([name, 200, [false, false]]);
    }
    // a fan (favorited, gave nothing), a stranger and the signed-out: the teaser
    for (const [name, who] of [
      ['fan', fan],
      ['stranger', stranger],
      ['signed out', null],
    ] as const) {
      const items = (await list(who, id)).json().items;
      expect([name, items[0]]).toEqual([
        name,
        {
          _id: secret.json()._id,
          campaignId: id,
          title: 'Backers news',
          audience: 'backers',
          locked: true,
          body: null,
          images: [],
          createdAt: expect.any(String),
          editedAt: null,
        },
      ]);
      expect([name, items[1].locked, items[1].body]).toEqual([name, false, 'Everyone may read this.']);
      const t = await trpc(app, who, 'query', 'updates.list', { campaignId: id });
      expect([name, t.data.items[0].locked, t.data.items[0].body, t.data.items[0].images]).toEqual([name, true, null, []]);
      const one = await call(app, who, { method: 'GET', url: `/api/campaigns/${id}/updates/${secret.json()._id}` });
      expect([name, one.statusCode, one.json().locked, one.json().body]).toEqual([name, 200, true, null]);
    }
    const one = await call(app, donor, { method: 'GET', url: `/api/campaigns/${id}/updates/${secret.json()._id}` });
    expect([one.json().locked, one.json().body]).toEqual([false, 'Only for backers.']);
  });

  it('pages newest first by cursor', async () => {
    const id = (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Pages' } })).json()._id as string;
    for (const n of [1, 2, 3]) expect((await post(owner, id, { title: `Update ${n}`, body: 'text' })).statusCode).toBe(201);
    const first = (await list(stranger, id, '?limit=2')).json();
    expect(first.items.map((u: { title: string }) => u.title)).toEqual(['Update 3', 'Update 2']);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = (await list(stranger, id, `?limit=2&cursor=${first.nextCursor}`)).json();
    expect(second.items.map((u: { title: string }) => u.title)).toEqual(['Update 1']);
    expect(second.nextCursor).toBeNull();
    const t = await trpc(app, stranger, 'query', 'updates.list', { campaignId: id, limit: 2, cursor: first.nextCursor });
    expect(t.data.items.map((u: { title: string }) => u.title)).toEqual(['Update 1']);
    expect((await list(stranger, id, '?cursor=nonsense')).json()).toEqual({ error: M.cursorInvalid });
  });

  it('keeps a draft’s updates to its owner: 404 to everybody else on both doors', async () => {
    const draft = await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Secret draft', visibility: 'draft' } });
    expect(draft.statusCode).toBe(201);
    const id = draft.json()._id as string;
    const before = await mailCount();
    const posted = await post(owner, id, { title: 'Draft news', body: 'Nobody hears of this yet.' });
    expect(posted.statusCode).toBe(201);
    expect(posted.json().emailed).toBe(0);
    expect(await mailCount()).toBe(before);
    expect((await list(owner, id)).json().items).toHaveLength(1);
    for (const who of [stranger, admin, donor, null]) {
      expect((await list(who, id)).json()).toEqual({ error: M.campaignNotFound });
      expect((await list(who, id)).statusCode).toBe(404);
      const t = await trpc(app, who, 'query', 'updates.list', { campaignId: id });
      expect([t.status, t.error?.message]).toEqual([404, M.campaignNotFound]);
    }
    for (const who of [stranger, admin]) {
      const res = await post(who, id, { title: 'x', body: 'y' });
      expect([res.statusCode, res.json()]).toEqual([404, { error: M.campaignNotFound }]);
      const put = await call(app, who, { method: 'PUT', url: `/api/campaigns/${id}/updates/${posted.json()._id}`, payload: { title: 'x' } });
      expect(put.statusCode).toBe(404);
    }
    expect((await list(stranger, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await list(stranger, 'not-an-id')).statusCode).toBe(404);
  });
});

describe('who is emailed', () => {
  it('emails a public update to donors, supporters, guests and fans, a backers-only one to donors and supporters; never the owner, each address once, never for an edit', async () => {
    const id = await backedCampaign('Mail room');
    const before = await mailsOf();
    const pub = await post(owner, id, { title: 'Hello all', body: 'First paragraph.\n\nSecond paragraph.' });
    expect(pub.statusCode).toBe(201);
    const afterPublic = (await mailsOf()).filter((m) => !before.some((b) => b.to === m.to && b.subject === m.subject));
    const everyone = [donor.email, supporter.email, fan.email, GUEST].map((e) => e.toLowerCase()).sort();
    expect(afterPublic.map((m) => m.to).sort()).toEqual(everyone);
    expect(pub.json().emailed).toBe(4);
    expect(afterPublic[0].subject).toBe('Mail room: Hello all');
    expect(afterPublic[0].text).toContain('Second paragraph.');
    expect(afterPublic[0].text).toContain(`/campaigns/${id}#update-${pub.json()._id}`);

    const t = await trpc(app, owner, 'mutation', 'updates.create', {
      campaignId: id,
      data: { title: 'Backers only', body: 'Thank you.', audience: 'backers' },
    });
    expect(t.status).toBe(200);
    expect(t.data.emailed).toBe(3);
    const backersMail = (await mailsOf()).filter((m) => m.subject === 'Mail room: Backers only');
    expect(backersMail.map((m) => m.to).sort()).toEqual([donor.email, supporter.email, GUEST].map((e) => e.toLowerCase()).sort());
    expect(backersMail[0].text).toContain('Thank you.');

    // edits are not emailed again
    const total = await mailCount();
    const edit = await call(app, owner, { method: 'PUT', url: `/api/campaigns/${id}/updates/${pub.json()._id}`, payload: { body: 'Corrected.' } });
    expect(edit.statusCode).toBe(200);
    expect(edit.json()).toMatchObject({ body: 'Corrected.', title: 'Hello all', editedAt: expect.any(String) });
    const tEdit = await trpc(app, owner, 'mutation', 'updates.update', { campaignId: id, updateId: t.data._id, data: { title: 'Backers only (fixed)' } });
    expect([tEdit.status, tEdit.data.title]).toEqual([200, 'Backers only (fixed)']);
    expect(await mailCount()).toBe(total);
    // nobody's address is in an answer
    expect(JSON.stringify((await list(stranger, id)).json())).not.toContain('@');
  });
});

describe('who writes', () => {
  it('lets only the owner post, edit and delete (403 to others, admins included; 401 signed out), on both doors', async () => {
    const id = await backedCampaign('Owner only');
    const mine = (await post(owner, id, { title: 'Mine', body: 'text' })).json();
    const rows = await updateRows();
    const mails = await mailCount();
    for (const who of [stranger, donor, admin]) {
      expect((await post(who, id, { title: 'Not mine', body: 'text' })).json()).toEqual({ error: M.updateNotOwner });
      const put = await call(app, who, { method: 'PUT', url: `/api/campaigns/${id}/updates/${mine._id}`, payload: { title: 'Hijack' } });
      expect([put.statusCode, put.json()]).toEqual([403, { error: M.updateNotOwner }]);
      const del = await call(app, who, { method: 'DELETE', url: `/api/campaigns/${id}/updates/${mine._id}` });
      expect([del.statusCode, del.json()]).toEqual([403, { error: M.updateNotOwner }]);
      const t = await trpc(app, who, 'mutation', 'updates.create', { campaignId: id, data: { title: 'Not mine', body: 'text' } });
      expect([t.status, t.error?.message]).toEqual([403, M.updateNotOwner]);
      const tDel = await trpc(app, who, 'mutation', 'updates.delete', { campaignId: id, updateId: mine._id });
      expect([tDel.status, tDel.error?.message]).toEqual([403, M.updateNotOwner]);
    }
    expect((await post(null, id, { title: 'x', body: 'y' })).statusCode).toBe(401);
    expect((await trpc(app, null, 'mutation', 'updates.create', { campaignId: id, data: { title: 'x', body: 'y' } })).status).toBe(401);
    expect(await updateRows()).toBe(rows);
    expect(await mailCount()).toBe(mails);
    expect((await list(stranger, id)).json().items[0]).toMatchObject({ title: 'Mine', editedAt: null });

    // the owner deletes, on each door; an unknown update is a 404
    const other = (await post(owner, id, { title: 'Second', body: 'text' })).json();
    expect((await call(app, owner, { method: 'DELETE', url: `/api/campaigns/${id}/updates/${mine._id}` })).statusCode).toBe(204);
    const tDel = await trpc(app, owner, 'mutation', 'updates.delete', { campaignId: id, updateId: other._id });
    expect([tDel.status, tDel.data]).toEqual([200, { deleted: true }]);
    expect((await list(owner, id)).json().items).toEqual([]);
    const gone = await call(app, owner, { method: 'DELETE', url: `/api/campaigns/${id}/updates/${mine._id}` });
    expect([gone.statusCode, gone.json()]).toEqual([404, { error: M.updateNotFound }]);

    // every change is in the history, without values
    const history = await database.db
      .select({ action: changeHistory.action, fields: changeHistory.fields, actorId: changeHistory.actorId })
      .from(changeHistory)
      .where(and(eq(changeHistory.modelName, 'CampaignUpdate'), eq(changeHistory.key, mine._id)));
    expect(history.map((h) => h.action).sort()).toEqual(['create', 'delete']);
    expect(history.every((h) => h.actorId === owner.userId)).toBe(true);
  });
});

describe('what is refused', () => {
  it('answers the texts of bad input on both doors and stores and emails nothing', async () => {
    const id = await backedCampaign('Bad input');
    const stray = await uploadImages(app, stranger, 1);
    const eleven = Array.from({ length: 11 }, (_, i) => ({ url: `/uploads/x${i}.webp`, alt: '' }));
    const cases: [Record<string, unknown>, string][] = [
      [{ title: '', body: 'text' }, M.updateTitleRequired],
      [{ title: '   ', body: 'text' }, M.updateTitleRequired],
      [{ body: 'text' }, M.updateTitleRequired],
      [{ title: 'x'.repeat(121), body: 'text' }, M.updateTitleTooLong],
      [{ title: 'Title', body: '' }, M.updateBodyRequired],
      [{ title: 'Title', body: 'x'.repeat(10_001) }, M.updateBodyTooLong],
      [{ title: 'Title', body: 'text', audience: 'friends' }, M.updateAudienceInvalid],
      [{ title: 'Title', body: 'text', images: eleven }, M.updateTooManyImages],
      [{ title: 'Title', body: 'text', images: stray }, M.imageNotUploaded],
    ];
    const rows = await updateRows();
    const mails = await mailCount();
    for (const [payload, error] of cases) {
      const res = await post(owner, id, payload);
      expect([payload.title, res.statusCode, res.json()]).toEqual([payload.title, 400, { error }]);
      const t = await trpc(app, owner, 'mutation', 'updates.create', { campaignId: id, data: payload });
      expect([payload.title, t.status, t.error?.message]).toEqual([payload.title, 400, error]);
    }
    // the limits themselves pass
    const edge = await post(owner, id, { title: 'x'.repeat(120), body: 'y'.repeat(10_000) });
    expect(edge.statusCode).toBe(201);
    expect(await updateRows()).toBe(rows + 1);
    const edgeMails = await mailCount();
    expect(edgeMails).toBe(mails + 4);

    // an edit is checked alike, and a refused one changes nothing
    for (const [payload, error] of cases.filter(([p]) => 'title' in p && p.title !== 'Title')) {
      const put = await call(app, owner, { method: 'PUT', url: `/api/campaigns/${id}/updates/${edge.json()._id}`, payload });
      expect([put.statusCode, put.json()]).toEqual([400, { error }]);
    }
    const stored = await database.db.select().from(campaignUpdates).where(eq(campaignUpdates.id, edge.json()._id));
    expect([stored[0].title.length, stored[0].editedAt]).toEqual([120, null]);
    expect(await mailCount()).toBe(edgeMails);
  });

  it('spends a write budget of its own: 10 updates an hour, then 429 with Retry-After, nothing stored', async () => {
    const limited = await buildTestApp(database, { writeLimits: true });
    try {
      const poster = await signUp(limited, { username: 'up_busy' });
      const who = { ...poster, ip: freshIp() };
      const id = (await call(limited, who, { method: 'POST', url: '/api/campaigns', payload: { title: 'Busy' } })).json()._id as string;
      const limit = WRITE_BUDGETS.update[0].limit;
      for (let i = 0; i < limit; i++) {
        expect((await call(limited, who, { method: 'POST', url: `/api/campaigns/${id}/updates`, payload: { title: `n${i}`, body: 'b' } })).statusCode).toBe(
          201,
        );
      }
      const rows = await updateRows();
      const over = await call(limited, who, { method: 'POST', url: `/api/campaigns/${id}/updates`, payload: { title: 'one more', body: 'b' } });
      expect(over.statusCode).toBe(429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      expect(await updateRows()).toBe(rows);
    } finally {
      await limited.close();
    }
  });
});

describe('images of updates', () => {
  it('serves a backers-only update’s pictures to the owner, admins and backers only, a public update’s to everyone', async () => {
    const id = await backedCampaign('Picture room');
    const [secretImg, publicImg] = await uploadImages(app, owner, 2);
    expect((await post(owner, id, { title: 'For backers', body: 'A picture.', audience: 'backers', images: [secretImg] })).statusCode).toBe(201);
    expect((await post(owner, id, { title: 'For all', body: 'A picture.', images: [publicImg] })).statusCode).toBe(201);
    const get = (who: Client | null, url: string) => call(app, who, { method: 'GET', url });
    for (const [name, who] of [
      ['owner', owner],
      ['donor', donor],
      ['supporter', supporter],
      ['admin', admin],
    ] as const) {
      const res = await get(who, secretImg.url);
      expect([name, res.statusCode, res.headers['cache-control'], res.headers['content-type']]).toEqual([name, 200, 'private, no-store', 'image/webp']);
    }
    // to anyone else it is a file that does not exist
    const missing = await get(null, secretImg.url.replace(/[0-9a-f]{8}-/, '00000000-'));
    expect(missing.statusCode).toBe(404);
    for (const [name, who] of [
      ['fan', fan],
      ['stranger', stranger],
      ['signed out', null],
    ] as const) {
      const res = await get(who, secretImg.url);
      expect([name, res.statusCode, res.body]).toEqual([name, 404, missing.body]);
    }
    for (const who of [stranger, null]) {
      const res = await get(who, publicImg.url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toContain('public');
    }
  });

  it('keeps an update’s images when the cleanup job removes unreferenced uploads', async () => {
    const id = (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Pictures' } })).json()._id as string;
    const [kept, stray] = await uploadImages(app, owner, 2);
    expect((await post(owner, id, { title: 'With a picture', body: 'Look.', images: [kept] })).statusCode).toBe(201);
    const urls = [kept.url, stray.url];
    await database.db
      .update(uploads)
      .set({ createdAt: new Date(Date.now() - 3 * 86_400_000) })
      .where(inArray(uploads.url, urls));
    const removed: string[] = [];
    await deleteUnreferencedUploads({ db: database.db, storage: { delete: async (key: string) => void removed.push(key) } as never, log: app.log });
    const left = await database.db.select({ url: uploads.url }).from(uploads).where(inArray(uploads.url, urls));
    expect(left.map((r) => r.url)).toEqual([kept.url]);
    expect(removed).toHaveLength(1);
  });
});
