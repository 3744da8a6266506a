import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { users } from '../db/schema';
import { call, freshIp, openTestDatabase, signUp, testConfig, type Client } from '../../../test/helpers';
import { checkContract } from '../../../test/contract';

// The two CSV exports of the REST door (`?format=csv`: a campaign's donations and its
// supporters; the tRPC door has none), from an app whose log the test reads. The donors and
// supporters are named as someone who wants a formula in the owner's spreadsheet would name
// themselves.

/** Names that each hide a formula behind a separator some spreadsheet splits on. */
const HOSTILE_NAMES = ['=HYPERLINK("http://evil.example","click")', 'Ann;=1+2', 'Bob\t@SUM(A1:A9)', 'Cy,-3+4', 'Di; "+5', 'Ed\n=cmd|"/c calc"!A1', '"=quoted"'];

interface LogLine {
  level: number;
  msg?: string;
  err?: { message?: string };
  res?: { statusCode?: number };
}

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
const logged: LogLine[] = [];
let owner: Client;
let campaign: string;

beforeAll(async () => {
  database = await openTestDatabase();
  let partial = '';
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) logged.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  app = checkContract(await buildApp({ config: testConfig(), db: database.db, client: 'none', logStream }));
  await app.ready();
  owner = await signUp(app, { username: 'csv_owner' });
  campaign = (
    await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Export, "everything"', goalAmount: 100, actionMode: 'both' } })
  ).json()._id as string;
  for (const [i, name] of HOSTILE_NAMES.entries()) {
    const who = await signUp(app, { username: `csv_fan${i}` });
    await database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, who.userId));
    const client = { token: who.token, ip: freshIp() };
    expect((await call(app, client, { method: 'PUT', url: '/api/user/profile', payload: { name } })).statusCode).toBe(200);
    const gave = await call(app, client, {
      method: 'POST',
      url: `/api/campaigns/${campaign}/donations`,
      headers: { 'idempotency-key': `csv-export-${i}` },
      payload: { amount: 5 + i, card: '4242 4242 4242 4242' },
    });
    expect(gave.statusCode, gave.body).toBe(201);
    expect((await call(app, client, { method: 'POST', url: `/api/campaigns/${campaign}/support`, payload: {} })).statusCode).toBe(201);
  }
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const EXPORTS = ['donations', 'supporters'] as const;
const exportOf = (what: (typeof EXPORTS)[number]) => call(app, owner, { method: 'GET', url: `/api/campaigns/${campaign}/${what}?format=csv` });

describe('a CSV export', () => {
  it.each(EXPORTS)('of the %s is a correct answer that logs no warning or error', async (what) => {
    logged.length = 0;
    const res = await exportOf(what);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.body.split('\r\n')).toHaveLength(HOSTILE_NAMES.length + 2);
    // the request's own lines are there (the log was read), and none is a warning or worse
    expect(logged.some((l) => l.res?.statusCode === 200)).toBe(true);
    expect(logged.filter((l) => l.level >= 40)).toEqual([]);
    expect(logged.filter((l) => (l.res?.statusCode ?? 0) >= 500)).toEqual([]);
  });
});
