import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../shared/messages';
import { buildApp } from '../app';
import { projectRoot } from './client-app';
import { escapeHtml } from '../lib/html';
import { fillShareSlot, itemShareTags, shareSlot, shortText } from './share-tags';
import { call, login, openTestDatabase, register, testConfig, uploadImages, verifyEmail, type Client } from '../../../test/helpers';

/*
 * The share tags of an item's page (issue #30): a released campaign's or project's page carries
 * its own og: and twitter: tags (escaped); every other page keeps index.html's generic ones; a
 * draft's page, for those who may see it, says only "Private preview" and is kept by no cache and
 * no search engine; for anyone else it is, byte for byte, a missing item's page.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let dist: string;
let appUrl: string;
let owner: Client & { userId: string };
let member: Client & { userId: string };
let stranger: Client & { userId: string };

const KINDS = [
  { kind: 'campaigns', one: 'campaign' },
  { kind: 'projects', one: 'project' },
] as const;
type Kind = (typeof KINDS)[number];

/** A verified account signed in with a browser's session cookie. */
async function browserUser(username: string) {
  const email = await register(app, { username });
  await verifyEmail(app, database, email);
  return login(app, email);
}

async function create(k: Kind, who: Client, payload: Record<string, unknown>) {
  const res = await call(app, who, { method: 'POST', url: `/api/${k.kind}`, payload });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return res.json() as { _id: string; title: string; visibility: string };
}

async function page(url: string, who: Client | null = null) {
  const res = await call(app, who, { method: 'GET', url, headers: { accept: 'text/html' } });
  const head = res.body.slice(0, res.body.indexOf('</head>'));
  return { res, head };
}

/** The `content` of every `<meta>` of the head with this name or property, unescaped as a browser reads it. */
function metas(head: string, key: string): string[] {
  const out: string[] = [];
  for (const m of head.matchAll(/<meta\s+(?:name|property)="([^"]*)"\s+content="([^"]*)"/g)) {
    if (m[1] === key)
      out.push(
        m[2]
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'")
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&amp;/g, '&'),
      );
  }
  return out;
}

/** The headers of an answer, without the ones that change from one answer to the next (the time; a compressed body's length). */
const steadyHeaders = (headers: Record<string, unknown>, compressed = false) => {
  const { date: _date, 'content-length': length, ...rest } = headers;
  return compressed ? rest : { ...rest, 'content-length': length };
};

/** A page's HTML without the moments its answers were read (two answers a millisecond apart differ only in these). */
const steadyBody = (html: string) => html.replace(/"(dehydratedAt|dataUpdatedAt)":\d+/g, '"$1":0');

const GENERIC_DESCRIPTION = 'Make cool things, show a small group of people before releasing it to the public.';

beforeAll(async () => {
  database = await openTestDatabase();
  dist = mkdtempSync(path.join(os.tmpdir(), 'kindling-share-tags-'));
  // the app's own index.html: its generic tags are the ones the pages keep
  copyFileSync(path.join(projectRoot, 'index.html'), path.join(dist, 'index.html'));
  const config = testConfig();
  appUrl = config.appUrl;
  app = await buildApp({ config, db: database.db, client: 'built', clientDist: dist, logger: false });
  await app.ready();
  owner = await browserUser('share_owner');
  member = await browserUser('share_member');
  stranger = await browserUser('share_stranger');
});
afterAll(async () => {
  await app?.close();
  await database?.close();
  rmSync(dist, { recursive: true, force: true });
});

describe('share tags, as text', () => {
  it('escapes quotes, apostrophes, angle brackets and ampersands', () => {
    expect(escapeHtml(`"a" & 'b' <c>`)).toBe('&quot;a&quot; &amp; &#39;b&#39; &lt;c&gt;');
  });

  it('shortens a description to one line of at most 200 characters, at a word', () => {
    expect(shortText('  Two\nlines\t and\r\n\r\nmore \u0000 ')).toBe('Two lines and more');
    const long = `${'word '.repeat(100)}end`;
    const short = shortText(long);
    expect(Array.from(short).length).toBeLessThanOrEqual(200);
    expect(short).toMatch(/^(word )+word…$/);
    // one long word is cut inside it; an emoji is never split in half
    expect(Array.from(shortText('🔥'.repeat(300)))).toEqual([...Array.from('🔥'.repeat(199)), '…']);
  });

  it('takes the generic tags out of a template and puts the item’s in their place', () => {
    const template =
      '<head>\n  <meta charset="UTF-8" />\n  <meta name="description" content="generic" />\n  <meta property="og:title" content="Kindling" />\n  <title>Kindling</title>\n  <link rel="icon" href="/favicon.svg" />\n</head>';
    const slot = shareSlot(template);
    expect(slot.generic).toEqual({ title: '<title>Kindling</title>', description: '<meta name="description" content="generic" />' });
    expect(fillShareSlot(slot, '<X>')).toBe('<head>\n  <meta charset="UTF-8" />\n<X>  <link rel="icon" href="/favicon.svg" />\n</head>');
    // a template without any: before </head>
    expect(fillShareSlot(shareSlot('<head><title>Kindling</title></head>'), '<X>')).toBe('<head><X></head>');
    expect(fillShareSlot(shareSlot('<head></head>'), '<X>')).toBe('<head><X></head>');
    const draft = itemShareTags('https://k.example', {
      kind: 'campaign',
      id: 'x',
      title: 'Secret',
      description: 'Hidden',
      imageUrl: '/uploads/a.png',
      visibility: 'scheduled',
    });
    expect(draft).not.toMatch(/Secret|Hidden|a\.png/);
    expect(draft).toContain(`<meta property="og:title" content="${M.privatePreview}">`);
  });
});

