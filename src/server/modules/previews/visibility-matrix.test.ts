import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { previewLinks } from '../../db/schema';
import { buildTestApp, call, freshIp, openTestDatabase, signUpVerified, uploadImages, type Client } from '../../../../test/helpers';

/**
 * Who sees a draft (issue #30, docs/decisions.md "The preview circle"), as one table: every call
 * that can show an item, on both doors, against every kind of caller. To a caller outside the
 * circle (a visitor, a stranger, a revoked member, the holder of an expired or a revoked link) a
 * draft is exactly a missing item: each call answers the same status and body for the draft as
 * for an id that names nothing, and no list, search, total, tag suggestion, profile tab or
 * favorite shows it. The circle (a member by username, a guest by an email invite's token, a
 * valid link's holder) sees the draft at its own address only (the detail, its images); the lists
 * stay its owner's alone. A call or a caller is one line of the tables below.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
type Account = Client & { userId: string; email: string };
let owner: Account;
let stranger: Account;
let member: Account;
let revokedMember: Account;

const KINDS = ['campaign', 'project'] as const;
type Kind = (typeof KINDS)[number];
const plural = (k: Kind) => `${k}s` as const;

/** One draft and what its circle was given. */
interface Fixture {
  kind: Kind;
  id: string;
  word: string;
  tag: string;
  imageUrl: string;
  coverUrl: string;
  emailToken: string;
  linkToken: string;
  expiredToken: string;
  revokedToken: string;
}

/** A caller: who they are (an account, a token and how it travels) for one draft. */
interface Caller {
  name: string;
  /** The account they are signed in as, if any. */
  account: () => Account | null;
  /** A preview token they hold for the draft, and how they send it. */
  token?: (f: Fixture) => { value: string; via: 'cookie' | 'header' };
  /** owner: its owner; circle: in its circle (sees the draft at its address); none: outside (a missing item). */
  sees: 'owner' | 'circle' | 'none';
}

const CALLERS: Caller[] = [
  { name: 'the owner', account: () => owner, sees: 'owner' },
  { name: 'a member invited by username', account: () => member, sees: 'circle' },
  { name: 'a guest invited by email', account: () => null, token: (f) => ({ value: f.emailToken, via: 'cookie' }), sees: 'circle' },
  { name: 'a valid link’s holder', account: () => null, token: (f) => ({ value: f.linkToken, via: 'header' }), sees: 'circle' },
  { name: 'a visitor', account: () => null, sees: 'none' },
  { name: 'a signed-in stranger', account: () => stranger, sees: 'none' },
  { name: 'a revoked member', account: () => revokedMember, sees: 'none' },
  { name: 'an expired link’s holder (cookie)', account: () => null, token: (f) => ({ value: f.expiredToken, via: 'cookie' }), sees: 'none' },
  { name: 'an expired link’s holder (header)', account: () => null, token: (f) => ({ value: f.expiredToken, via: 'header' }), sees: 'none' },
  { name: 'a revoked link’s holder (header)', account: () => null, token: (f) => ({ value: f.revokedToken, via: 'header' }), sees: 'none' },
  { name: 'a revoked link’s holder (cookie)', account: () => null, token: (f) => ({ value: f.revokedToken, via: 'cookie' }), sees: 'none' },
];

/** A request as the caller sends it: their session, their token, their own address. */
type Send = (opts: InjectOptions & { url: string }) => Promise<{ status: number; body: unknown }>;

function sender(c: Caller, f: Fixture): Send {
  const account = c.account();
  const token = c.token?.(f);
  const who: Client = { ip: freshIp(), token: account?.token };
  const headers: Record<string, string> = {};
  if (token?.via === 'cookie') who.cookie = `kindling_preview=${f.id}.${token.value}`;
  if (token?.via === 'header') headers['x-preview-token'] = token.value;
  return async (opts) => {
    const res = await call(app, who, { ...opts, headers: { ...headers, ...(opts.headers as Record<string, string>) } });
    let body: unknown = res.body;
    try {
      body = res.json();
    } catch {
      // an image or a page: its bytes as text
    }
    return { status: res.statusCode, body };
  };
}

