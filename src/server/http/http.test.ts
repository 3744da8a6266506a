import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApp, TRPC_MAX_BATCH } from '../app';
import { plainRoute, restRoute } from './rest';
import viteConfig from '../../../vite.config';
import { openTestDatabase, signUp, testConfig, trpc } from '../../../test/helpers';
import { checkContract } from '../../../test/contract';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let dist: string;

beforeAll(async () => {
  database = await openTestDatabase();
  dist = mkdtempSync(path.join(os.tmpdir(), 'kindling-dist-'));
  mkdirSync(path.join(dist, 'assets'));
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Kindling</title><div id="root"></div>');
  writeFileSync(path.join(dist, 'assets', 'app-abc123.js'), 'console.log(1)');
  // a source map an older build left behind: never served
  writeFileSync(path.join(dist, 'assets', 'app-abc123.js.map'), '{"version":3,"sources":["../../src/client/secret.tsx"]}');
  writeFileSync(path.join(dist, 'stray.css.map'), '{"version":3,"sources":["../src/client/secret.css"]}');
  app = checkContract(await buildApp({ config: testConfig(), db: database.db, client: 'built', clientDist: dist, logger: false }));
  restRoute(app, {
    method: 'GET',
    url: '/api/test/declared',
    summary: 'A route of this test: its declared answer',
    tag: 'docs',
    auth: 'none',
    errors: {},
    response: z.object({
      _id: z.string(),
      when: z.date(),
      note: z.string().nullable(),
      owner: z.object({ _id: z.string(), name: z.string().nullable() }).nullable(),
      tags: z.array(z.string()),
    }),
    handler: () =>
      ({
        _id: 'x1',
        when: new Date('2026-01-02T03:04:05.678Z'),
        note: null,
        owner: { _id: 'u1', name: 'Ann', email: 'ann@example.com', passwordHash: '$argon2id$secret' },
        tags: ['a'],
        passwordHash: '$argon2id$secret',
      }) as never,
  });
  plainRoute(app, {
    method: 'GET',
    url: '/api/test/boom',
    summary: 'A route of this test: it fails',
    tag: 'docs',
    auth: 'none',
    errors: {},
    response: z.object({}),
    handler: async () => {
      throw new Error('secret internal detail: connection string postgres://x:y@z');
    },
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await database?.close();
  rmSync(dist, { recursive: true, force: true });
});

describe('the single-page app and unknown paths', () => {
  it('serves index.html for any page route, never cached (with a 404 for a path no route matches)', async () => {
    for (const [url, status] of [
      ['/', 200],
      ['/campaigns/123', 200],
      ['/no/such/page', 404],
    ] as const) {
      const res = await app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(res.statusCode).toBe(status);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.body).toContain('<div id="root">');
      // the page carries what its first paint needs to know about the visitor: the browser's own cache only
      expect(res.headers['cache-control']).toBe('private, no-cache');
    }
  });

  it('caches hashed assets for a year', async () => {
    const res = await app.inject({ method: 'GET', url: '/assets/app-abc123.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toContain('immutable');
  });

  it('answers an unknown /api or /trpc path with a JSON 404, never the page', async () => {
    for (const url of ['/api/nope', '/api/campaigns/x/y/z', '/trpc/nope.nothing']) {
      const res = await app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).not.toContain('<div id="root">');
    }
    const post = await app.inject({ method: 'POST', url: '/api/nope', payload: {} });
    expect(post.statusCode).toBe(404);
    expect(post.json()).toEqual({ error: 'Not found' });
  });
});

describe('source maps', () => {
  it('are not emitted by the production build', () => {
    expect((viteConfig as { build?: { sourcemap?: unknown } }).build?.sourcemap).toBe(false);
  });

  it('are never served by the built client, and a missing asset is a 404, not the page', async () => {
    for (const url of [
      '/assets/app-abc123.js.map',
      '/stray.css.map',
      '/assets/app-abc123.js%2Emap',
      '/assets/app-abc123.js.map?x=1',
      '/assets/missing-123.js',
    ]) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).not.toContain('sources');
      expect(res.body, url).not.toContain('<div id="root">');
    }
    // the script itself is still served
    expect((await app.inject({ method: 'GET', url: '/assets/app-abc123.js' })).statusCode).toBe(200);
  });
});

