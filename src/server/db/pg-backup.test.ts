import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inArray, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildTestApp, call, freshIp, openTestDatabase, register, signUpVerified, unbalancedLedgerGroups } from '../../../test/helpers';
import { type Database, openPostgres, rowsOf } from './client';
import { campaignTotals, donations, ledgerEntries, ledgerGroups, users } from './schema';

/**
 * The README's PostgreSQL backup (issue #31): `pg_dump -Fc` of the app's database taken while
 * people sign up and give, restored with `pg_restore` into a new database, holds every write
 * acknowledged before the dump began and a balanced ledger (pg_dump reads one snapshot, so a
 * donation is there whole or not at all). PostgreSQL only; pg_dump and pg_restore from PATH.
 */

const postgres = inject('dbKind') === 'postgres';
const GOOD = '4242 4242 4242 4242';
const dir = mkdtempSync(path.join(os.tmpdir(), 'kindling-pgdump-'));

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  if (!postgres) return;
  database = await openTestDatabase();
  app = await buildTestApp(database);
  // the address of this file's database, which the app writes to and pg_dump reads
  const [{ name }] = rowsOf<{ name: string }>(await database.db.execute(sql`select current_database() as name`));
  const u = new URL(inject('pgAdminUrl'));
  u.pathname = `/${name}`;
  url = u.toString();
});
afterAll(async () => {
  await app?.close();
  await database?.close();
  rmSync(dir, { recursive: true, force: true });
});

function tool(cmd: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe.skipIf(!postgres)('pg_dump and pg_restore under writes', () => {
  it('restores every write acknowledged before the dump began, and a balanced ledger', async () => {
    const owner = await signUpVerified(app, database);
    const made = await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Dumped', goalAmount: 1000, actionMode: 'donation' } });
    expect(made.statusCode).toBe(201);
    const campaignId = made.json()._id as string;
    let n = 0;
    const give = async () => {
      const res = await call(
        app,
        { ip: freshIp() },
        {
          method: 'POST',
          url: `/api/campaigns/${campaignId}/donations`,
          headers: { 'idempotency-key': `pgdump-${++n}` },
          payload: { amount: 5 + (n % 4), email: `pg.giver.${n}@example.com`, card: GOOD },
        },
      );
      expect(res.statusCode, res.body).toBe(201);
      return res.json()._id as string;
    };
    const before = { donations: [] as string[], emails: [] as string[] };
    for (let i = 0; i < 10; i++) {
      before.donations.push(await give());
      before.emails.push(await register(app));
    }

    // two clients write while the dump runs, and a few times after it
    let dumping = true;
    let after = 0;
    const client = async () => {
      for (let i = 0; i < 500 && (dumping || after < 6); i++) {
        await give();
        await register(app);
        if (!dumping) after++;
      }
    };
    const clients = Promise.all([client(), client()]);
    const file = path.join(dir, 'kindling.dump');
    const dumped = await tool('pg_dump', ['-Fc', '-f', file, url]);
    dumping = false;
    await clients;
    expect(dumped.code, dumped.stderr).toBe(0);

    const copy = `${inject('pgDbPrefix')}restored_${Math.random().toString(36).slice(2, 8)}`;
    const admin = await openPostgres(inject('pgAdminUrl'), { max: 1 });
    let restored: Database | undefined;
    try {
      await admin.db.execute(sql.raw(`create database ${copy}`));
      const u = new URL(inject('pgAdminUrl'));
      u.pathname = `/${copy}`;
      const back = await tool('pg_restore', ['--no-owner', '-d', u.toString(), file]);
      expect(back.code, back.stderr).toBe(0);
      restored = await openPostgres(u.toString(), { max: 1 });
      const db = restored.db;
      const found = await db.select({ id: donations.id, status: donations.status }).from(donations).where(inArray(donations.id, before.donations));
      expect(found.map((d) => `${d.id} ${d.status}`).sort()).toEqual(before.donations.map((id) => `${id} succeeded`).sort());
      const people = await db.select({ email: users.email }).from(users).where(inArray(users.email, before.emails));
      expect(people.map((p) => p.email).sort()).toEqual([...before.emails].sort());
      // nothing half there: every group sums to zero, each donation booked once, the totals equal the donations
      expect(await unbalancedLedgerGroups(db)).toEqual([]);
      const all = await db.select({ id: donations.id, status: donations.status, amount: donations.amount }).from(donations);
      const groups = await db.select({ donationId: ledgerGroups.donationId, kind: ledgerGroups.kind }).from(ledgerGroups);
      // a donation the dump caught between its two steps (made, then confirmed by the provider's
      // event) is pending and not booked, as the app left it then: the reconciliation job settles it
      for (const d of all)
        expect({ id: d.id, status: d.status, booked: groups.filter((g) => g.donationId === d.id).length }).toEqual({
          id: d.id,
          status: d.status === 'pending' ? 'pending' : 'succeeded',
          booked: d.status === 'pending' ? 0 : 1,
        });
      expect(groups.length).toBe(all.filter((d) => d.status === 'succeeded').length);
      const [totals] = await db.select({ n: sql<string>`sum(${campaignTotals.raised} - ${campaignTotals.refunded})` }).from(campaignTotals);
      const [ledger] = await db
        .select({ n: sql<string>`sum(${ledgerEntries.amount}) filter (where ${ledgerEntries.accountType} = 'campaign')` })
        .from(ledgerEntries);
      // the campaigns' totals and the ledger hold the paid donations, no more and no less
      const paid = all.filter((d) => d.status === 'succeeded').reduce((s, d) => s + d.amount, 0);
      expect([Number(totals.n), Number(ledger.n)]).toEqual([paid, paid]);
    } finally {
      await restored?.close();
      await admin.db.execute(sql.raw(`drop database if exists ${copy} with (force)`));
      await admin.close();
    }
  });
});
