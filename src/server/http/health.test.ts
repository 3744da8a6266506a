import { readFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { type Database, migrationsFolder, openPostgres } from '../db/client';
import { capturedLog, type LogLine, openTestDatabase, testConfig } from '../../../test/helpers';
import { checkContract } from '../../../test/contract';
import type { LimitClock } from './client-limit';
import { READY_CHECK_TIMEOUT_MS } from './health';

// /livez and /readyz (issue #31) against the test's own migrated database, a database server
// that refuses connections, one that accepts and never answers, and a database behind this
// version's migrations. Every app here logs to a stream the test reads (capturedLog).

const newestTag = (JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] }).entries.at(
  -1,
)!.tag;

let database: Awaited<ReturnType<typeof openTestDatabase>>;
const opened: FastifyInstance[] = [];
const extraDatabases: Database[] = [];

async function appOn(db: Database, overrides: Parameters<typeof testConfig>[0] = {}, clientLimitClock?: LimitClock) {
  const log = capturedLog();
  const app = checkContract(
    await buildApp({ config: testConfig({ logLevel: 'info', ...overrides }), db: db.db, client: 'none', logStream: log.stream, clientLimitClock }),
  );
  await app.ready();
  opened.push(app);
  return { app, lines: log.lines };
}

/** Log lines about a request to `url` (Fastify's "incoming request" and "request completed"). */
const requestLines = (lines: LogLine[], url: string) => lines.filter((l) => (l.req as { url?: string } | undefined)?.url === url || l.msg.includes(url));

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  for (const app of opened) await app.close();
  for (const db of extraDatabases) await db.close();
  await database?.close();
});

