import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { COMMENT_INLINE_REPLIES } from '../../../shared/schemas/community';
import { comments, users } from '../../db/schema';
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
/** Every thread of the campaign as the viewer sees it (all pages, read by cursor). */
const list = async (who: Client | null, id = campaignId) => {
  const threads = [];
  let cursor: string | null = null;
  do {
    const res = await call(app, who, { method: 'GET', url: `${url(id)}?limit=100${cursor ? `&cursor=${cursor}` : ''}` });
    expect(res.statusCode, res.body).toBe(200);
    threads.push(...res.json());
    cursor = (res.headers['x-next-cursor'] as string | undefined) ?? null;
  } while (cursor);
  return threads;
};

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
    expect((await trpc(app, null, 'query', 'comments.list', { campaignId })).data.items.some((t: { _id: string }) => t._id === c.data._id)).toBe(true);
    expect((await trpc(app, ben, 'mutation', 'comments.update', { campaignId, commentId: c.data._id, data: { text: 'x' } })).status).toBe(403);
    expect((await trpc(app, ann, 'mutation', 'comments.update', { campaignId, commentId: c.data._id, data: { text: 'edited' } })).data.editedAt).not.toBeNull();
    expect((await trpc(app, ben, 'mutation', 'comments.delete', { campaignId, commentId: c.data._id })).status).toBe(403);
    expect((await trpc(app, owner, 'mutation', 'comments.delete', { campaignId, commentId: c.data._id })).data.deletedAt).not.toBeNull();
    expect((await trpc(app, null, 'mutation', 'comments.create', { campaignId, data: { text: 'anon' } })).status).toBe(401);
    expect((await trpc(app, ann, 'mutation', 'comments.create', { campaignId, data: { text: '' } })).status).toBe(400);
  });
});

// ---- paging ------------------------------------------------------------------------------------

type Thread = {
  _id: string;
  text: string;
  hidden: boolean;
  userId: { _id: string } | null;
  deletedAt: string | null;
  replies: { _id: string; text: string }[];
  moreReplies: boolean;
  repliesNextCursor: string | null;
};
type Page<T> = { items: T[]; nextCursor: string | null };

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
/** Comments stored straight in the database, one second apart from `at` on (a fixed order, whatever the machine's speed). */
async function seedComments(rows: { campaignId: string; userId: string; text: string; parentId?: string | null; deleted?: boolean }[], at = T0) {
  const stored = await database.db
    .insert(comments)
    .values(
      rows.map((r, i) => ({
        campaignId: r.campaignId,
        userId: r.userId,
        parentId: r.parentId ?? null,
        text: r.deleted ? '' : r.text,
        createdAt: new Date(at + i * 1000),
        deletedAt: r.deleted ? new Date(at + i * 1000 + 1) : null,
      })),
    )
    .returning({ id: comments.id, text: comments.text, createdAt: comments.createdAt });
  // in the order the text was given (returning's order is not promised)
  return rows.map((_, i) => stored.find((s) => s.createdAt.getTime() === at + i * 1000)!.id);
}

const newCampaign = async (title: string, who = owner) =>
  (await call(app, who, { method: 'POST', url: '/api/campaigns', payload: { title } })).json()._id as string;

async function restPage<T = Thread>(who: Client | null, path: string, status = 200): Promise<Page<T>> {
  const res = await call(app, who, { method: 'GET', url: path });
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  if (!Array.isArray(body)) return body;
  // the threads call answers the spec's list; its next cursor comes in the headers
  const next = (res.headers['x-next-cursor'] as string | undefined) ?? null;
  if (next) {
    const link = new URL(`http://x${path}`);
    link.searchParams.set('cursor', next);
    expect(res.headers.link).toBe(`<${link.pathname}${link.search}>; rel="next"`);
  } else expect(res.headers.link).toBeUndefined();
  return { items: body, nextCursor: next } as Page<T>;
}

/** Every page of a list by cursor through REST; each page's items. */
async function restPages<T = Thread>(who: Client | null, path: string, start: string | null = null): Promise<T[][]> {
  const pages: T[][] = [];
  let cursor: string | null = start;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page: Page<T> = await restPage<T>(who, `${path}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`);
    pages.push(page.items);
    cursor = page.nextCursor;
    expect(pages.length).toBeLessThan(50);
  } while (cursor);
  return pages;
}