describe('the share tags of a page', () => {
  it('are a released campaign’s own: its title, the start of its description, its cover and address, escaped', async () => {
    const [cover] = await uploadImages(app, owner, 1, 'cover');
    const title = `Seeds "for" the <b>garden</b> & 'yard'`;
    const description = `A first line with <i>markup</i> & "quotes".\n\nThen ${'a long story '.repeat(40)}`;
    const c = await create(KINDS[0], owner, { title, description, imageUrl: cover.url });
    for (const who of [null, stranger, owner]) {
      const { res, head } = await page(`/campaigns/${c._id}`, who);
      expect(res.statusCode).toBe(200);
      expect(metas(head, 'og:title')).toEqual([title]);
      expect(metas(head, 'twitter:title')).toEqual([title]);
      const text = shortText(description);
      expect(text.startsWith('A first line with <i>markup</i> & "quotes". Then a long story')).toBe(true);
      expect(Array.from(text).length).toBeLessThanOrEqual(200);
      expect(metas(head, 'og:description')).toEqual([text]);
      expect(metas(head, 'twitter:description')).toEqual([text]);
      expect(metas(head, 'description')).toEqual([text]);
      expect(metas(head, 'og:image')).toEqual([`${appUrl}${cover.url}`]);
      expect(metas(head, 'twitter:image')).toEqual([`${appUrl}${cover.url}`]);
      expect(metas(head, 'og:url')).toEqual([`${appUrl}/campaigns/${c._id}`]);
      expect(metas(head, 'og:type')).toEqual(['article']);
      expect(metas(head, 'twitter:card')).toEqual(['summary_large_image']);
      // the text is escaped: no tag of it, and no attribute ended early
      expect(head).not.toMatch(/<b>|<i>|"for"|'yard'/);
      expect(head).toContain('content="Seeds &quot;for&quot; the &lt;b&gt;garden&lt;/b&gt; &amp; &#39;yard&#39;"');
      expect(head).toContain(`<title>${escapeHtml(title)} · Kindling</title>`);
      expect(head.match(/<title>/g)).toHaveLength(1);
      // a released item's page is cached as every page is, and may be indexed
      expect(res.headers['cache-control']).toBe('private, no-cache');
      expect(res.headers['x-robots-tag']).toBeUndefined();
    }
  });

  it('are a released project’s own; without a cover, a small card and no image', async () => {
    const p = await create(KINDS[1], owner, { title: 'Loom <3', description: 'Weaving, openly.' });
    const { res, head } = await page(`/projects/${p._id}`);
    expect(res.statusCode).toBe(200);
    expect(metas(head, 'og:title')).toEqual(['Loom <3']);
    expect(metas(head, 'og:description')).toEqual(['Weaving, openly.']);
    expect(metas(head, 'og:url')).toEqual([`${appUrl}/projects/${p._id}`]);
    expect(metas(head, 'twitter:card')).toEqual(['summary']);
    expect(metas(head, 'og:image')).toEqual([]);
    expect(metas(head, 'twitter:image')).toEqual([]);
    // the project's page carries its project in its first data too
    expect(res.body).toContain(`"queryKey":[["projects","get"],{"input":{"id":"${p._id}"},"type":"query"}]`);

    const [cover] = await uploadImages(app, owner, 1, 'cover');
    const withCover = await create(KINDS[1], owner, { title: 'Loom two', imageUrl: cover.url });
    const second = await page(`/projects/${withCover._id}`);
    expect(metas(second.head, 'og:image')).toEqual([`${appUrl}${cover.url}`]);
    expect(metas(second.head, 'twitter:card')).toEqual(['summary_large_image']);
    // no description: no description tags (not the generic one either)
    expect(metas(second.head, 'og:description')).toEqual([]);
    expect(metas(second.head, 'description')).toEqual([]);
  });

  it('are the generic ones on every other page, a missing item’s included', async () => {
    for (const url of [
      '/',
      '/campaigns',
      '/projects',
      '/login',
      '/no/such/page',
      `/campaigns/${randomUUID()}`,
      `/projects/${randomUUID()}`,
      '/campaigns/not-an-id',
    ]) {
      const { head } = await page(url);
      expect(metas(head, 'og:title'), url).toEqual(['Kindling']);
      expect(metas(head, 'og:description'), url).toEqual([GENERIC_DESCRIPTION]);
      expect(metas(head, 'twitter:card'), url).toEqual(['summary']);
      expect(metas(head, 'og:image'), url).toEqual([]);
      expect(head.match(/<title>Kindling<\/title>/g), url).toHaveLength(1);
    }
  });
});