/** A tRPC call through `send` (superjson-wrapped input, as the browser sends it). */
async function trpc(send: Send, kind: 'query' | 'mutation', path: string, input: unknown) {
  const wrapped = { json: input };
  return kind === 'query'
    ? send({ method: 'GET', url: `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(wrapped))}` })
    : send({ method: 'POST', url: `/trpc/${path}`, payload: wrapped });
}

/** What a call answered about one item: the status and body, the same for a hidden item as for a missing one. */
interface Answer {
  status: number;
  body: unknown;
}
/** What a list answered: whether the draft is in it, and its total (null for a list without one). */
interface Listed {
  has: boolean;
  total: number | null;
}

/** The same draft's address with nothing behind it: another id, another file name. */
interface Target {
  id: string;
  imageUrl: string;
  coverUrl: string;
}

/** For a caller in the circle: what the call answers them (the item shown, a missing item's answer, or a status). */
type CircleAnswer = 'shown' | 'missing' | number | ((c: Caller) => 'shown' | 'missing' | number);

interface ItemCall {
  name: string;
  kinds?: readonly Kind[];
  run: (send: Send, k: Kind, t: Target) => Promise<Answer>;
  /** What the circle gets; everyone outside it gets a missing item's answer. */
  circle: CircleAnswer;
  /** What the owner gets ('shown' unless given). */
  owner?: 'shown' | number;
  /** A known departure from the rule, reported and not fixed yet: these callers' lines are expected to fail until it is. */
  open?: { why: string; who: (c: Caller) => boolean };
}

interface ListCall {
  name: string;
  kinds?: readonly Kind[];
  run: (send: Send, f: Fixture) => Promise<Listed>;
}

const hasId = (items: unknown, id: string) => (items as { _id: string }[]).some((i) => i._id === id);
const rest = (send: Send, url: string) => send({ method: 'GET', url });
const q = (o: Record<string, string>) => new URLSearchParams(o).toString();
/** A list answer of either door: the items' and the total's place in its body. */
function listed(a: Answer, id: string): Listed {
  if (a.status !== 200) throw new Error(`list answered ${a.status}: ${JSON.stringify(a.body)}`);
  const body = (a.body as { result?: { data: { json: unknown } } }).result?.data.json ?? a.body;
  const { items, total } = body as { items: unknown; total?: number };
  return { has: hasId(items, id), total: total ?? null };
}
function tagged(a: Answer, tag: string): Listed {
  if (a.status !== 200) throw new Error(`tags answered ${a.status}: ${JSON.stringify(a.body)}`);
  const body = (a.body as { result?: { data: { json: unknown } } }).result?.data.json ?? a.body;
  return { has: (body as { tags: string[] }).tags.includes(tag), total: null };
}
function favorited(a: Answer, id: string): Listed {
  // signed out: the list is the 401 everyone signed out gets
  if (a.status === 401) return { has: false, total: null };
  const body = (a.body as { result?: { data: { json: unknown } } }).result?.data.json ?? a.body;
  return { has: (body as { items: { targetId: string }[] }).items.some((i) => i.targetId === id), total: null };
}