/** Every page of a tRPC list by cursor. */
async function trpcPages<T = Thread>(who: Client | null, path: string, input: Record<string, unknown>): Promise<T[][]> {
  const pages: T[][] = [];
  let cursor: string | null = null;
  do {
    const res = await trpc(app, who, 'query', path, { ...input, ...(cursor ? { cursor } : {}) });
    expect(res.status, JSON.stringify(res.error)).toBe(200);
    pages.push(res.data.items);
    cursor = res.data.nextCursor;
    expect(pages.length).toBeLessThan(50);
  } while (cursor);
  return pages;
}

const ids = (items: { _id: string }[]) => items.map((i) => i._id);
const sizes = (pages: unknown[][]) => pages.map((p) => p.length);

describe('comments: paging of threads', () => {
  let paged: string;
  let threadIds: string[];

  beforeAll(async () => {
    paged = await newCampaign('Forty-five threads');
    threadIds = await seedComments(
      Array.from({ length: 45 }, (_, i) => ({ campaignId: paged, userId: i % 2 ? ann.userId : ben.userId, text: `Thread ${i + 1}` })),
    );
    // a reply on thread 1 must not count as a thread
    await seedComments([{ campaignId: paged, userId: ann.userId, text: 'A reply', parentId: threadIds[0] }], T0 + 3_600_000);
  });

  it('pages 45 threads by 20 through REST: 20, 20, 5, oldest first, each once, the last nextCursor null', async () => {
    const first = await restPage(null, `${url(paged)}`);
    expect(first.items).toHaveLength(20);
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(first.items[0]).toMatchObject({ text: 'Thread 1', replies: [{ text: 'A reply' }], moreReplies: false, repliesNextCursor: null });
    const pages = await restPages(null, `${url(paged)}?limit=20`);
    expect(sizes(pages)).toEqual([20, 20, 5]);
    expect(ids(pages.flat())).toEqual(threadIds);
    expect(pages.flat().map((t) => t.text)).toEqual(threadIds.map((_, i) => `Thread ${i + 1}`));
  });

  it('pages the same through tRPC', async () => {
    const pages = await trpcPages(ben, 'comments.list', { campaignId: paged, limit: 20 });
    expect(sizes(pages)).toEqual([20, 20, 5]);
    expect(ids(pages.flat())).toEqual(threadIds);
  });

  it('says nothing more after an exactly full last page', async () => {
    const byFifteen = await restPages(null, `${url(paged)}?limit=15`);
    expect(sizes(byFifteen)).toEqual([15, 15, 15]);
    expect(ids(byFifteen.flat())).toEqual(threadIds);
    expect(await restPage(null, `${url(paged)}?limit=45`)).toMatchObject({ nextCursor: null });
    const [one] = await trpcPages(null, 'comments.list', { campaignId: paged, limit: 45 });
    expect(one).toHaveLength(45);
  });

  it('caps the limit at 100', async () => {
    const big = await newCampaign('A hundred and five threads');
    const all = await seedComments(Array.from({ length: 105 }, (_, i) => ({ campaignId: big, userId: ann.userId, text: `Big ${i}` })));
    const first = await restPage(null, `${url(big)}?limit=1000`);
    expect(first.items).toHaveLength(100);
    expect(first.nextCursor).not.toBeNull();
    const rest = await restPage(null, `${url(big)}?limit=1000&cursor=${first.nextCursor}`);
    expect(ids([...first.items, ...rest.items])).toEqual(all);
    expect(rest.nextCursor).toBeNull();
    expect((await trpc(app, null, 'query', 'comments.list', { campaignId: big, limit: 1000 })).data.items).toHaveLength(100);
    const replies = await restPage(null, `${url(big)}/${all[0]}/replies?limit=1000`);
    expect(replies).toEqual({ items: [], nextCursor: null });
  });

  it('refuses a bad limit or a malformed cursor with 400 on both doors, on both calls', async () => {
    const badCursors = [
      'garbage',
      Buffer.from('{"t":"2030-01-01T00:00:00.000Z","id":"nope"}').toString('base64url'),
      Buffer.from('{"t":"yesterday","id":"00000000-0000-4000-8000-000000000000"}').toString('base64url'),
      // a time JavaScript takes but PostgreSQL does not
      Buffer.from('{"t":"+275760-01-01T00:00:00.000Z","id":"00000000-0000-4000-8000-000000000000"}').toString('base64url'),
      Buffer.from('[1,2]').toString('base64url'),
      '%00',
    ];
    for (const path of [url(paged), `${url(paged)}/${threadIds[0]}/replies`]) {
      for (const [qs, message] of [
        ['limit=0', M.limitInvalid],
        ['limit=-5', M.limitInvalid],
        ['limit=abc', M.limitInvalid],
        ['limit=2.5', M.limitInvalid],
        ...badCursors.map((c) => [`cursor=${encodeURIComponent(c)}`, c === '%00' ? undefined : M.cursorInvalid]),
      ] as [string, string | undefined][]) {
        const res = await call(app, null, { method: 'GET', url: `${path}?${qs}` });
        expect(res.statusCode, `${path}?${qs}: ${res.body}`).toBe(400);
        if (message) expect(res.json()).toEqual({ error: message });
        else expect(res.json().error).toEqual(expect.any(String));
      }
    }
    for (const [proc, extra] of [
      ['comments.list', {}],
      ['comments.replies', { commentId: threadIds[0] }],
    ] as const) {
      for (const bad of [{ limit: 0 }, { limit: 'abc' }, { cursor: 'garbage' }, { cursor: badCursors[3] }]) {
        const res = await trpc(app, null, 'query', proc, { campaignId: paged, ...extra, ...bad });
        expect(res.status, `${proc} ${JSON.stringify(bad)}`).toBe(400);
        expect(res.error?.message).toBe('cursor' in bad ? M.cursorInvalid : M.limitInvalid);
      }
    }
  });

  it('answers only the declared fields', async () => {
    const page = await restPage(null, `${url(paged)}?limit=1`);
    expect(Object.keys(page).sort()).toEqual(['items', 'nextCursor']);
    expect(Object.keys(page.items[0]).sort()).toEqual(
      [
        '_id',
        'campaignId',
        'createdAt',
        'deletedAt',
        'editedAt',
        'hidden',
        'imageUrl',
        'moreReplies',
        'parentId',
        'replies',
        'repliesNextCursor',
        'text',
        'userId',
      ].sort(),
    );
    expect(Object.keys(page.items[0].userId as object).sort()).toEqual(['_id', 'avatarUrl', 'imageUrl', 'name', 'username']);
  });
});

