import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { M } from '../../shared/messages';
import { buildApp } from '../app';
import { CLIENT_LIMIT_DEFAULTS, loadConfig } from '../config';
import { openTestDatabase, testConfig } from '../../../test/helpers';
import { checkContract } from '../../../test/contract';
import { z } from 'zod';
import { plainRoute } from './rest';

// A real listening server whose clients come from two loopback addresses, with the per-address
// limit at 2 requests handled at once and 2 waiting. A test route holds each request until the
// test lets it go, so every step waits for a condition (a request arrived, a count changed),
// never for a time.

const A = '127.0.0.1';
const B = '127.0.0.2';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let port: number;

/** Requests inside the held route's handler, in the order they arrived, each with the address it came from. */
let held: { address: string; release(): void }[] = [];
/** Per address: how many of its requests were inside the handler at once, at most. */
let mostAtOnce = new Map<string, number>();
const inside = new Map<string, number>();

beforeAll(async () => {
  database = await openTestDatabase();
  app = checkContract(await buildApp({ config: testConfig({ clientConcurrency: 2, clientQueue: 2 }), db: database.db, client: 'none', logger: false }));
  plainRoute(app, {
    method: 'GET',
    url: '/api/test/held',
    summary: 'A route of this test: it answers when the test lets it',
    tag: 'docs',
    auth: 'none',
    errors: {},
    response: z.object({ ok: z.boolean() }),
    handler: async (req) => {
      const address = req.ip;
      inside.set(address, (inside.get(address) ?? 0) + 1);
      mostAtOnce.set(address, Math.max(mostAtOnce.get(address) ?? 0, inside.get(address)!));
      await new Promise<void>((resolve) => held.push({ address, release: resolve }));
      inside.set(address, inside.get(address)! - 1);
      return { ok: true };
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const h of held) h.release();
  await app?.close();
  await database?.close();
});
beforeEach(() => {
  held = [];
  mostAtOnce = new Map();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A GET from `address` on a connection of its own; `abort` closes the connection before the answer. */
function get(address: string, path: string): { answer: Promise<Answer>; abort(): void } {
  let req!: http.ClientRequest;
  const answer = new Promise<Answer>((resolve, reject) => {
    req = http.get({ host: '127.0.0.1', port, path, localAddress: address, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
  return { answer, abort: () => req.destroy() };
}

/** A POST with a body from `address`, on a connection of its own, from the app's own origin. */
function post(address: string, path: string, contentType: string, body: string): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        localAddress: address,
        agent: false,
        headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(body), origin: `http://127.0.0.1:${port}` },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const underWay = (address: string) => app.clientLimits.underWay(address);
/** Lets every held request go, as often as needed, until `answers` are all in. */
async function releaseAll(answers: Promise<Answer>[]): Promise<Answer[]> {
  let done = false;
  const all = Promise.all(answers).finally(() => (done = true));
  while (!done) {
    for (const h of held.splice(0)) h.release();
    await Promise.race([all, new Promise<void>((resolve) => setImmediate(resolve))]);
  }
  return all;
}

describe('requests in progress per client address', () => {
  it('has a documented default, set from the environment, and is off in tests unless turned on', () => {
    expect(loadConfig({})).toMatchObject({ clientConcurrency: 2, clientQueue: 16 });
    expect(CLIENT_LIMIT_DEFAULTS).toEqual({ concurrency: 2, queue: 16 });
    expect(loadConfig({ CLIENT_CONCURRENCY: '8', CLIENT_QUEUE: '0' })).toMatchObject({ clientConcurrency: 8, clientQueue: 0 });
    expect(loadConfig({ CLIENT_CONCURRENCY: '0' })).toMatchObject({ clientConcurrency: 0 });
    expect(() => loadConfig({ CLIENT_CONCURRENCY: '-1' })).toThrow(/CLIENT_CONCURRENCY/);
    expect(testConfig().clientConcurrency).toBe(0);
  });

  it('handles 2 of one address at once, lets 2 wait, refuses the next with 429, and serves another address meanwhile', async () => {
    const first = [get(A, '/api/test/held'), get(A, '/api/test/held')];
    await expect.poll(() => held.length).toBe(2);
    const waiting = [get(A, '/api/test/held'), get(A, '/api/test/held')];
    await expect.poll(() => underWay(A)).toEqual({ active: 2, waiting: 2 });
    expect(held.length).toBe(2);

    // the fifth is refused at once, with the time to wait
    const refused = await get(A, '/api/test/held').answer;
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(refused.body)).toEqual({ error: M.tooManyAtOnce });
    // so is a real route of the same address (the limit covers the whole API, tRPC too)
    expect((await get(A, '/api/campaigns?limit=1').answer).status).toBe(429);
    expect((await get(A, `/trpc/campaigns.list?input=${encodeURIComponent('{"json":{}}')}`).answer).status).toBe(429);

    // another address is not behind them: a real read answers, and its own request gets into the handler
    const other = await get(B, '/api/campaigns?limit=1').answer;
    expect(other.status).toBe(200);
    expect(JSON.parse(other.body)).toMatchObject({ items: [] });
    const b = get(B, '/api/test/held');
    await expect.poll(() => held.map((h) => h.address)).toEqual([A, A, B]);
    expect(underWay(B)).toEqual({ active: 1, waiting: 0 });

    // one of A's finishes: its turn goes to A's oldest waiting request
    held.shift()!.release();
    expect((await first[0].answer).status).toBe(200);
    await expect.poll(() => held.map((h) => h.address)).toEqual([A, B, A]);
    expect(underWay(A)).toEqual({ active: 2, waiting: 1 });

    const answers = await releaseAll([first[1].answer, ...waiting.map((w) => w.answer), b.answer]);
    expect(answers.map((x) => x.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((x) => JSON.parse(x.body) as unknown)).toEqual(Array(4).fill({ ok: true }));
    expect(mostAtOnce.get(A)).toBe(2);
    // nothing is kept for an address once its requests are done
    await expect.poll(() => app.clientLimits.addresses).toBe(0);
    expect(underWay(A)).toEqual({ active: 0, waiting: 0 });
  });

  it('gives a waiting place back when its client goes away, and a turn when a handled client goes away', async () => {
    const active = [get(A, '/api/test/held'), get(A, '/api/test/held')];
    await expect.poll(() => held.length).toBe(2);
    const gone = get(A, '/api/test/held');
    const stays = get(A, '/api/test/held');
    await expect.poll(() => underWay(A)).toEqual({ active: 2, waiting: 2 });
    gone.abort();
    await expect(gone.answer).rejects.toThrow();
    await expect.poll(() => underWay(A)).toEqual({ active: 2, waiting: 1 });
    // its place is free again: the next one waits instead of being refused
    const next = get(A, '/api/test/held');
    await expect.poll(() => underWay(A)).toEqual({ active: 2, waiting: 2 });

    // a client that leaves while being handled ends its turn too
    active[0].abort();
    await expect(active[0].answer).rejects.toThrow();
    await expect.poll(() => underWay(A)).toEqual({ active: 2, waiting: 1 });
    await expect.poll(() => held.length).toBe(3);

    const answers = await releaseAll([active[1].answer, stays.answer, next.answer]);
    expect(answers.map((x) => x.status)).toEqual([200, 200, 200]);
    await expect.poll(() => app.clientLimits.addresses).toBe(0);
  });

  it('does not count what is not the API (the app shell, uploaded files) nor uploads, which have their own queue', async () => {
    const first = [get(A, '/api/test/held'), get(A, '/api/test/held')];
    await expect.poll(() => held.length).toBe(2);
    const waiting = [get(A, '/api/test/held'), get(A, '/api/test/held')];
    await expect.poll(() => underWay(A)).toEqual({ active: 2, waiting: 2 });
    // outside /api and /trpc the address is not refused (here: nothing is served there, 404)
    for (let i = 0; i < 3; i++) expect((await get(A, '/campaigns').answer).status).toBe(404);
    // an upload is answered by the uploads door itself (signed out: 401), not refused or queued here
    const upload = await post(A, '/api/upload/avatar', 'multipart/form-data; boundary=x', '--x--\r\n');
    expect(upload.status).toBe(401);
    const trpcUpload = await post(A, '/trpc/uploads.avatar', 'multipart/form-data; boundary=x', '--x--\r\n');
    expect(trpcUpload.status).toBe(401);
    expect(underWay(A)).toEqual({ active: 2, waiting: 2 });
    await releaseAll([...first, ...waiting].map((r) => r.answer));
    await expect.poll(() => app.clientLimits.addresses).toBe(0);
  });
});

describe('requests in progress per client address, turned off', () => {
  it('handles any number of one address at once when CLIENT_CONCURRENCY is 0', async () => {
    const off = checkContract(await buildApp({ config: testConfig(), db: database.db, client: 'none', logger: false }));
    let waiting: (() => void)[] = [];
    plainRoute(off, {
      method: 'GET',
      url: '/api/test/held',
      summary: 'A route of this test: it answers when the test lets it',
      tag: 'docs',
      auth: 'none',
      errors: {},
      response: z.object({ ok: z.boolean() }),
      handler: async () => {
        await new Promise<void>((resolve) => waiting.push(resolve));
        return { ok: true };
      },
    });
    try {
      await off.ready();
      const answers = Array.from({ length: 8 }, () => off.inject({ method: 'GET', url: '/api/test/held', remoteAddress: A }));
      await expect.poll(() => waiting.length).toBe(8);
      for (const w of waiting) w();
      waiting = [];
      expect((await Promise.all(answers)).map((r) => r.statusCode)).toEqual(Array(8).fill(200));
      expect(off.clientLimits.addresses).toBe(0);
    } finally {
      await off.close();
    }
  });
});