/** Every call that answers about one item, on both doors. */
const ITEM_CALLS: ItemCall[] = [
  { name: 'REST detail', run: (s, k, t) => rest(s, `/api/${plural(k)}/${t.id}`), circle: 'shown' },
  { name: 'tRPC detail', run: (s, k, t) => trpc(s, 'query', `${plural(k)}.get`, { id: t.id }), circle: 'shown' },
  { name: 'gallery image', run: (s, _k, t) => rest(s, t.imageUrl), circle: 'shown' },
  { name: 'cover image', run: (s, _k, t) => rest(s, t.coverUrl), circle: 'shown' },
  // the public comments of a draft stay closed to its circle (decisions.md): what hangs on the draft is not shown through the circle
  { name: 'REST comments', kinds: ['campaign'], run: (s, _k, t) => rest(s, `/api/campaigns/${t.id}/comments`), circle: 'missing' },
  { name: 'tRPC comments', kinds: ['campaign'], run: (s, _k, t) => trpc(s, 'query', 'comments.list', { campaignId: t.id }), circle: 'missing' },
  // comments open at release (decisions.md): a draft takes none, not even from its owner (money's 409)
  {
    name: 'REST comment posted',
    kinds: ['campaign'],
    run: (s, _k, t) => s({ method: 'POST', url: `/api/campaigns/${t.id}/comments`, payload: { text: 'Before release' } }),
    owner: 409,
    circle: 'missing',
  },
  {
    name: 'tRPC comment posted',
    kinds: ['campaign'],
    run: (s, _k, t) => trpc(s, 'mutation', 'comments.create', { campaignId: t.id, data: { text: 'Before release' } }),
    owner: 409,
    circle: 'missing',
  },
  // the circle reads the feedback only when the owner lets it (off by default)
  { name: 'REST feedback', run: (s, k, t) => rest(s, `/api/${plural(k)}/${t.id}/feedback`), circle: 403 },
  { name: 'tRPC feedback', run: (s, k, t) => trpc(s, 'query', 'previews.feedback', { kind: k, id: t.id }), circle: 403 },
  { name: 'REST preview me', run: (s, k, t) => rest(s, `/api/${plural(k)}/${t.id}/preview`), circle: 'shown' },
  { name: 'tRPC preview me', run: (s, k, t) => trpc(s, 'query', 'previews.me', { kind: k, id: t.id }), circle: 'shown' },
  // the circle's own settings are the owner's: a member is told so, a guest (no account) must sign in
  { name: 'REST circle', run: (s, k, t) => rest(s, `/api/${plural(k)}/${t.id}/circle`), circle: (c) => (c.account() ? 403 : 401) },
  { name: 'tRPC circle', run: (s, k, t) => trpc(s, 'query', 'previews.circle', { kind: k, id: t.id }), circle: (c) => (c.account() ? 403 : 401) },
  // a favorite of a draft: only its owner's (favorites follow the lists' rule; signed out, the 401 of any favorite)
  {
    name: 'REST favorite',
    run: (s, k, t) => s({ method: 'POST', url: '/api/favorites', payload: { targetType: k, targetId: t.id } }),
    circle: 'missing',
  },
  {
    name: 'tRPC favorite',
    run: (s, k, t) => trpc(s, 'mutation', 'favorites.add', { targetType: k, targetId: t.id }),
    circle: 'missing',
  },
  { name: 'tRPC favorite ids', run: (s, k, t) => trpc(s, 'query', 'favorites.ids', { type: k, targetIds: [t.id] }), circle: 'missing' },
  // following, as a favorite: what hangs on the draft is its owner's alone
  {
    name: 'REST project follow',
    kinds: ['project'],
    run: (s, _k, t) => s({ method: 'POST', url: `/api/project-follow/${t.id}` }),
    circle: 'missing',
  },
  {
    name: 'tRPC project follow',
    kinds: ['project'],
    run: (s, _k, t) => trpc(s, 'mutation', 'projects.follow', { id: t.id }),
    circle: 'missing',
  },
];