describe('comments: the replies of a thread', () => {
  let talk: string;
  let long: string;
  let longReplies: string[];
  let exact: string;

  beforeAll(async () => {
    talk = await newCampaign('Long threads');
    [long, exact] = await seedComments([
      { campaignId: talk, userId: ann.userId, text: 'Long thread' },
      { campaignId: talk, userId: ben.userId, text: 'Exactly full thread' },
    ]);
    longReplies = await seedComments(
      Array.from({ length: 2 * COMMENT_INLINE_REPLIES + 5 }, (_, i) => ({
        campaignId: talk,
        userId: i % 3 ? ben.userId : ann.userId,
        text: `Reply ${i + 1}`,
        parentId: long,
      })),
      T0 + 3_600_000,
    );
    await seedComments(
      Array.from({ length: COMMENT_INLINE_REPLIES }, (_, i) => ({ campaignId: talk, userId: ann.userId, text: `Full ${i + 1}`, parentId: exact })),
      T0 + 7_200_000,
    );
  });

  it('comes with its first replies and tells that there are more; the replies call pages through the rest exactly once, in order', async () => {
    const [thread, full] = (await restPage(null, url(talk))).items;
    expect(thread._id).toBe(long);
    expect(ids(thread.replies)).toEqual(longReplies.slice(0, COMMENT_INLINE_REPLIES));
    expect(thread.moreReplies).toBe(true);
    expect(thread.repliesNextCursor).toEqual(expect.any(String));
    // exactly COMMENT_INLINE_REPLIES replies: nothing more
    expect(full).toMatchObject({ moreReplies: false, repliesNextCursor: null });
    expect(full.replies).toHaveLength(COMMENT_INLINE_REPLIES);

    // the rest, from the thread's cursor, 4 at a time
    const rest = await restPages<{ _id: string; text: string }>(null, `${url(talk)}/${long}/replies?limit=4`, thread.repliesNextCursor);
    expect(ids(rest.flat())).toEqual(longReplies.slice(COMMENT_INLINE_REPLIES));
    expect(rest.slice(0, -1).every((p) => p.length === 4)).toBe(true);
    // all of them from the start, default page size (20)
    const all = await restPages<{ _id: string }>(null, `${url(talk)}/${long}/replies`);
    expect(sizes(all)).toEqual([20, longReplies.length - 20]);
    expect(ids(all.flat())).toEqual(longReplies);
    // an exactly full last page of replies
    const byFive = await restPages<{ _id: string }>(null, `${url(talk)}/${long}/replies?limit=5`);
    expect(sizes(byFive)).toEqual([5, 5, 5, 5, 5]);
    // through tRPC, the same
    const viaTrpc = await trpcPages<{ _id: string }>(ann, 'comments.replies', {
      campaignId: talk,
      commentId: long,
      limit: 7,
      cursor: thread.repliesNextCursor,
    });
    expect(ids(viaTrpc.flat())).toEqual(longReplies.slice(COMMENT_INLINE_REPLIES));
  });

  it('is 404 for a comment of another campaign, an unknown or malformed id, or an unknown campaign; a reply has no replies', async () => {
    const elsewhere = await newCampaign('Elsewhere');
    const [other] = await seedComments([{ campaignId: elsewhere, userId: ann.userId, text: 'Not here' }], T0 + 10_800_000);
    for (const path of [
      `${url(talk)}/${other}/replies`,
      `${url(talk)}/00000000-0000-4000-8000-000000000000/replies`,
      `${url(talk)}/not-an-id/replies`,
      `${url('00000000-0000-4000-8000-000000000000')}/${long}/replies`,
    ]) {
      const res = await call(app, ann, { method: 'GET', url: path });
      expect(res.statusCode, path).toBe(404);
    }
    expect((await trpc(app, ann, 'query', 'comments.replies', { campaignId: talk, commentId: other })).status).toBe(404);
    expect(await restPage(null, `${url(elsewhere)}/${other}/replies`)).toEqual({ items: [], nextCursor: null });
    expect(await restPage(null, `${url(talk)}/${longReplies[0]}/replies`)).toEqual({ items: [], nextCursor: null });
  });
});