describe('on a migrated database', () => {
  it('/livez and /readyz answer 200, not cached, to GET and HEAD', async () => {
    const { app } = await appOn(database);
    const live = await app.inject({ method: 'GET', url: '/livez' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'ok' });
    expect(live.headers['cache-control']).toBe('no-store');
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
    expect(ready.headers['cache-control']).toBe('no-store');
    // nothing asks the balancer's connection to close while the instance is not draining
    expect(ready.headers.connection).not.toBe('close');
    for (const url of ['/livez', '/readyz']) {
      const head = await app.inject({ method: 'HEAD', url });
      expect(head.statusCode, url).toBe(200);
      expect(head.headers['cache-control'], url).toBe('no-store');
    }
  });

  it('a probe leaves no info line in the log; other requests still do', async () => {
    const { app, lines } = await appOn(database);
    for (let i = 0; i < 5; i++) {
      expect((await app.inject({ method: 'GET', url: '/livez' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    }
    expect(requestLines(lines, '/livez')).toEqual([]);
    expect(requestLines(lines, '/readyz')).toEqual([]);
    // the same log does show an ordinary request (so the lines above would be seen)
    await app.inject({ method: 'GET', url: '/no-such-page' });
    expect(requestLines(lines, '/no-such-page').length).toBeGreaterThan(0);
  });

  it('probes are not held by the per-address limit that refuses API requests', async () => {
    // the limit's time stands still: one API request at once per address, none waiting, one a second
    const frozen: LimitClock = { now: () => 0, after: () => () => {} };
    const { app } = await appOn(database, { clientConcurrency: 1, clientQueue: 0, clientRate: 1, clientBurst: 1 }, frozen);
    const api = await Promise.all([1, 2].map(() => app.inject({ method: 'GET', url: '/api/campaigns', remoteAddress: '10.9.9.9' })));
    // the limit is on: the second API request of the address is refused
    expect(api.map((r) => r.statusCode).sort()).toEqual([200, 429]);
    const probes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => app.inject({ method: 'GET', url: i % 2 ? '/livez' : '/readyz', remoteAddress: '10.9.9.9' })),
    );
    expect(probes.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
  });
});

describe('draining (SIGTERM: lifecycle.ts)', () => {
  it('/readyz answers 503 draining at once, /livez still 200, and every answer closes its connection', async () => {
    const { app } = await appOn(database);
    const before = await app.inject({ method: 'GET', url: '/api/campaigns' });
    expect(before.headers.connection).not.toBe('close');
    app.readiness.drain();
    expect(app.readiness.draining).toBe(true);
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ status: 'draining' });
    expect(ready.headers['cache-control']).toBe('no-store');
    const live = await app.inject({ method: 'GET', url: '/livez' });
    expect(live.statusCode).toBe(200);
    // requests are still served, each telling its client to open a new connection next time
    const list = await app.inject({ method: 'GET', url: '/api/campaigns' });
    expect(list.statusCode).toBe(200);
    expect(list.headers.connection).toBe('close');
    const missing = await app.inject({ method: 'GET', url: '/no-such-page' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers.connection).toBe('close');
  });
});

describe('not ready', () => {
  it('a database server that refuses connections: /readyz 503 (database), /livez 200, one warning for many probes', async () => {
    const unreachable = await openPostgres('postgres://kindling:hunter2secret@127.0.0.1:1/kindling', { max: 1 });
    extraDatabases.push(unreachable);
    const { app, lines } = await appOn(unreachable, { databaseUrl: 'postgres://kindling:hunter2secret@127.0.0.1:1/kindling' });
    for (let i = 0; i < 3; i++) {
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: 'unavailable', reason: 'database' });
      expect(ready.headers['cache-control']).toBe('no-store');
      const live = await app.inject({ method: 'GET', url: '/livez' });
      expect(live.statusCode).toBe(200);
    }
    const warnings = lines.filter((l) => l.msg.startsWith('not ready'));
    expect(warnings.map((l) => [l.level, l.msg])).toEqual([[40, 'not ready: the database did not answer: connection refused']]);
    expect(JSON.stringify(lines)).not.toContain('hunter2secret');
  });

  it(`a database that never answers: /readyz 503 after ${READY_CHECK_TIMEOUT_MS / 1000} s, and probes meanwhile share one query`, async () => {
    // accepts connections and says nothing: the database's side of a hung server
    const sockets: net.Socket[] = [];
    let ending = false;
    const silent = net.createServer((s) => {
      if (ending) s.destroy();
      else sockets.push(s);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `postgres://kindling@127.0.0.1:${(silent.address() as AddressInfo).port}/kindling`;
    const hung = await openPostgres(url, { max: 5 });
    try {
      const { app, lines } = await appOn(hung, { databaseUrl: url });
      const probes = await Promise.all(Array.from({ length: 5 }, () => app.inject({ method: 'GET', url: '/readyz' })));
      for (const r of probes) {
        expect(r.statusCode).toBe(503);
        expect(r.json()).toEqual({ status: 'unavailable', reason: 'database' });
      }
      // one more while the first query is still waiting: it waits on that query too
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
      expect(sockets).toHaveLength(1);
      expect(lines.filter((l) => l.msg.startsWith('not ready')).map((l) => l.msg)).toEqual([
        `not ready: the database did not answer within ${READY_CHECK_TIMEOUT_MS / 1000} s`,
      ]);
      expect((await app.inject({ method: 'GET', url: '/livez' })).statusCode).toBe(200);
    } finally {
      // the driver connects again for the query it still holds: those connections end at once
      ending = true;
      const closed = new Promise((resolve) => silent.close(resolve));
      for (const s of sockets) s.destroy();
      await hung.close();
      await closed;
    }
  });

  it("a database behind this version's migrations: 503 (migrations) until they are applied, logged once each way", async () => {
    const { app, lines } = await appOn(database);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    // the newest migration's record goes, as if the database were restored from before it
    const removed = await database.db.execute(
      sql`delete from drizzle.__drizzle_migrations where created_at = (select max(created_at) from drizzle.__drizzle_migrations) returning hash, created_at`,
    );
    const row = (Array.isArray(removed) ? removed : (removed as { rows: unknown[] }).rows)[0] as { hash: string; created_at: string };
    try {
      for (let i = 0; i < 3; i++) {
        const ready = await app.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode).toBe(503);
        expect(ready.json()).toEqual({ status: 'unavailable', reason: 'migrations' });
      }
      // a database that was never migrated has no record at all
      await database.db.execute(sql`alter table drizzle.__drizzle_migrations rename to __drizzle_migrations_away`);
      try {
        const ready = await app.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode).toBe(503);
        expect(ready.json()).toEqual({ status: 'unavailable', reason: 'migrations' });
      } finally {
        await database.db.execute(sql`alter table drizzle.__drizzle_migrations_away rename to __drizzle_migrations`);
      }
    } finally {
      await database.db.execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${row.hash}, ${row.created_at})`);
    }
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    expect(lines.filter((l) => l.msg.startsWith('not ready') || l.msg === 'ready again').map((l) => l.msg)).toEqual([
      `not ready: the database has not applied this version's migrations (up to ${newestTag})`,
      'ready again',
    ]);
  });
});