/** Every list, search, total, suggestion and profile tab, on both doors: the draft only in its owner's. */
const LIST_CALLS: ListCall[] = [
  { name: 'REST list', run: async (s, f) => listed(await rest(s, `/api/${plural(f.kind)}?limit=100`), f.id) },
  { name: 'tRPC list', run: async (s, f) => listed(await trpc(s, 'query', `${plural(f.kind)}.list`, { limit: 100 }), f.id) },
  { name: 'REST search (title word)', run: async (s, f) => listed(await rest(s, `/api/${plural(f.kind)}?${q({ q: f.word })}`), f.id) },
  { name: 'tRPC search (title word)', run: async (s, f) => listed(await trpc(s, 'query', `${plural(f.kind)}.list`, { q: f.word }), f.id) },
  { name: 'REST search (tag)', run: async (s, f) => listed(await rest(s, `/api/${plural(f.kind)}?${q({ q: f.tag })}`), f.id) },
  { name: 'REST list sorted', run: async (s, f) => listed(await rest(s, `/api/${plural(f.kind)}?${q({ sort: 'supported', limit: '100' })}`), f.id) },
  { name: 'REST tag suggestion', run: async (s, f) => tagged(await rest(s, `/api/tags?${q({ q: f.tag })}`), f.tag) },
  { name: 'tRPC tag suggestion', run: async (s, f) => tagged(await trpc(s, 'query', 'tags.search', { q: f.tag }), f.tag) },
  {
    name: 'REST profile tab',
    run: async (s, f) =>
      listed(await rest(s, f.kind === 'campaign' ? `/api/public/users/${owner.userId}/campaigns` : `/api/projects?${q({ ownerId: owner.userId })}`), f.id),
  },
  {
    name: 'tRPC profile tab',
    run: async (s, f) =>
      listed(
        f.kind === 'campaign'
          ? await trpc(s, 'query', 'users.campaigns', { userId: owner.userId })
          : await trpc(s, 'query', 'projects.list', { ownerId: owner.userId }),
        f.id,
      ),
  },
  { name: 'REST favorites', run: async (s, f) => favorited(await rest(s, `/api/favorites?${q({ type: f.kind })}`), f.id) },
  { name: 'tRPC favorites', run: async (s, f) => favorited(await trpc(s, 'query', 'favorites.list', { type: f.kind }), f.id) },
];

const forKind = <T extends { kinds?: readonly Kind[] }>(calls: T[], k: Kind) => calls.filter((c) => !c.kinds || c.kinds.includes(k));

/** A tRPC error's stack (development builds) names the line that threw, not what the caller may know. */
function comparable(a: Answer): Answer {
  const body = a.body as { error?: { json?: { data?: Record<string, unknown> } } } | null;
  if (body && typeof body === 'object' && body.error?.json?.data) {
    const { stack: _stack, ...data } = body.error.json.data;
    return { status: a.status, body: { ...body, error: { ...body.error, json: { ...body.error.json, data } } } };
  }
  return a;
}

/** A missing file's name: the same address with another id in it. */
const missingFile = (url: string) => url.replace(/[0-9a-f]{8}-[0-9a-f]{4}/, '00000000-0000');

const fixtures = new Map<Kind, Fixture>();
/** Each list's answer before the drafts existed: the same for everyone but their own favorites (none yet). */
const before = new Map<string, Listed>();

async function owned(url: string, payload: Record<string, unknown>, method: 'POST' | 'DELETE' = 'POST') {
  const res = await call(app, owner, { method, url, payload });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}
const tokenOf = (url: string) => new URL(url).searchParams.get('preview') as string;

