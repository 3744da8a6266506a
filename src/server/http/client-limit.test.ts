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
import type { LimitClock } from './client-limit';

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
function get(address: string, path: string, to = port): { answer: Promise<Answer>; abort(): void } {
  let req!: http.ClientRequest;
  const answer = new Promise<Answer>((resolve, reject) => {
    req = http.get({ host: '127.0.0.1', port: to, path, localAddress: address, agent: false }, (res) => {
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
    expect(loadConfig({})).toMatchObject({ clientConcurrency: 2, clientQueue: 16, clientRate: 30, clientBurst: 120 });
    expect(CLIENT_LIMIT_DEFAULTS).toEqual({ concurrency: 2, queue: 16, rate: 30, burst: 120 });
    expect(loadConfig({ CLIENT_RATE: '0.5', CLIENT_BURST: '1' })).toMatchObject({ clientRate: 0.5, clientBurst: 1 });
    expect(() => loadConfig({ CLIENT_BURST: '0' })).toThrow(/CLIENT_BURST/);
    expect(() => loadConfig({ CLIENT_RATE: 'fast' })).toThrow(/CLIENT_RATE/);
    expect(testConfig().clientRate).toBe(0);
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

/** A clock the test moves by hand: the budget's waits end exactly when the test says, never by the machine's speed. */
class ManualClock implements LimitClock {
  private t = 0;
  private timers: { at: number; fn: () => void }[] = [];
  now() {
    return this.t;
  }
  after(ms: number, fn: () => void) {
    const timer = { at: this.t + ms, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }
  get pending() {
    return this.timers.length;
  }
  advance(ms: number) {
    this.t += ms;
    const due = this.timers.filter((x) => x.at <= this.t);
    this.timers = this.timers.filter((x) => x.at > this.t);
    for (const d of due) d.fn();
  }
}

/** Whether `p` has settled, after the event loop has had its turns (the manual clock holds anything that waits for time). */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  return done;
}

describe('a budget over time per client address', () => {
  let budgeted: FastifyInstance;
  let budgetedPort: number;
  let clock: ManualClock;
  const list = '/api/campaigns?limit=1';

  beforeAll(async () => {
    clock = new ManualClock();
    // 2 a second (one every 500 ms), 3 at once, 2 may wait; no limit on requests at once
    budgeted = checkContract(
      await buildApp({
        config: testConfig({ clientConcurrency: 0, clientQueue: 2, clientRate: 2, clientBurst: 3 }),
        db: database.db,
        client: 'none',
        logger: false,
        clientLimitClock: clock,
      }),
    );
    await budgeted.listen({ port: 0, host: '127.0.0.1' });
    budgetedPort = (budgeted.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await budgeted?.close();
  });

  it('answers a burst at once, holds the requests past it until the budget allows them, refuses past the queue, and serves another address meanwhile', async () => {
    const burst = await Promise.all([0, 1, 2].map(() => get(A, list, budgetedPort).answer));
    expect(burst.map((r) => r.status)).toEqual([200, 200, 200]);

    // the 4th may start 500 ms after the burst, the 5th 500 ms later: both wait, unread
    const fourth = get(A, list, budgetedPort);
    const fifth = get(A, list, budgetedPort);
    await expect.poll(() => budgeted.clientLimits.underWay(A)).toEqual({ active: 0, waiting: 2 });
    expect(clock.pending).toBe(2);

    // the queue is full: the 6th is refused, told to come back when the budget has room (1.5 s: 2)
    const refused = await get(A, list, budgetedPort).answer;
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('2');
    expect(JSON.parse(refused.body)).toEqual({ error: M.tooManyAtOnce });
    // tRPC is the same budget
    expect((await get(A, `/trpc/campaigns.list?input=${encodeURIComponent('{"json":{}}')}`, budgetedPort).answer).status).toBe(429);

    // another address has a budget of its own
    expect((await get(B, list, budgetedPort).answer).status).toBe(200);

    clock.advance(499);
    expect(await settled(fourth.answer)).toBe(false);
    clock.advance(1);
    expect((await fourth.answer).status).toBe(200);
    expect(await settled(fifth.answer)).toBe(false);
    clock.advance(500);
    expect((await fifth.answer).status).toBe(200);
    await expect.poll(() => budgeted.clientLimits.addresses).toBe(0);

    // one request a second is within the rate: never held
    for (let i = 0; i < 4; i++) {
      clock.advance(1000);
      expect((await get(A, list, budgetedPort).answer).status).toBe(200);
    }
    // after a quiet spell the whole burst is there again
    clock.advance(10_000);
    expect((await Promise.all([0, 1, 2].map(() => get(A, list, budgetedPort).answer))).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(budgeted.clientLimits.underWay(A)).toEqual({ active: 0, waiting: 0 });
  });

  it('gives a held place back when its client goes away', async () => {
    clock.advance(10_000);
    await Promise.all([0, 1, 2].map(() => get(A, list, budgetedPort).answer));
    const gone = get(A, list, budgetedPort);
    const stays = get(A, list, budgetedPort);
    await expect.poll(() => budgeted.clientLimits.underWay(A)).toEqual({ active: 0, waiting: 2 });
    gone.abort();
    await expect(gone.answer).rejects.toThrow();
    await expect.poll(() => budgeted.clientLimits.underWay(A)).toEqual({ active: 0, waiting: 1 });
    expect(clock.pending).toBe(1);
    // its place is free: the next one waits instead of being refused
    const next = get(A, list, budgetedPort);
    await expect.poll(() => budgeted.clientLimits.underWay(A)).toEqual({ active: 0, waiting: 2 });
    clock.advance(60_000);
    expect((await Promise.all([stays.answer, next.answer])).map((r) => r.status)).toEqual([200, 200]);
    await expect.poll(() => budgeted.clientLimits.addresses).toBe(0);
  });
});
