import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkContract } from '../../../test/contract';
import { call, freshIp, openTestDatabase, PASSWORD, testConfig, testDataDir, tokenFromEmail, trpc, uniqueEmail } from '../../../test/helpers';
import { buildApp } from '../app';
import { rowsOf } from '../db/client';
import { createSandboxProvider, sandboxKey } from '../payments/sandbox';

// /metrics as an operator's Prometheus reads it: after some traffic on both doors, a job run, a
// payment through its webhook and some email, the scrape holds exactly the counts that traffic
// caused (each series parsed from the text format), and it is served only with the token.

const TOKEN = 'metrics-scrape-token-for-the-test';
const GOOD = '4242 4242 4242 4242';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let plain: FastifyInstance;
/** The sandbox's signed events, held back so that the test delivers them through the webhook route. */
const held: { body: Buffer; headers: Record<string, string> }[] = [];

beforeAll(async () => {
  database = await openTestDatabase();
  const payments = createSandboxProvider({
    key: sandboxKey(testDataDir()),
    deliver: async (_name, body, headers) => {
      held.push({ body, headers });
    },
  });
  app = checkContract(await buildApp({ config: testConfig({ metricsToken: TOKEN }), db: database.db, client: 'none', logger: false, payments }));
  await app.ready();
  // another app in the same process, without METRICS_TOKEN
  plain = checkContract(await buildApp({ config: testConfig(), db: database.db, client: 'none', logger: false }));
  await plain.ready();
});
afterAll(async () => {
  await app?.close();
  await plain?.close();
  await database?.close();
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus's text format, one sample a line (`name{label="value",...} number`), comments skipped. */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const m = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(.)/g, '$1');
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** The samples of one metric, each keyed by its labels' values in the order given. */
function byLabels(samples: Sample[], name: string, keys: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) if (s.name === name) out[keys.map((k) => s.labels[k]).join(' ')] = s.value;
  return out;
}

async function scrape(target: FastifyInstance): Promise<Sample[]> {
  const res = await target.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  expect(res.headers['cache-control']).toBe('no-store');
  return parse(res.body);
}

describe('/metrics', () => {
  it('counts the requests, errors, job runs, payment events and emails the traffic caused, and no others', async () => {
    /** Every request this test sends to `app`, as `METHOD route status`: what the scrape must hold. */
    const sent: Record<string, number> = {};
    const expectAnswer = (res: { statusCode: number }, method: string, route: string, status: number) => {
      expect(res.statusCode).toBe(status);
      const key = `${method} ${route} ${status}`;
      sent[key] = (sent[key] ?? 0) + 1;
    };
    // the contract check (test/contract.ts) reads the API document once, at the first /api answer
    sent['GET /api/openapi.json 200'] = 1;
    const ip = freshIp();

    // an account, its email verified through the emailed link, signed in; one failed sign-in
    const email = uniqueEmail('metrics');
    expectAnswer(
      await call(app, { ip }, { method: 'POST', url: '/api/auth/register', payload: { email, password: PASSWORD } }),
      'POST',
      '/api/auth/register',
      201,
    );
    const verifyToken = await tokenFromEmail(database, email, 'verify_email');
    expectAnswer(await call(app, { ip }, { method: 'GET', url: `/api/auth/verify-email/${verifyToken}` }), 'GET', '/api/auth/verify-email/:token', 200);
    const signIn = await call(app, { ip }, { method: 'POST', url: '/api/auth/login', payload: { email, password: PASSWORD } });
    expectAnswer(signIn, 'POST', '/api/auth/login', 200);
    const owner = { ip, token: (signIn.json() as { token: string }).token };
    expectAnswer(
      await call(app, { ip }, { method: 'POST', url: '/api/auth/login', payload: { email, password: 'not the password' } }),
      'POST',
      '/api/auth/login',
      401,
    );

    // the REST door: a campaign made, listed twice, read, and one that is not there
    const made = await call(app, owner, {
      method: 'POST',
      url: '/api/campaigns',
      payload: { title: 'Metered darkroom', goalAmount: 100, actionMode: 'donation' },
    });
    expectAnswer(made, 'POST', '/api/campaigns', 201);
    const campaignId = (made.json() as { _id: string })._id;
    expectAnswer(await call(app, null, { method: 'GET', url: '/api/campaigns' }), 'GET', '/api/campaigns', 200);
    expectAnswer(await call(app, null, { method: 'GET', url: '/api/campaigns?limit=5' }), 'GET', '/api/campaigns', 200);
    expectAnswer(await call(app, null, { method: 'GET', url: `/api/campaigns/${campaignId}` }), 'GET', '/api/campaigns/:id', 200);
    expectAnswer(await call(app, null, { method: 'GET', url: '/api/campaigns/00000000-0000-4000-8000-000000000000' }), 'GET', '/api/campaigns/:id', 404);
    // a body the door does not read (Fastify's own answer, before the route)
    expectAnswer(
      await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: 'title=Nope', headers: { 'content-type': 'text/csv' } }),
      'POST',
      '/api/campaigns',
      415,
    );

    // the tRPC door: a read by its procedure, a batch of two, a write refused to a visitor
    const read = await trpc(app, null, 'query', 'campaigns.get', { id: campaignId });
    expectAnswer({ statusCode: read.status }, 'GET', '/trpc/campaigns.get', 200);
    const batchInput = encodeURIComponent(JSON.stringify({ 0: { json: { id: campaignId } }, 1: { json: {} } }));
    expectAnswer(await call(app, null, { method: 'GET', url: `/trpc/campaigns.get,campaigns.list?batch=1&input=${batchInput}` }), 'GET', '/trpc/:path', 200);
    const refused = await trpc(app, null, 'mutation', 'campaigns.create', { title: 'Nope', goalAmount: 5, actionMode: 'donation' });
    expectAnswer({ statusCode: refused.status }, 'POST', '/trpc/campaigns.create', 401);

    // unknown paths: one under the API, one a page of the client would show (its route's pattern)
    expectAnswer(await call(app, null, { method: 'GET', url: '/api/no-such-thing/42' }), 'GET', '(unmatched)', 404);
    expectAnswer(await call(app, null, { method: 'GET', url: '/campaigns/some-campaign' }), 'GET', '/campaigns/:id', 404);

    // a guest's payment, pending until its signed event comes through the webhook route; a forged one refused
    const gift = await call(app, null, {
      method: 'POST',
      url: `/api/campaigns/${campaignId}/donations`,
      headers: { 'idempotency-key': `metrics-${Date.now()}` },
      payload: { amount: 10, email: uniqueEmail('guest'), card: GOOD },
    });
    expectAnswer(gift, 'POST', '/api/campaigns/:id/donations', 201);
    expect((gift.json() as { status: string }).status).toBe('pending');
    const event = held.pop()!;
    const webhook = (body: Buffer) => call(app, null, { method: 'POST', url: '/api/payments/webhooks/sandbox', payload: body, headers: event.headers });
    expectAnswer(
      await webhook(Buffer.from(event.body.toString().replace('"payment.succeeded"', '"payment.failed"'))),
      'POST',
      '/api/payments/webhooks/:provider',
      400,
    );
    expectAnswer(await webhook(event.body), 'POST', '/api/payments/webhooks/:provider', 200);
    // the provider sends it again (as providers do): acknowledged, nothing changes
    expectAnswer(await webhook(event.body), 'POST', '/api/payments/webhooks/:provider', 200);
    expect((await call(app, null, { method: 'GET', url: `/api/campaigns/${campaignId}` })).json()).toMatchObject({ totalRaised: 10 });
    sent['GET /api/campaigns/:id 200'] += 1;

    // the scheduled jobs, run on demand as the admin's button does
    expect((await app.jobs.runNow())?.status).toBe('succeeded');
    await app.jobs.releaseNow();

    // the other app's traffic is its own
    expect((await plain.inject({ method: 'GET', url: '/api/campaigns' })).statusCode).toBe(200);

    // no token, a wrong one, another scheme: refused (and counted)
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`]) {
      const res = await app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
      expectAnswer(res, 'GET', '/metrics', 401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).not.toContain('kindling_');
    }

    const samples = await scrape(app);

    // requests: one series per method, route pattern and status, counting exactly what was sent
    expect(byLabels(samples, 'kindling_http_request_duration_seconds_count', ['method', 'route', 'status'])).toEqual(sent);
    // each series is a histogram whose last bucket holds all its requests, and whose time adds up
    const total = Object.values(sent).reduce((a, b) => a + b, 0);
    const inf = samples.filter((s) => s.name === 'kindling_http_request_duration_seconds_bucket' && s.labels.le === '+Inf');
    expect(inf.reduce((a, s) => a + s.value, 0)).toBe(total);
    expect(samples.filter((s) => s.name === 'kindling_http_request_duration_seconds_sum').every((s) => s.value > 0)).toBe(true);

    // errors by door and code: the failed sign-in, the missing campaign and the unknown API path,
    // the unread body, the forged event, the visitor's write, the missing page, the refused scrapes
    expect(byLabels(samples, 'kindling_errors_total', ['door', 'code'])).toEqual({
      'rest UNAUTHORIZED': 1,
      'rest NOT_FOUND': 2,
      'rest UNSUPPORTED_MEDIA_TYPE': 1,
      'rest BAD_REQUEST': 1,
      'trpc UNAUTHORIZED': 1,
      'page NOT_FOUND': 1,
      'page UNAUTHORIZED': 3,
    });

    // the webhook's three events: the real one applied, then acknowledged again unchanged, the forged one refused unread
    expect(byLabels(samples, 'kindling_payment_events_total', ['type', 'outcome'])).toEqual({
      'payment.succeeded accepted': 1,
      'payment.succeeded ignored': 1,
      'unknown refused': 1,
    });

    // the hourly run and the release of scheduled drafts
    expect(byLabels(samples, 'kindling_job_runs_total', ['job', 'outcome'])).toEqual({ 'subscriptions succeeded': 1, 'release succeeded': 1 });

    // emails: the outbox table (no SMTP here) holds exactly the messages counted, kind by kind
    const outbox = rowsOf<{ kind: string; n: number }>(await database.db.execute(sql`select kind, count(*)::int as n from email_outbox group by kind`));
    expect(outbox.map((r) => r.kind)).toEqual(expect.arrayContaining(['verify_email', 'donation_receipt', 'donation_received']));
    expect(byLabels(samples, 'kindling_emails_total', ['kind', 'outcome'])).toEqual(Object.fromEntries(outbox.map((r) => [`${r.kind} outbox`, r.n])));

    // the pool: its size, and nothing held between requests
    const poolSize = inject('dbKind') === 'postgres' ? 5 : 1;
    expect(byLabels(samples, 'kindling_db_pool_connections', ['pool'])).toEqual({ primary: poolSize });
    expect(byLabels(samples, 'kindling_db_pool_in_use', ['pool'])).toEqual({ primary: 0 });
    expect(byLabels(samples, 'kindling_db_pool_waiting', ['pool'])).toEqual({ primary: 0 });

    // the process's own metrics come along
    expect(samples.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true);

    // a readiness probe's 503 while draining is the state it reports, not a failed call
    app.readiness.drain();
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    const after = await scrape(app);
    expect(byLabels(after, 'kindling_http_request_duration_seconds_count', ['method', 'route', 'status'])['GET /readyz 503']).toBe(1);
    expect(byLabels(after, 'kindling_errors_total', ['door', 'code'])).toEqual(byLabels(samples, 'kindling_errors_total', ['door', 'code']));
  });

  it('reports the connections in use and the calls waiting for one', async () => {
    const before = await scrape(app);
    const size = byLabels(before, 'kindling_db_pool_connections', ['pool']).primary;
    const [{ db: dbName }] = rowsOf<{ db: string }>(await database.db.execute(sql`select current_database() as db`));
    // every connection held by a transaction, and two more transactions waiting for one
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered = 0;
    const held = Array.from({ length: size + 2 }, () =>
      database.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        entered++;
        await gate;
      }),
    );
    for (let i = 0; i < 2000 && entered < size; i++) await new Promise((r) => setTimeout(r, 5));
    expect(entered).toBe(size);

    const busy = await scrape(app);
    expect(byLabels(busy, 'kindling_db_pool_in_use', ['pool'])).toEqual({ primary: size });
    expect(byLabels(busy, 'kindling_db_pool_waiting', ['pool'])).toEqual({ primary: 2 });
    if (inject('dbKind') === 'postgres') {
      // the server sees as many of the pool's connections in a transaction
      const { default: postgres } = await import('postgres');
      const admin = postgres(inject('pgAdminUrl'), { max: 1, onnotice: () => {} });
      try {
        const [{ n }] = await admin<
          { n: number }[]
        >`select count(*)::int as n from pg_stat_activity where datname = ${dbName} and state like 'idle in transaction%'`;
        expect(n).toBe(size);
      } finally {
        await admin.end();
      }
    }

    release();
    await Promise.all(held);
    const after = await scrape(app);
    expect(byLabels(after, 'kindling_db_pool_in_use', ['pool'])).toEqual({ primary: 0 });
    expect(byLabels(after, 'kindling_db_pool_waiting', ['pool'])).toEqual({ primary: 0 });
  });

  it('counts the emails an SMTP server took and the ones it refused', async () => {
    // a real SMTP server on loopback that refuses every message to an address at refused.test
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, done) {
        stream.resume();
        stream.on('end', () => done(session.envelope.rcptTo.some((r) => r.address.endsWith('@refused.test')) ? new Error('mailbox unavailable') : undefined));
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as AddressInfo).port;
    const mailing = checkContract(
      await buildApp({ config: testConfig({ metricsToken: TOKEN, smtpUrl: `smtp://127.0.0.1:${port}` }), db: database.db, client: 'none', logger: false }),
    );
    try {
      for (const email of [uniqueEmail('taken'), uniqueEmail('taken'), `refused.${Date.now()}@refused.test`]) {
        const res = await call(mailing, { ip: freshIp() }, { method: 'POST', url: '/api/auth/register', payload: { email, password: PASSWORD } });
        expect(res.statusCode).toBe(201);
      }
      // delivery happens after the answer: wait for it
      await mailing.deps.mailer.drain();
      expect(byLabels(await scrape(mailing), 'kindling_emails_total', ['kind', 'outcome'])).toEqual({ 'verify_email sent': 2, 'verify_email failed': 1 });
    } finally {
      await mailing.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });

  it('labels the pages and files of the built client by route, and unknown paths as unmatched', async () => {
    const dist = mkdtempSync(path.join(os.tmpdir(), 'kindling-dist-'));
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Kindling</title><div id="root"></div>');
    writeFileSync(path.join(dist, 'assets', 'app-abc123.js'), 'console.log(1)');
    const built = await buildApp({ config: testConfig({ metricsToken: TOKEN }), db: database.db, client: 'built', clientDist: dist, logger: false });
    try {
      const answers: [string, number][] = [
        ['/campaigns', 200],
        ['/campaigns/first-one', 200],
        ['/campaigns/second-one?tab=updates', 200],
        ['/assets/app-abc123.js', 200],
        ['/assets/app-gone.js', 404],
        ['/no/such/page', 404],
        ['/api/no-such-thing', 404],
      ];
      for (const [url, status] of answers) expect((await built.inject({ method: 'GET', url, headers: { accept: 'text/html' } })).statusCode, url).toBe(status);
      expect(byLabels(await scrape(built), 'kindling_http_request_duration_seconds_count', ['route', 'status'])).toEqual({
        '/campaigns 200': 1,
        '/campaigns/:id 200': 2,
        '/* 200': 1,
        '(unmatched) 404': 3,
      });
    } finally {
      await built.close();
      rmSync(dist, { recursive: true, force: true });
    }
  });

  it('is left alone by the per-address limit that holds the API', async () => {
    const limited = await buildApp({
      config: testConfig({ metricsToken: TOKEN, clientConcurrency: 1, clientQueue: 0, clientRate: 1, clientBurst: 1 }),
      db: database.db,
      client: 'none',
      logger: false,
    });
    try {
      const from = (url: string) => limited.inject({ method: 'GET', url, remoteAddress: '10.200.0.1', headers: { authorization: `Bearer ${TOKEN}` } });
      // the API: one request a second from an address, the next refused
      expect((await Promise.all([from('/api/campaigns'), from('/api/campaigns')])).map((r) => r.statusCode).sort()).toEqual([200, 429]);
      // the scraper at the same address, many times at once: every scrape answered
      expect((await Promise.all(Array.from({ length: 6 }, () => from('/metrics')))).map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    } finally {
      await limited.close();
    }
  });

  it('is an unknown path (404) when METRICS_TOKEN is not set', async () => {
    const res = await plain.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    const unknown = await plain.inject({ method: 'GET', url: '/no-such-page' });
    expect(res.statusCode).toBe(404);
    expect(res.body).toBe(unknown.body);
  });
});