describe('comments: blocked and deleted across page boundaries', () => {
  let board: string;
  let carl: Awaited<ReturnType<typeof signUp>>;
  let dora: Awaited<ReturnType<typeof signUp>>;
  let t: string[];
  let busyReplies: string[];

  beforeAll(async () => {
    carl = await signUp(app, { username: 'p_carl' });
    dora = await signUp(app, { username: 'p_dora' });
    expect((await call(app, dora, { method: 'POST', url: '/api/blocks', payload: { userId: carl.userId } })).statusCode).toBe(201);
    board = await newCampaign('Blocked and deleted');
    t = await seedComments([
      { campaignId: board, userId: ann.userId, text: 'T1 by ann' },
      { campaignId: board, userId: carl.userId, text: 'T2 by carl, alone' },
      { campaignId: board, userId: carl.userId, text: 'T3 by carl, answered' },
      { campaignId: board, userId: ann.userId, text: 'T4 deleted', deleted: true },
      { campaignId: board, userId: ben.userId, text: 'T5 by ben' },
      { campaignId: board, userId: carl.userId, text: 'T6 by carl, deleted, alone', deleted: true },
      { campaignId: board, userId: ann.userId, text: 'T7 by ann, busy' },
      { campaignId: board, userId: carl.userId, text: 'T8 by carl, only carl answered' },
      { campaignId: board, userId: ben.userId, text: 'T9 by ben' },
      { campaignId: board, userId: carl.userId, text: 'T10 by carl, deleted, answered', deleted: true },
    ]);
    await seedComments(
      [
        { campaignId: board, userId: ann.userId, text: 'ann answers the hidden one', parentId: t[2] },
        { campaignId: board, userId: carl.userId, text: 'carl on T5', parentId: t[4] },
        { campaignId: board, userId: ben.userId, text: 'ben on T5', parentId: t[4] },
        { campaignId: board, userId: carl.userId, text: 'carl on T8', parentId: t[7] },
        { campaignId: board, userId: ben.userId, text: 'deleted reply on T10', parentId: t[9], deleted: true },
      ],
      T0 + 3_600_000,
    );
    // T7: COMMENT_INLINE_REPLIES + 2 replies, 3 of them by carl
    busyReplies = await seedComments(
      Array.from({ length: COMMENT_INLINE_REPLIES + 2 }, (_, i) => ({
        campaignId: board,
        userId: i % 4 === 1 ? carl.userId : ben.userId,
        text: `busy ${i + 1}`,
        parentId: t[6],
      })),
      T0 + 7_200_000,
    );
  });

  it('everyone else sees all ten threads, three at a time, deleted ones in their place without text', async () => {
    const pages = await restPages(ann, `${url(board)}?limit=3`);
    expect(sizes(pages)).toEqual([3, 3, 3, 1]);
    const all = pages.flat();
    expect(ids(all)).toEqual(t);
    expect(all[3]).toMatchObject({ text: '', hidden: false, userId: { _id: ann.userId } });
    expect(all[3].deletedAt).not.toBeNull();
    expect(all[6].replies).toHaveLength(COMMENT_INLINE_REPLIES);
    expect(all[6].moreReplies).toBe(true);
  });

  it('the blocker does not see the blocked person, except a thread with visible replies as a placeholder, on every page', async () => {
    for (const limit of [1, 2, 3, 4, 100]) {
      const pages = await restPages(dora, `${url(board)}?limit=${limit}`);
      const all = pages.flat();
      // T2, T6 (alone) and T8 (only carl answered) are left out; T3 and T10 stay as placeholders
      expect(ids(all), `limit ${limit}`).toEqual([t[0], t[2], t[3], t[4], t[6], t[8], t[9]]);
      // full pages up to the last, and no empty last page
      expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
      expect(pages.at(-1)!.length).toBeGreaterThan(0);
      const json = JSON.stringify(all);
      expect(json).not.toContain('carl');
      expect(json).not.toContain(carl.userId);
      expect(all[1]).toMatchObject({ hidden: true, text: '', userId: null, replies: [{ text: 'ann answers the hidden one' }] });
      expect(all[2]).toMatchObject({ hidden: false, text: '' });
      expect(all[3].replies.map((r) => r.text)).toEqual(['ben on T5']);
      expect(all[6]).toMatchObject({ hidden: true, text: '', userId: null, moreReplies: false });
      expect(all[6].replies).toHaveLength(1);
      // T7: its replies without carl's 3; COMMENT_INLINE_REPLIES - 1 of them, so nothing more
      const visibleBusy = busyReplies.filter((_, i) => i % 4 !== 1);
      expect(ids(all[4].replies)).toEqual(visibleBusy);
      expect(all[4]).toMatchObject({ moreReplies: false, repliesNextCursor: null });
    }
    // the same through tRPC
    const viaTrpc = await trpcPages(dora, 'comments.list', { campaignId: board, limit: 2 });
    expect(ids(viaTrpc.flat())).toEqual([t[0], t[2], t[3], t[4], t[6], t[8], t[9]]);
  });

  it('the replies call leaves out the blocked person too, across its pages', async () => {
    const forDora = await restPages<{ _id: string; text: string }>(dora, `${url(board)}/${t[6]}/replies?limit=2`);
    expect(ids(forDora.flat())).toEqual(busyReplies.filter((_, i) => i % 4 !== 1));
    expect(forDora.slice(0, -1).every((p) => p.length === 2)).toBe(true);
    const forAnn = await restPages<{ _id: string }>(ann, `${url(board)}/${t[6]}/replies?limit=5`);
    expect(ids(forAnn.flat())).toEqual(busyReplies);
    // the replies of a hidden thread are readable; a blocked person's replies are not
    expect((await restPage<{ text: string }>(dora, `${url(board)}/${t[2]}/replies`)).items.map((r) => r.text)).toEqual(['ann answers the hidden one']);
    expect(await restPage(dora, `${url(board)}/${t[7]}/replies`)).toEqual({ items: [], nextCursor: null });
    // a deleted reply keeps its place without text
    const [deletedReply] = (await restPage<{ text: string; deletedAt: string | null }>(dora, `${url(board)}/${t[9]}/replies`)).items;
    expect(deletedReply.text).toBe('');
    expect(deletedReply.deletedAt).not.toBeNull();
    const viaTrpc = await trpcPages<{ _id: string }>(dora, 'comments.replies', { campaignId: board, commentId: t[6], limit: 3 });
    expect(ids(viaTrpc.flat())).toEqual(busyReplies.filter((_, i) => i % 4 !== 1));
  });
});

