import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../shared/messages';
import { buildApp } from '../app';
import { buildTestApp, call, freshIp, openTestDatabase, signUp, testConfig } from '../../../test/helpers';
import { checkContract } from '../../../test/contract';
import type { LimitClock } from './client-limit';
import { apiDoorOf, normalizeUrl } from './security';

// A path whose letters are percent-encoded (`/%61pi/...` for /api, `/%74rpc/...` for /trpc)
// reaches the same route as the plain one, so it gets all the plain one gets: no-store, the
// per-address limit, the session and the cross-site check, on each door.

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let me: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  me = await signUp(app, { username: 'encoded_me' });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

/** Each door's "who am I" call, as sent plainly and as sent with letters encoded (in upper and lower case hex, and nested). */
const DOORS = {
  REST: { plain: '/api/auth/me', encoded: ['/%61pi/auth/me', '/%61%70%69/%61uth/m%65', '/ap%69/auth/%6De', '/%6%31pi/auth/me'] },
  tRPC: { plain: '/trpc/auth.me', encoded: ['/%74rpc/auth.me', '/%74%72%70%63/auth%2Eme', '/tr%70c/%61uth.%6De', '/%7%34rpc/auth.me'] },
} as const;

describe('a path with percent-encoded letters', () => {
  it('is the same path as the plain one, for the router and for every hook', () => {
    expect(normalizeUrl('/%61pi/auth/me?x=%61')).toBe('/api/auth/me?x=%61');
    expect(normalizeUrl('/%74%72%70%63/a%2Eb%2db%5Fc%7E%7e')).toBe('/trpc/a.b-b_c~~');
    expect(normalizeUrl('/%7%34rpc/x')).toBe('/trpc/x');
    // what is not an unreserved character stays as sent
    expect(normalizeUrl('/api/a%2Fb%25%20%3F%40%zz%4')).toBe('/api/a%2Fb%25%20%3F%40%zz%4');
    expect(normalizeUrl('/%2561pi/x')).toBe('/%2561pi/x');
    expect(apiDoorOf('/api')).toBe('api');
    expect(apiDoorOf('/api?x')).toBe('api');
    expect(apiDoorOf('/trpc/auth.me')).toBe('trpc');
    expect(apiDoorOf('/apix')).toBeNull();
    expect(apiDoorOf('/uploads/a.png')).toBeNull();
  });

  for (const [door, { plain, encoded }] of Object.entries(DOORS)) {
    it(`${door}: is answered as the plain path, no-store, for the signed-in person`, async () => {
      const expected = await call(app, me, { method: 'GET', url: plain });
      expect(expected.statusCode).toBe(200);
      expect(expected.body).toContain('encoded_me');
      expect(expected.headers['cache-control']).toBe('no-store');
      for (const url of encoded) {
        const res = await call(app, me, { method: 'GET', url });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['cache-control'], url).toBe('no-store');
        // the same person: the session was read
        expect(res.body, url).toBe(expected.body);
      }
    });

    it(`${door}: refuses a write from another site, as on the plain path`, async () => {
      const write = door === 'REST' ? '/%61pi/auth/logout' : '/%74rpc/auth.logout';
      const res = await call(
        app,
        { ...me, token: undefined, cookie: `session=${me.token}` },
        { method: 'POST', url: write, headers: { origin: 'https://evil.example' }, payload: {} },
      );
      expect(res.statusCode).toBe(403);
      expect(res.body).toContain(M.crossSiteRefused);
      expect(res.headers['cache-control']).toBe('no-store');
      // still signed in
      expect((await call(app, me, { method: 'GET', url: plain })).body).toContain('encoded_me');
    });
  }
});

describe('the per-address limit on an encoded path', () => {
  let limited: FastifyInstance;
  // one request per address and no more: the clock never moves, so the budget never comes back
  const stopped: LimitClock = { now: () => 0, after: () => () => {} };

  beforeAll(async () => {
    limited = checkContract(
      await buildApp({
        config: testConfig({ clientConcurrency: 0, clientQueue: 0, clientRate: 1, clientBurst: 1 }),
        db: database.db,
        client: 'none',
        logger: false,
        clientLimitClock: stopped,
      }),
    );
    await limited.ready();
  });
  afterAll(async () => {
    await limited?.close();
  });

  for (const [door, { plain, encoded }] of Object.entries(DOORS)) {
    it(`${door}: counts an encoded request against its address, and refuses it once the address's budget is spent`, async () => {
      for (const url of encoded) {
        // the encoded request spends the budget: the plain one after it is refused
        const address = freshIp();
        const first = await call(limited, { ip: address }, { method: 'GET', url });
        expect(first.statusCode, url).toBe(door === 'REST' ? 401 : 200);
        const next = await call(limited, { ip: address }, { method: 'GET', url: plain });
        expect(next.statusCode, url).toBe(429);
        expect(next.json(), url).toEqual({ error: M.tooManyAtOnce });

        // and an encoded request past the spent budget is refused the same
        const other = freshIp();
        expect((await call(limited, { ip: other }, { method: 'GET', url: plain })).statusCode).not.toBe(429);
        const refused = await call(limited, { ip: other }, { method: 'GET', url });
        expect(refused.statusCode, url).toBe(429);
        expect(refused.headers['cache-control'], url).toBe('no-store');
      }
    });
  }
});
