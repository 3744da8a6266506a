import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { matchRoutes, type RouteObject } from 'react-router-dom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appRouteNames, appRoutes, matchAppRoute } from '../../shared/routes';
import { buildApp } from '../app';
import { precompressDir } from '../build-client';
import { pickEncoding, projectRoot } from './client-app';
import { plainRoute, restRoute, sendCsv } from './rest';
import { openTestDatabase, signUp, testConfig } from '../../../test/helpers';

/*
 * How the built client and the API answers travel: brotli or gzip as the browser accepts, the
 * right caching, a real 404 for what does not exist, and the one list of app routes.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let dist: string;

/** A script large enough to compress well, with bytes that must survive the round trip. */
const SCRIPT = `export const words = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `word-${i}-é✓`))};\n`;
const INDEX =
  '<!doctype html><html lang="en"><head><title>Kindling</title><script type="module" crossorigin src="/assets/index-abc.js"></script></head><body><div id="root"></div></body></html>';
const MANIFEST = {
  'index.html': { file: 'assets/index-abc.js', isEntry: true, imports: ['_shared-abc.js'], css: ['assets/index-abc.css'] },
  '_shared-abc.js': { file: 'assets/shared-abc.js' },
  '_list-abc.js': { file: 'assets/list-abc.js', imports: ['_shared-abc.js'] },
  'src/client/pages/campaigns/CampaignDetailPage.tsx': { file: 'assets/CampaignDetailPage-abc.js', imports: ['_list-abc.js', 'index.html'] },
  'src/client/pages/campaigns/NewCampaignPage.tsx': { file: 'assets/NewCampaignPage-abc.js', imports: ['index.html'], css: ['assets/NewCampaignPage-abc.css'] },
  'src/client/pages/home/HomePage.tsx': { file: 'assets/HomePage-abc.js', imports: ['index.html', '_shared-abc.js'] },
};