describe('comments: adult campaigns', () => {
  it('are readable only by people with adult access, on both doors and both calls', async () => {
    const grown = await signUp(app, { username: 'c_grown' });
    await database.db.update(users).set({ hasAdultAccess: true }).where(eq(users.id, grown.userId));
    const adult = (await call(app, grown, { method: 'POST', url: '/api/campaigns', payload: { title: 'Grown-up talk', type: 'adult' } })).json()._id as string;
    const thread = await post(grown, { text: 'Only for some' }, adult);
    expect(thread.statusCode, thread.body).toBe(201);
    const threadId = thread.json()._id as string;

    for (const who of [null, ann]) {
      expect((await call(app, who, { method: 'GET', url: url(adult) })).statusCode).toBe(404);
      expect((await call(app, who, { method: 'GET', url: `${url(adult)}/${threadId}/replies` })).statusCode).toBe(404);
      expect((await trpc(app, who, 'query', 'comments.list', { campaignId: adult })).status).toBe(404);
      expect((await trpc(app, who, 'query', 'comments.replies', { campaignId: adult, commentId: threadId })).status).toBe(404);
    }
    expect(ids((await restPage(grown, url(adult))).items)).toEqual([threadId]);
    expect(await restPage(grown, `${url(adult)}/${threadId}/replies`)).toEqual({ items: [], nextCursor: null });
  });
});