async function makeDraft(kind: Kind): Promise<Fixture> {
  const [image] = await uploadImages(app, owner, 1);
  const [cover] = await uploadImages(app, owner, 1, 'cover');
  const word = `matrixword${kind}`;
  const tag = `matrixtag${kind}`;
  const d = await owned(`/api/${plural(kind)}`, {
    title: `Hidden ${word} draft`,
    tags: [tag],
    visibility: 'draft',
    images: [image],
    imageUrl: cover.url,
  });
  const base = `/api/${plural(kind)}/${d._id}/circle`;
  await owned(`${base}/members`, { who: 'm_member', role: 'commenter' });
  const gone = await owned(`${base}/members`, { who: 'm_revoked', role: 'commenter' });
  await owned(`${base}/members/${gone.member._id}`, {}, 'DELETE');
  const emailInvite = await owned(`${base}/members`, { who: `guest.${kind}.${randomUUID().slice(0, 6)}@example.com`, role: 'viewer' });
  const link = await owned(`${base}/links`, { label: 'press' });
  const expired = await owned(`${base}/links`, { label: 'old' });
  await database.db
    .update(previewLinks)
    .set({ expiresAt: new Date(Date.now() - 60_000) })
    .where(eq(previewLinks.id, expired.link._id));
  const revoked = await owned(`${base}/links`, { label: 'ended' });
  await owned(`${base}/links/${revoked.link._id}`, {}, 'DELETE');
  return {
    kind,
    id: d._id,
    word,
    tag,
    imageUrl: image.url,
    coverUrl: cover.url,
    emailToken: tokenOf(emailInvite.url),
    linkToken: tokenOf(link.url),
    expiredToken: tokenOf(expired.url),
    revokedToken: tokenOf(revoked.url),
  };
}

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  owner = await signUpVerified(app, database, { username: 'm_owner' });
  stranger = await signUpVerified(app, database, { username: 'm_stranger' });
  member = await signUpVerified(app, database, { username: 'm_member' });
  revokedMember = await signUpVerified(app, database, { username: 'm_revoked' });
  // released neighbours: the lists and the searches are not empty, and the owner has a profile tab
  for (const kind of KINDS) {
    await owned(`/api/${plural(kind)}`, { title: `Open matrixword${kind} item`, tags: [`matrixtag${kind}open`] });
    await call(app, stranger, { method: 'POST', url: `/api/${plural(kind)}`, payload: { title: `Another matrixword${kind}` } });
  }
  // every list as a visitor sees it before the drafts exist (a placeholder draft id: nothing has it yet)
  for (const kind of KINDS) {
    const placeholder: Fixture = {
      kind,
      id: randomUUID(),
      word: `matrixword${kind}`,
      tag: `matrixtag${kind}`,
      imageUrl: '',
      coverUrl: '',
      emailToken: '',
      linkToken: '',
      expiredToken: '',
      revokedToken: '',
    };
    for (const l of forKind(LIST_CALLS, kind)) {
      before.set(`${kind}:${l.name}`, await l.run(sender({ name: 'a visitor', account: () => null, sees: 'none' }, placeholder), placeholder));
    }
  }
  for (const kind of KINDS) fixtures.set(kind, await makeDraft(kind));
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

describe.each(KINDS)('a draft %s', (kind) => {
  describe.each(CALLERS)('to $name', (caller) => {
    const f = () => fixtures.get(kind) as Fixture;

    const itemCalls = forKind(ITEM_CALLS, kind);
    const known = itemCalls.filter((c) => c.open && caller.sees !== 'none' && c.open.who(caller));
    it.each(itemCalls.filter((c) => !known.includes(c)).map((c) => [c.name, c] as const))('%s', (_name, c) => itemCall(c));
    // a known departure: the rule's line fails until it is fixed (then drop `open`)
    it.fails.each(known.map((c) => [c.name, c.open?.why] as const))('%s (known: %s)', (name) => itemCall(known.find((c) => c.name === name) as ItemCall));

    async function itemCall(c: ItemCall) {
      const send = sender(caller, f());
      const draft = await c.run(send, kind, { id: f().id, imageUrl: f().imageUrl, coverUrl: f().coverUrl });
      const missing = await c.run(send, kind, { id: randomUUID(), imageUrl: missingFile(f().imageUrl), coverUrl: missingFile(f().coverUrl) });
      const expected =
        caller.sees === 'owner' ? (c.owner ?? 'shown') : caller.sees === 'none' ? 'missing' : typeof c.circle === 'function' ? c.circle(caller) : c.circle;
      if (expected === 'missing') {
        expect(comparable(draft)).toEqual(comparable(missing));
      } else if (expected === 'shown') {
        expect(draft.status, JSON.stringify(draft.body)).toBeLessThan(300);
        expect(comparable(draft)).not.toEqual(comparable(missing));
      } else {
        expect(draft.status, JSON.stringify(draft.body)).toBe(expected);
      }
    }

    it.each(forKind(LIST_CALLS, kind).map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const send = sender(caller, f());
      const seen = await c.run(send, f());
      const was = before.get(`${kind}:${c.name}`) as Listed;
      if (caller.sees === 'owner') {
        expect(seen).toEqual({ has: true, total: was.total === null ? null : was.total + 1 });
      } else {
        expect(seen).toEqual({ has: false, total: was.total });
      }
    });
  });
});