beforeAll(async () => {
  database = await openTestDatabase();
  dist = mkdtempSync(path.join(os.tmpdir(), 'kindling-delivery-'));
  mkdirSync(path.join(dist, 'assets'));
  mkdirSync(path.join(dist, '.vite'));
  writeFileSync(path.join(dist, 'index.html'), INDEX);
  writeFileSync(path.join(dist, 'assets', 'index-abc.js'), SCRIPT);
  writeFileSync(path.join(dist, 'assets', 'index-abc.css'), `body { margin: 0 }\n${'.x { color: red }\n'.repeat(200)}`);
  writeFileSync(path.join(dist, 'assets', 'logo-abc.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
  writeFileSync(path.join(dist, '.vite', 'manifest.json'), JSON.stringify(MANIFEST));
  copyFileSync(path.join(projectRoot, 'public', 'robots.txt'), path.join(dist, 'robots.txt'));
  precompressDir(dist);
  // the per-address limit on: compressed answers must still end their turns
  app = await buildApp({ config: testConfig({ clientConcurrency: 2, clientQueue: 20 }), db: database.db, client: 'built', clientDist: dist, logger: false });
  restRoute(app, {
    method: 'GET',
    url: '/api/test/big',
    summary: 'A route of this test: a big answer',
    tag: 'docs',
    auth: 'none',
    errors: {},
    response: z.object({ items: z.array(z.object({ _id: z.string(), title: z.string() })) }),
    handler: () => ({ items: Array.from({ length: 60 }, (_, i) => ({ _id: `id-${i}`, title: `Campaign number ${i} ✓` })) }),
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/test/small',
    summary: 'A route of this test: a small answer',
    tag: 'docs',
    auth: 'none',
    errors: {},
    response: z.object({ ok: z.boolean() }),
    handler: () => ({ ok: true }),
  });
  plainRoute(app, {
    method: 'GET',
    url: '/api/test/csv',
    summary: 'A route of this test: a CSV download',
    tag: 'docs',
    auth: 'none',
    errors: {},
    csv: true,
    response: z.object({}),
    handler: (_req, reply) =>
      sendCsv(reply, { filename: 'rows.csv', csv: `id,title\r\n${Array.from({ length: 100 }, (_, i) => `${i},Row ${i}`).join('\r\n')}\r\n` }),
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await database?.close();
  rmSync(dist, { recursive: true, force: true });
});

/** The page without the first data the server put in it (first-data.ts): the template it was made from. */
const withoutFirstData = (html: string) => html.replace(/<script type="application\/json" id="first-data">[^<]*<\/script>/, '');

function decode(body: Buffer, encoding: string | undefined): Buffer {
  if (encoding === 'br') return brotliDecompressSync(body);
  if (encoding === 'gzip') return gunzipSync(body);
  if (encoding === undefined) return body;
  throw new Error(`unexpected content-encoding ${encoding}`);
}

describe('precompressing the build', () => {
  it('writes brotli and gzip copies of every text file that decompress to the same bytes, and none of images or the manifest', () => {
    for (const file of ['index.html', 'robots.txt', 'assets/index-abc.js', 'assets/index-abc.css']) {
      const original = readFileSync(path.join(dist, file));
      expect(brotliDecompressSync(readFileSync(path.join(dist, `${file}.br`))).equals(original), file).toBe(true);
      expect(gunzipSync(readFileSync(path.join(dist, `${file}.gz`))).equals(original), file).toBe(true);
    }
    expect(existsSync(path.join(dist, 'assets', 'logo-abc.png.br'))).toBe(false);
    expect(existsSync(path.join(dist, '.vite', 'manifest.json.br'))).toBe(false);
  });
});

describe('the built client, compressed', () => {
  const cases: [string | undefined, string | undefined][] = [
    ['br, gzip, deflate', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0.5, br;q=0.4', 'gzip'],
    // no preference: gzip, which every client that sends it can read
    ['*', 'gzip'],
    ['identity', undefined],
    ['deflate', undefined],
    [undefined, undefined],
  ];

  it('sends a hashed asset in the encoding Accept-Encoding asks for, decompressing to the built bytes, cached for a year', async () => {
    const original = readFileSync(path.join(dist, 'assets', 'index-abc.js'));
    for (const [accept, expected] of cases) {
      const res = await app.inject({ method: 'GET', url: '/assets/index-abc.js', headers: accept === undefined ? {} : { 'accept-encoding': accept } });
      expect(res.statusCode, String(accept)).toBe(200);
      expect(res.headers['content-encoding'], String(accept)).toBe(expected);
      expect(res.headers['content-type'], String(accept)).toMatch(/javascript/);
      expect(res.headers.vary, String(accept)).toMatch(/accept-encoding/i);
      expect(res.headers['cache-control'], String(accept)).toBe('public, max-age=31536000, immutable');
      expect(decode(res.rawPayload, expected).equals(original), String(accept)).toBe(true);
      if (expected) expect(res.rawPayload.length).toBeLessThan(original.length / 2);
    }
    const css = await app.inject({ method: 'GET', url: '/assets/index-abc.css', headers: { 'accept-encoding': 'gzip, br' } });
    expect(css.headers['content-encoding']).toBe('br');
    expect(css.headers['content-type']).toMatch(/text\/css/);
  });

  it('answers HEAD like GET, without a body', async () => {
    const res = await app.inject({ method: 'HEAD', url: '/assets/index-abc.js', headers: { 'accept-encoding': 'br' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.rawPayload.length).toBe(0);
  });

  it('sends an image as it is', async () => {
    const res = await app.inject({ method: 'GET', url: '/assets/logo-abc.png', headers: { 'accept-encoding': 'br, gzip' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.rawPayload.equals(readFileSync(path.join(dist, 'assets', 'logo-abc.png')))).toBe(true);
  });

  it('sends the page compressed, never cached without asking, and answers a repeat visit with 304', async () => {
    for (const [accept, expected] of cases) {
      const res = await app.inject({ method: 'GET', url: '/campaigns', headers: accept === undefined ? {} : { 'accept-encoding': accept } });
      expect(res.statusCode, String(accept)).toBe(200);
      expect(res.headers['content-encoding'], String(accept)).toBe(expected);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('private, no-cache');
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(decode(res.rawPayload, expected).toString()).toContain('<div id="root"></div>');
    }
    const first = await app.inject({ method: 'GET', url: '/campaigns/42', headers: { 'accept-encoding': 'br' } });
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    const again = await app.inject({ method: 'GET', url: '/campaigns/42', headers: { 'accept-encoding': 'br', 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    // another route's page has other preloads, so another validator
    const home = await app.inject({ method: 'GET', url: '/', headers: { 'if-none-match': etag } });
    expect(home.statusCode).toBe(200);
    expect(home.headers.etag).not.toBe(etag);
  });

  it('preloads the first route’s page module and the chunks it needs that the main script does not load', async () => {
    const page = async (url: string) => (await app.inject({ method: 'GET', url })).body;
    const detail = await page('/campaigns/42');
    expect(detail).toContain('<link rel="modulepreload" crossorigin href="/assets/CampaignDetailPage-abc.js">');
    expect(detail).toContain('<link rel="modulepreload" crossorigin href="/assets/list-abc.js">');
    // already loaded by the main script: not preloaded again
    expect(detail).not.toContain('href="/assets/shared-abc.js"');
    expect(detail).not.toContain('NewCampaignPage');
    // a static path wins over a parameter, and the page's own stylesheet comes with it
    const create = await page('/campaigns/new');
    expect(create).toContain('href="/assets/NewCampaignPage-abc.js"');
    expect(create).toContain('<link rel="stylesheet" crossorigin href="/assets/NewCampaignPage-abc.css">');
    expect(create).not.toContain('CampaignDetailPage');
    expect(await page('/')).toContain('href="/assets/HomePage-abc.js"');
    // a route whose module the manifest does not list gets the page as built
    expect(withoutFirstData(await page('/login'))).toBe(INDEX);
    // the preloads sit in <head>, before the page's body
    expect(detail.indexOf('modulepreload')).toBeLessThan(detail.indexOf('</head>'));
  });
});

describe('not found', () => {
  it('answers the app’s routes with the page, parameterised ones too', async () => {
    for (const url of [
      '/',
      '/campaigns',
      '/campaigns/7f3c2a',
      '/campaigns/new',
      '/CAMPAIGNS/7/',
      '/projects/9/edit',
      '/teams/3/manage',
      '/reset/abc',
      '/profiles/u1?tab=teams',
      '/admin/cron',
      '/myCampaigns',
    ]) {
      const res = await app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toContain('<div id="root"></div>');
    }
  });

  it('answers a path no route matches with 404 and the page, so the browser shows "Page not found"', async () => {
    for (const url of ['/no/such/page', '/campaigns/1/2', '/campaign', '/projects/9/edit/more', '/nope.png', '/robots.txt.bak', '/index.htm']) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await app.inject({ method, url, headers: { accept: 'text/html', 'accept-encoding': 'gzip' } });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
        expect(res.headers['cache-control'], url).toBe('private, no-cache');
        if (method === 'GET') expect(withoutFirstData(gunzipSync(res.rawPayload).toString()), url).toBe(INDEX);
      }
    }
  });

  it('answers an unknown file under /assets or /uploads, and an unknown /api path, with a JSON 404', async () => {
    for (const url of [
      '/assets/missing.js',
      '/assets/missing-123.css',
      '/assets/',
      '/uploads/missing.png',
      '/uploads/a/b.jpg',
      '/api/nope',
      '/api/campaigns/x/y/z',
      '/api',
    ]) {
      const res = await app.inject({ method: 'GET', url, headers: { accept: 'text/html', 'accept-encoding': 'br' } });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/application\/json/);
      expect(res.json(), url).toEqual({ error: 'Not found' });
    }
  });

  it('serves robots.txt as a file that lets crawlers read the public pages', async () => {
    const res = await app.inject({ method: 'GET', url: '/robots.txt' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.headers['cache-control']).toBe('no-cache');
    const lines = res.body.split('\n').map((l) => l.trim());
    expect(lines).toContain('User-agent: *');
    expect(lines).toContain('Allow: /');
    expect(lines).not.toContain('Disallow: /');
    for (const page of ['/campaigns', '/projects', '/teams', '/profiles', '/login'])
      expect(
        lines.some((l) => l.startsWith('Disallow:') && page.startsWith(l.slice('Disallow:'.length).trim())),
        page,
      ).toBe(false);
  });
});

describe('API answers, compressed above 1 KB', () => {
  it('compresses a large JSON answer as the client accepts, to the same JSON', async () => {
    const plain = await app.inject({ method: 'GET', url: '/api/test/big' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(1024);
    for (const [accept, expected] of [
      ['br, gzip', 'br'],
      ['gzip', 'gzip'],
      ['deflate', undefined],
      ['identity', undefined],
    ] as const) {
      const res = await app.inject({ method: 'GET', url: '/api/test/big', headers: { 'accept-encoding': accept } });
      expect(res.statusCode, accept).toBe(200);
      expect(res.headers['content-encoding'], accept).toBe(expected);
      expect(res.headers['content-type'], accept).toMatch(/application\/json/);
      expect(res.headers['cache-control'], accept).toBe('no-store');
      expect(decode(res.rawPayload, expected).equals(plain.rawPayload), accept).toBe(true);
      if (expected) expect(res.headers.vary).toMatch(/accept-encoding/i);
    }
  });

  it('leaves a small answer and an error as they are', async () => {
    const small = await app.inject({ method: 'GET', url: '/api/test/small', headers: { 'accept-encoding': 'br, gzip' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json()).toEqual({ ok: true });
    const unauthorised = await app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'accept-encoding': 'br, gzip' } });
    expect(unauthorised.statusCode).toBe(401);
    expect(unauthorised.headers['content-encoding']).toBeUndefined();
    expect(unauthorised.json()).toHaveProperty('error');
  });

  it('compresses a CSV download and keeps its type and file name', async () => {
    const plain = await app.inject({ method: 'GET', url: '/api/test/csv' });
    const res = await app.inject({ method: 'GET', url: '/api/test/csv', headers: { 'accept-encoding': 'gzip' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="rows.csv"');
    expect(gunzipSync(res.rawPayload).equals(plain.rawPayload)).toBe(true);
  });

  it('compresses a tRPC batch, and every answer still ends its turn of the per-address limit', async () => {
    const { token } = await signUp(app);
    const n = 10;
    const input = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, { json: null }]))));
    const url = `/trpc/${Array(n).fill('auth.me').join(',')}?batch=1&input=${input}`;
    const headers = { authorization: `Bearer ${token}` };
    const plain = await app.inject({ method: 'GET', url, headers });
    expect(plain.statusCode).toBe(200);
    expect(plain.rawPayload.length).toBeGreaterThan(1024);
    // more at once than the address may have handled together: the rest wait their turn
    const all = await Promise.all(Array.from({ length: 6 }, () => app.inject({ method: 'GET', url, headers: { ...headers, 'accept-encoding': 'br' } })));
    expect(all.map((r) => r.statusCode)).toEqual(Array(6).fill(200));
    const res = all[5];
    expect(res.headers['content-encoding']).toBe('br');
    const results = JSON.parse(brotliDecompressSync(res.rawPayload).toString()) as { result: { data: { json: { email: string } } } }[];
    expect(results).toHaveLength(n);
    expect(results[0].result.data.json.email).toMatch(/@example\.com$/);
    // nothing of these answers is still holding a turn
    expect(app.clientLimits.addresses).toBe(0);
  });

  it('leaves request bodies as sent: a body marked gzip is read as it is, not inflated', async () => {
    const send = (headers: Record<string, string>) =>
      app.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.251.0.2', ...headers },
        payload: JSON.stringify({ email: 'nobody-here@example.com', password: 'not the password' }),
      });
    const plain = await send({});
    const marked = await send({ 'content-encoding': 'gzip' });
    // a decompressing server would refuse it as a broken gzip stream
    expect(marked.statusCode).toBe(plain.statusCode);
    expect(marked.json()).toEqual(plain.json());
  });
});

describe('the one list of app routes', () => {
  // the client's router, built from the same list (App.tsx nests them under "/")
  const routerRoutes: RouteObject[] = [
    { id: 'root', path: '/', children: [...appRouteNames.map((name) => ({ id: name, path: appRoutes[name].path })), { id: 'notFound', path: '*' }] },
  ];
  const samples = [
    '/',
    '/login',
    '/LOGIN',
    '/login/',
    '/login//',
    '/register',
    '/reset/tok-1',
    '/reset',
    '/reset/a/b',
    '/campaigns',
    '/campaigns/',
    '/campaigns/new',
    '/campaigns/new/',
    '/campaigns/abc',
    '/campaigns/abc/edit',
    '/campaigns/abc/def',
    '/projects/p1/edit',
    '/projects/p1/EDIT',
    '/projects/new',
    '/teams/t/manage',
    '/teams/t',
    '/teams/new',
    '/profiles/u',
    '/donations/d1',
    '/disputes/new',
    '/disputes',
    '/admin',
    '/admin/cron',
    '/admin/other',
    '/myCampaigns',
    '/mycampaigns',
    '/my',
    '/verify-email',
    '/verify',
    '/a.b',
    '/campaigns/a.b',
    '/campaigns/%20x',
    '/x',
    '/teams/t/manage/more',
  ];

  it('matches a path exactly when the client’s router shows one of its pages for it', () => {
    for (const url of samples) {
      const matched = matchRoutes(routerRoutes, url);
      const leaf = matched?.[matched.length - 1]?.route.id;
      const clientRoute = leaf === 'notFound' || leaf === 'root' || leaf === undefined ? undefined : leaf;
      expect(matchAppRoute(url), url).toBe(clientRoute);
    }
  });

  it('names a page module that exists for every route', () => {
    for (const name of appRouteNames) {
      expect(existsSync(path.join(projectRoot, 'src', 'client', 'pages', `${appRoutes[name].page}.tsx`)), name).toBe(true);
    }
  });

  it('is where the client’s router takes its paths from (App.tsx spells none of its own)', () => {
    const source = readFileSync(path.join(projectRoot, 'src', 'client', 'App.tsx'), 'utf8');
    expect(source).toMatch(/appRoutes/);
    // only the root all pages hang under ("/") and the catch-all ("*") are spelled there
    expect(source.match(/path:\s*['"`](?!\/['"`])[^*'"`]/g) ?? []).toEqual([]);
  });

  it('prefers brotli, then gzip, honouring q-values', () => {
    expect(pickEncoding('gzip, br')).toBe('br');
    expect(pickEncoding('br;q=0.1, gzip;q=0.9')).toBe('gzip');
    expect(pickEncoding('br;q=0, gzip;q=0')).toBeUndefined();
    expect(pickEncoding('*')).toBe('gzip');
    expect(pickEncoding('br;q=0.5, *')).toBe('gzip');
    expect(pickEncoding('*;q=0')).toBeUndefined();
    expect(pickEncoding('')).toBeUndefined();
  });
});
