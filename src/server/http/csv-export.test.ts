import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../db/schema';
import { buildTestApp, call, capturedLog, freshIp, openTestDatabase, signUp, type Client } from '../../../test/helpers';

// The two CSV exports of the REST door (`?format=csv`: a campaign's donations and its
// supporters; the tRPC door has none), from an app whose log the test reads. The donors and
// supporters are named as someone who wants a formula in the owner's spreadsheet would name
// themselves.

/** Names that each hide a formula behind a separator some spreadsheet splits on. */
const HOSTILE_NAMES = ['=HYPERLINK("http://evil.example","click")', 'Ann;=1+2', 'Bob\t@SUM(A1:A9)', 'Cy,-3+4', 'Di; "+5', 'Ed\n=cmd|"/c calc"!A1', '"=quoted"'];

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
/** What the app logs. */
const log = capturedLog();
const logged = log.lines;
let owner: Client;
let campaign: string;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database, {}, log);
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

/** Every cell a reader gets that cuts each line of `csv` on `separator`, quotes ignored: stripped of spaces and quotes around it. */
const cellsSplitOn = (csv: string, separator: string) =>
  csv
    .split(/\r\n|\r|\n/)
    .flatMap((line) => line.split(separator))
    .map((cell) => cell.replace(/^[\s"]+|[\s"]+$/g, ''));

/** The records of an RFC 4180 document, each field with whether it was quoted. */
function records(csv: string): { text: string; quoted: boolean }[][] {
  const rows: { text: string; quoted: boolean }[][] = [];
  let row: { text: string; quoted: boolean }[] = [];
  let i = 0;
  while (i < csv.length) {
    let text = '';
    const quoted = csv[i] === '"';
    if (quoted) {
      i++;
      while (i < csv.length && !(csv[i] === '"' && csv[i + 1] !== '"')) {
        text += csv[i];
        i += csv[i] === '"' ? 2 : 1;
      }
      i++;
    } else while (i < csv.length && csv[i] !== ',' && csv[i] !== '\r') text += csv[i++];
    row.push({ text, quoted });
    if (csv[i] === ',') i++;
    else {
      expect(csv.slice(i, i + 2)).toBe('\r\n');
      i += 2;
      rows.push(row);
      row = [];
    }
  }
  return rows;
}

describe('a CSV export in any spreadsheet', () => {
  it.each(EXPORTS)('of the %s quotes every field, and no cell cut on a comma, a semicolon or a tab starts a formula', async (what) => {
    const { body } = await exportOf(what);
    const rows = records(body);
    expect(rows).toHaveLength(HOSTILE_NAMES.length + 1);
    for (const separator of [',', ';', '\t']) {
      const cells = cellsSplitOn(body, separator);
      expect(cells.length).toBeGreaterThan(rows.length);
      expect(cells.filter((cell) => /^[=+\-@]/.test(cell))).toEqual([]);
    }
    for (const row of rows) for (const field of row) expect(field.quoted, `${field.text} is not quoted`).toBe(true);

    // every name is still there to read, a ' before each character that would start a formula
    const column = rows[0].findIndex((f) => f.text === (what === 'donations' ? 'donor' : 'name'));
    const names = rows.slice(1).map((r) => r[column].text);
    expect(names.sort()).toEqual(
      [`'=HYPERLINK("http://evil.example","click")`, `Ann;'=1+2`, `Bob\t'@SUM(A1:A9)`, `Cy,'-3+4`, `Di; "'+5`, `Ed\n'=cmd|"/c calc"!A1`, `"'=quoted"`].sort(),
    );
  });

  it('of the donations writes its own values as they are', async () => {
    const rows = records((await exportOf('donations')).body);
    expect(rows[0].map((f) => f.text)).toEqual(['date', 'donor', 'amount', 'currency', 'status', 'monthly', 'id']);
    expect(rows.slice(1).map((r) => r.slice(2, 6).map((f) => f.text))).toContainEqual(['5.00', 'USD', 'succeeded', 'no']);
    expect(rows.slice(1).every((r) => !Number.isNaN(Date.parse(r[0].text)))).toBe(true);
  });
});