describe.each(KINDS)('the page of a draft $one', (k) => {
  it('says only "Private preview" to its owner and circle, with no-store, noindex and no-referrer', async () => {
    const [cover] = await uploadImages(app, owner, 1, 'cover');
    const d = await create(k, owner, { title: 'Secret "plan" <x>', description: 'Not for you yet', imageUrl: cover.url, visibility: 'draft' });
    const scheduled = await create(k, owner, { title: 'Secret soon', description: 'Later', releaseAt: new Date(Date.now() + 86_400_000).toISOString() });
    expect([d.visibility, scheduled.visibility]).toEqual(['draft', 'scheduled']);
    const invite = await call(app, owner, { method: 'POST', url: `/api/${k.kind}/${d._id}/circle/members`, payload: { who: 'share_member' } });
    expect(invite.statusCode).toBe(201);

    for (const [who, id] of [
      [owner, d._id],
      [owner, scheduled._id],
      [member, d._id],
    ] as const) {
      const { res, head } = await page(`/${k.kind}/${id}`, who);
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-robots-tag']).toBe('noindex');
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(metas(head, 'og:title')).toEqual([M.privatePreview]);
      expect(metas(head, 'twitter:title')).toEqual([M.privatePreview]);
      expect(metas(head, 'twitter:card')).toEqual(['summary']);
      expect(metas(head, 'robots')).toEqual(['noindex']);
      for (const none of ['og:description', 'og:image', 'og:url', 'twitter:description', 'twitter:image']) expect(metas(head, none), none).toEqual([]);
      // nothing of the draft in the head: the tab's title and description are the generic ones
      expect(head).not.toMatch(/Secret|Not for you|Later|og:description/);
      expect(head).not.toContain(cover.url.replace(/^\//, `${appUrl}/`));
      expect(head.match(/<title>Kindling<\/title>/g)).toHaveLength(1);
      expect(metas(head, 'description')).toEqual([`Kindling: ${GENERIC_DESCRIPTION.replace(/^M/, 'm')}`]);
      // no validator: nothing keeps the page
      expect(res.headers.etag).toBeUndefined();
    }
  });

  it('is, to a visitor and a stranger, byte for byte a missing item’s page', async () => {
    const d = await create(k, owner, { title: 'Hidden draft', description: 'Nobody else', visibility: 'draft' });
    const scheduled = await create(k, owner, { title: 'Hidden soon', releaseAt: new Date(Date.now() + 86_400_000).toISOString() });
    const missing = randomUUID();
    for (const who of [null, stranger]) {
      const asMissing = await page(`/${k.kind}/${missing}`, who);
      expect(asMissing.res.statusCode).toBe(200);
      expect(asMissing.res.headers['x-robots-tag']).toBeUndefined();
      expect(asMissing.res.headers['cache-control']).toBe('private, no-cache');
      for (const id of [d._id, scheduled._id]) {
        const { res } = await page(`/${k.kind}/${id}`, who);
        expect(res.statusCode).toBe(asMissing.res.statusCode);
        expect(steadyBody(res.body)).toBe(steadyBody(asMissing.res.body));
        expect(steadyHeaders(res.headers)).toEqual(steadyHeaders(asMissing.res.headers));
        expect(res.body).not.toContain('Hidden');
      }
    }
    // the same compressed
    const br = (id: string) => call(app, stranger, { method: 'GET', url: `/${k.kind}/${id}`, headers: { accept: 'text/html', 'accept-encoding': 'br' } });
    const [draftBr, missingBr] = [await br(d._id), await br(missing)];
    expect(draftBr.headers['content-encoding']).toBe('br');
    expect(steadyBody(brotliDecompressSync(draftBr.rawPayload).toString())).toBe(steadyBody(brotliDecompressSync(missingBr.rawPayload).toString()));
    expect(steadyHeaders(draftBr.headers, true)).toEqual(steadyHeaders(missingBr.headers, true));
  });
});