describe('caching of private answers', () => {
  it('marks every REST answer no-store: signed in, signed out, errors and unknown paths', async () => {
    const { token } = await signUp(app);
    const auth = { authorization: `Bearer ${token}` };
    const answers = [
      await app.inject({ method: 'GET', url: '/api/auth/me', headers: auth }),
      await app.inject({ method: 'GET', url: '/api/teams/mine', headers: auth }),
      await app.inject({ method: 'GET', url: '/api/favorites', headers: auth }),
      await app.inject({ method: 'GET', url: '/api/blocks', headers: auth }),
      await app.inject({ method: 'PUT', url: '/api/user/profile', headers: auth, payload: { tags: ['cooking'] } }),
      await app.inject({ method: 'GET', url: '/api/auth/me' }),
      await app.inject({ method: 'GET', url: '/api/campaigns?limit=1' }),
      await app.inject({ method: 'GET', url: '/api/nothing-here' }),
      await app.inject({ method: 'GET', url: '/api/test/boom' }),
      await app.inject({ method: 'POST', url: '/api/auth/login', payload: {} }),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 401, 200, 404, 500, 400]);
    for (const [i, res] of answers.entries()) expect(res.headers['cache-control'], `answer ${i}`).toBe('no-store');
  });

  it('marks every tRPC answer no-store, batched or not', async () => {
    const { token } = await signUp(app);
    const who = { token, ip: '10.250.0.1' };
    const me = await trpc(app, who, 'query', 'auth.me');
    expect(me.data.email).toMatch(/@example\.com$/);
    expect(me.headers['cache-control']).toBe('no-store');
    expect((await trpc(app, who, 'query', 'teams.mine')).headers['cache-control']).toBe('no-store');
    expect((await trpc(app, null, 'query', 'auth.me')).headers['cache-control']).toBe('no-store');
    const batch = await app.inject({
      method: 'GET',
      url: `/trpc/auth.me,auth.me?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { json: null }, 1: { json: null } }))}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(batch.statusCode).toBe(200);
    expect(batch.headers['cache-control']).toBe('no-store');
    const unknown = await app.inject({ method: 'GET', url: '/trpc/nope.nothing' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['cache-control']).toBe('no-store');
  });

  it('leaves pages and static files their own caching', async () => {
    expect((await app.inject({ method: 'GET', url: '/assets/app-abc123.js' })).headers['cache-control']).toContain('immutable');
    expect((await app.inject({ method: 'GET', url: '/campaigns/1', headers: { accept: 'text/html' } })).headers['cache-control']).toBe('private, no-cache');
    expect((await app.inject({ method: 'GET', url: '/apiary', headers: { accept: 'text/html' } })).headers['cache-control']).toBe('private, no-cache');
  });
});

describe('security headers', () => {
  it('sends a CSP that allows the app itself and nothing else', async () => {
    const res = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } });
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBeDefined();
  });

  it('sends the same headers on API answers and on errors', async () => {
    const page = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } });
    const answers = [
      await app.inject({ method: 'GET', url: '/api/test/declared' }),
      await app.inject({ method: 'GET', url: '/api/nothing-here' }),
      await app.inject({ method: 'GET', url: '/api/test/boom' }),
    ];
    for (const res of answers) {
      for (const name of ['content-security-policy', 'x-frame-options', 'x-content-type-options', 'cross-origin-opener-policy', 'referrer-policy']) {
        expect(res.headers[name], name).toBe(page.headers[name]);
      }
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
    expect(answers.map((r) => r.statusCode)).toEqual([200, 404, 500]);
  });
});

describe('declared answers', () => {
  it('sends only the fields the response schema declares, dates as ISO strings', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/test/declared' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ _id: 'x1', when: '2026-01-02T03:04:05.678Z', note: null, owner: { _id: 'u1', name: 'Ann' }, tags: ['a'] });
    expect(res.body).not.toMatch(/passwordHash|argon2|ann@example\.com/);
  });
});

describe('errors', () => {
  it('answers a server failure with 500 and no internals', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/test/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'Something went wrong on our side. Please try again.' });
    expect(res.body).not.toContain('secret');
  });

  it('refuses a body over the JSON limit with 413 and invalid JSON with 400', async () => {
    const big = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ error: 'Request body is too large' });
    const bad = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"email": ',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'Request body is not valid JSON' });
  });

  it('answers a path segment too long with 414 and a path that is not valid percent-encoding with 400, in its own words, without the path', async () => {
    const long = `x${'a'.repeat(6000)}`;
    const tooLong = [await app.inject({ method: 'GET', url: `/api/campaigns/${long}` }), await app.inject({ method: 'GET', url: `/trpc/${long}` })];
    for (const res of tooLong) {
      expect(res.statusCode).toBe(414);
      expect(res.json()).toEqual({ error: 'The address is too long' });
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    // a page path as long is the page, or its 404 page, not a refused file name
    const page = await app.inject({ method: 'GET', url: `/campaigns/${long}`, headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const unknown = await app.inject({ method: 'GET', url: `/${long}`, headers: { accept: 'text/html' } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^text\/html/);

    const bad = await app.inject({ method: 'GET', url: '/api/campaigns/%E0%A4%A' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'The address is not valid' });
    expect(bad.body).not.toContain('%E0');

    // the same without a client to serve (the router answers these itself)
    const bare = checkContract(await buildApp({ config: testConfig(), db: database.db, client: 'none', logger: false }));
    try {
      for (const url of [`/api/campaigns/${long}`, `/trpc/${long}`]) {
        const res = await bare.inject({ method: 'GET', url });
        expect(res.statusCode).toBe(414);
        expect(res.json()).toEqual({ error: 'The address is too long' });
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
      }
      const res = await bare.inject({ method: 'GET', url: '/api/campaigns/%E0%A4%A' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'The address is not valid' });
    } finally {
      await bare.close();
    }
  });
});

describe('tRPC batching', () => {
  it('answers a batch of many calls in one request', async () => {
    const { token } = await signUp(app);
    const n = 15;
    const paths = Array.from({ length: n }, () => 'auth.me').join(',');
    const input = Object.fromEntries(Array.from({ length: n }, (_, i) => [i, { json: null }]));
    const res = await app.inject({
      method: 'GET',
      url: `/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { result: { data: { json: { email: string } } } }[];
    expect(body).toHaveLength(n);
    expect(body.every((r) => typeof r.result.data.json.email === 'string')).toBe(true);
  });

  it(`refuses a batch of more than ${TRPC_MAX_BATCH} calls`, async () => {
    const n = TRPC_MAX_BATCH + 1;
    const paths = Array.from({ length: n }, () => 'auth.me').join(',');
    const res = await app.inject({ method: 'GET', url: `/trpc/${paths}?batch=1&input=${encodeURIComponent('{}')}` });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
  });
});
