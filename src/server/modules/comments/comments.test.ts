import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { comments } from '../../db/schema';
import { setAdmin } from '../users/admin-grant';
import { buildTestApp, call, openTestDatabase, signUp, trpc, uploadImages, type Client } from '../../../../test/helpers';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let owner: Awaited<ReturnType<typeof signUp>>;
let ann: Awaited<ReturnType<typeof signUp>>;
let ben: Awaited<ReturnType<typeof signUp>>;
let admin: Awaited<ReturnType<typeof signUp>>;
let campaignId: string;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  owner = await signUp(app, { username: 'c_owner' });
  ann = await signUp(app, { username: 'c_ann' });
  ben = await signUp(app, { username: 'c_ben' });
  admin = await signUp(app, { username: 'c_admin' });
  await setAdmin(database.db, admin.email, true);
  campaignId = (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Talk about it' } })).json()._id;
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const url = (id = campaignId) => `/api/campaigns/${id}/comments`;
const post = (who: Client | null, payload: object, id = campaignId) => call(app, who, { method: 'POST', url: url(id), payload });
const list = async (who: Client | null) => (await call(app, who, { method: 'GET', url: url() })).json();

describe('comments', () => {
  it('posts comments and replies; a reply to a reply joins the thread', async () => {
    const c = await post(ann, { text: '  First!  ' });
    expect(c.statusCode).toBe(201);
    expect(c.json()).toMatchObject({ text: 'First!', parentId: null, editedAt: null, deletedAt: null, userId: { _id: ann.userId, username: 'c_ann' } });
    const reply = (await post(ben, { text: 'Welcome', parentId: c.json()._id })).json();
    const nested = (await post(ann, { text: 'Thanks', parentId: reply._id })).json();
    expect(nested.parentId).toBe(c.json()._id);
    const threads = await list(null);
    const thread = threads.find((t: { _id: string }) => t._id === c.json()._id);
    expect(thread.replies.map((r: { text: string }) => r.text)).toEqual(['Welcome', 'Thanks']);
    expect(JSON.stringify(threads)).not.toMatch(/@example\.com/);
  });

  it('keeps an image the author uploaded', async () => {
    const [img] = await uploadImages(app, ann, 1);
    const c = await post(ann, { text: 'Look', imageUrl: img.url });
    expect(c.json().imageUrl).toBe(img.url);
    expect((await post(ann, { text: 'Look', imageUrl: 'https://elsewhere.example/x.png' })).statusCode).toBe(400);
  });

  it.each([
    [{ text: '' }, 'Write something first'],
    [{ text: '    ' }, 'Write something first'],
    [{}, 'Write something first'],
    [{ text: 'x'.repeat(5001) }, 'A comment can be at most 5000 characters'],
  ])('refuses %j with 400 and stores nothing', async (payload, message) => {
    const before = (await database.db.select().from(comments)).length;
    const res = await post(ann, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: message });
    expect((await database.db.select().from(comments)).length).toBe(before);
  });

  it('accepts exactly 5000 characters', async () => {
    expect((await post(ann, { text: 'y'.repeat(5000) })).statusCode).toBe(201);
  });

  it('refuses signed-out callers, unknown campaigns and unknown parents', async () => {
    expect((await post(null, { text: 'hi' })).statusCode).toBe(401);
    expect((await post(ann, { text: 'hi' }, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await post(ann, { text: 'hi', parentId: '00000000-0000-4000-8000-000000000000' })).statusCode).toBe(404);
    expect((await call(app, null, { method: 'GET', url: url('nope') })).statusCode).toBe(404);
  });

  it('lets only the author edit, and marks the edit', async () => {
    const c = (await post(ann, { text: 'Typo hree' })).json();
    const byBen = await call(app, ben, { method: 'PUT', url: `${url()}/${c._id}`, payload: { text: 'Hijacked' } });
    expect(byBen.statusCode).toBe(403);
    const byOwner = await call(app, owner, { method: 'PUT', url: `${url()}/${c._id}`, payload: { text: 'Hijacked' } });
    expect(byOwner.statusCode).toBe(403);
    const blank = await call(app, ann, { method: 'PUT', url: `${url()}/${c._id}`, payload: { text: ' ' } });
    expect(blank.statusCode).toBe(400);
    const ok = await call(app, ann, { method: 'PUT', url: `${url()}/${c._id}`, payload: { text: 'Typo here' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().text).toBe('Typo here');
    expect(ok.json().editedAt).not.toBeNull();
    expect((await call(app, null, { method: 'PUT', url: `${url()}/${c._id}`, payload: { text: 'x' } })).statusCode).toBe(401);
  });

  it('lets the author, the campaign owner or an admin delete; the row stays without its text', async () => {
    const byAuthor = (await post(ben, { text: 'Mine to delete' })).json();
    const byOwner = (await post(ben, { text: 'Owner deletes this' })).json();
    const byAdmin = (await post(ben, { text: 'Admin deletes this' })).json();
    const protectedOne = (await post(ben, { text: 'Ann cannot delete this' })).json();

    expect((await call(app, ann, { method: 'DELETE', url: `${url()}/${protectedOne._id}` })).statusCode).toBe(403);
    for (const [who, c] of [
      [ben, byAuthor],
      [owner, byOwner],
      [admin, byAdmin],
    ] as const) {
      const res = await call(app, who, { method: 'DELETE', url: `${url()}/${c._id}` });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ text: '', imageUrl: null });
      expect(res.json().deletedAt).not.toBeNull();
    }
    const [row] = await database.db.select().from(comments).where(eq(comments.id, byAuthor._id));
    expect(row.deletedAt).not.toBeNull();
    const threads = await list(null);
    expect(threads.find((t: { _id: string }) => t._id === byAuthor._id)).toMatchObject({ text: '' });
    expect(threads.find((t: { _id: string }) => t._id === protectedOne._id).text).toBe('Ann cannot delete this');
    // a deleted comment cannot be edited or replied to
    expect((await call(app, ben, { method: 'PUT', url: `${url()}/${byAuthor._id}`, payload: { text: 'back' } })).statusCode).toBe(409);
    expect((await post(ann, { text: 'reply', parentId: byAuthor._id })).statusCode).toBe(404);
  });

  it('hides the comments of someone the viewer blocked, from the viewer only', async () => {
    const carl = await signUp(app, { username: 'c_carl' });
    const noisy = (await post(carl, { text: 'Noise from carl' })).json();
    await post(ann, { text: 'Reply to carl', parentId: noisy._id });
    const lonely = (await post(carl, { text: 'Carl alone' })).json();
    expect((await call(app, ben, { method: 'POST', url: '/api/blocks', payload: { userId: carl.userId } })).statusCode).toBe(201);

    const forBen = await list(ben);
    expect(JSON.stringify(forBen)).not.toContain('c_carl');
    expect(JSON.stringify(forBen)).not.toContain('Noise from carl');
    expect(JSON.stringify(forBen)).not.toContain(carl.userId);
    expect(forBen.find((t: { _id: string }) => t._id === lonely._id)).toBeUndefined();
    const placeholder = forBen.find((t: { _id: string }) => t._id === noisy._id);
    expect(placeholder).toMatchObject({ hidden: true, text: '', userId: null });
    expect(placeholder.replies.map((r: { text: string }) => r.text)).toEqual(['Reply to carl']);

    const forAnn = await list(ann);
    expect(forAnn.find((t: { _id: string }) => t._id === lonely._id).text).toBe('Carl alone');
  });

  it('works through tRPC with the same rules', async () => {
    const c = await trpc(app, ann, 'mutation', 'comments.create', { campaignId, data: { text: 'via trpc' } });
    expect(c.data.text).toBe('via trpc');
    expect((await trpc(app, null, 'query', 'comments.list', { campaignId })).data.some((t: { _id: string }) => t._id === c.data._id)).toBe(true);
    expect((await trpc(app, ben, 'mutation', 'comments.update', { campaignId, commentId: c.data._id, data: { text: 'x' } })).status).toBe(403);
    expect((await trpc(app, ann, 'mutation', 'comments.update', { campaignId, commentId: c.data._id, data: { text: 'edited' } })).data.editedAt).not.toBeNull();
    expect((await trpc(app, ben, 'mutation', 'comments.delete', { campaignId, commentId: c.data._id })).status).toBe(403);
    expect((await trpc(app, owner, 'mutation', 'comments.delete', { campaignId, commentId: c.data._id })).data.deletedAt).not.toBeNull();
    expect((await trpc(app, null, 'mutation', 'comments.create', { campaignId, data: { text: 'anon' } })).status).toBe(401);
    expect((await trpc(app, ann, 'mutation', 'comments.create', { campaignId, data: { text: '' } })).status).toBe(400);
  });
});
