import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { pngImage, unbalancedLedgerGroups } from '../../../test/helpers';
import { compiled } from '../../../test/processes';
import { CONDITION_WAIT_MS } from '../../../test/limits';
import { projectRoot } from '../http/client-app';
import { BACKUPS_DIR, SET_ASIDE_PREFIX } from './backup';
import { type Database, openPglite } from './client';
import { campaigns, campaignTotals, donations, ledgerEntries, ledgerGroups, users } from './schema';

/**
 * Backups of the embedded database (issue #31): the app runs as its own process on a fresh
 * DATA_DIR while clients sign up, create campaigns and give (paid by the sandbox's test card);
 * `npm run backup` is run meanwhile and the writes go on. The app is stopped, `npm run restore`
 * puts the backup in place (refused while the app runs), and the app is started again: every
 * write acknowledged before the backup began is there, and nothing is half there (every ledger
 * group sums to zero, each donation present is booked once, each campaign's totals equal its
 * ledger). The uploaded picture comes back with the data. A backup taken with the app stopped
 * restores as well (the command then dumps the data directory itself). PGlite only, whatever the lane's database: it is the embedded database's backup.
 *
 * Each process is the app as `npm start` builds it (src/server/main.ts: config from the
 * environment, the database checked and migrated, `buildApp`, listen, backups served), without
 * the built client, which this test does not need and `npm start` would build first.
 */

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kindling-backup-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const POLL_MS = 100;
const MAX_POLLS = CONDITION_WAIT_MS / POLL_MS;
const GOOD = '4242 4242 4242 4242';

const ENV = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  NODE_ENV: 'test',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  JOBS: 'off',
  RATE_LIMIT_PER_MINUTE: '0',
  WRITE_LIMITS: 'off',
  CLIENT_CONCURRENCY: '0',
  CLIENT_RATE: '0',
};

const SERVER = `
(async () => {
  const { loadConfig } = await import(${JSON.stringify(path.join(projectRoot, 'src/server/config.ts'))});
  const { openCheckedDatabase } = await import(${JSON.stringify(path.join(projectRoot, 'src/server/db/client.ts'))});
  const { serveBackups } = await import(${JSON.stringify(path.join(projectRoot, 'src/server/db/backup.ts'))});
  const { buildApp } = await import(${JSON.stringify(path.join(projectRoot, 'src/server/app.ts'))});
  const config = loadConfig(process.env);
  const database = await openCheckedDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await database.migrate();
  const app = await buildApp({ config, db: database.db, client: 'none' });
  await serveBackups({ dataDir: config.dataDir, database, log: app.log });
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write('listening ' + app.server.address().port + '\\n');
  process.on('SIGTERM', async () => {
    await app.close();
    await database.close();
    process.exit(0);
  });
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
`;

interface Server {
  child: ChildProcess;
  base: string;
  stop: () => Promise<number | null>;
}

/** The app on DATA_DIR; resolves once it listens (its own line on stdout). */
async function startServer(): Promise<Server> {
  const file = await compiled({ name: 'backup-server', source: SERVER });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd: projectRoot, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = out.match(/^listening (\d+)$/m);
      if (m)
        resolve({
          child,
          base: `http://127.0.0.1:${m[1]}`,
          stop: async () => {
            if (child.exitCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    void exited.then((code) => reject(new Error(`the server exited (${code}) before listening:\n${out}`)));
  });
}

/** A command of the project (`npm run backup` is `tsx src/server/cli/backup.ts`), compiled, to its exit. */
async function run(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const file = await compiled(script);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { cwd: projectRoot, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, done: () => boolean): Promise<void> {
  for (let i = 0; i < MAX_POLLS; i++) {
    if (done()) return;
    await sleep(POLL_MS);
  }
  throw new Error(`${what}: not after ${MAX_POLLS} polls`);
}

async function api(base: string, method: string, url: string, body?: unknown, token?: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: () => JSON.parse(text) as Record<string, string>, text };
}

/** What a client was told was done: a sign-up, a campaign, a paid donation. */
type Write = { kind: 'signup'; email: string } | { kind: 'campaign'; id: string } | { kind: 'donation'; id: string; campaignId: string; amount: number };

const PASSWORD = 'correct horse battery';
let seq = 0;

async function signUp(base: string): Promise<Write> {
  const email = `backup.${++seq}.${process.pid}@example.com`;
  const res = await api(base, 'POST', '/api/auth/register', { email, password: PASSWORD });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${res.text}`);
  return { kind: 'signup', email };
}

async function createCampaign(base: string, token: string): Promise<Write & { kind: 'campaign' }> {
  const res = await api(base, 'POST', '/api/campaigns', { title: `Backed up ${++seq}`, goalAmount: 1000, actionMode: 'donation' }, token);
  if (res.status !== 201) throw new Error(`campaign: ${res.status} ${res.text}`);
  return { kind: 'campaign', id: res.json()._id };
}

async function give(base: string, campaignId: string): Promise<Write> {
  const n = ++seq;
  const amount = 5 + (n % 7);
  const res = await api(base, 'POST', `/api/campaigns/${campaignId}/donations`, { amount, email: `giver.${n}@example.com`, card: GOOD }, undefined, {
    'idempotency-key': `backup-${process.pid}-${n}`,
  });
  if (res.status !== 201 || res.json().status !== 'succeeded') throw new Error(`donation: ${res.status} ${res.text}`);
  return { kind: 'donation', id: res.json()._id, campaignId, amount: amount * 100 };
}

/** Each donation present is booked once and balanced, and each campaign's totals equal its ledger: nothing is half there. */
async function soundLedger(db: Database['db']) {
  expect(await unbalancedLedgerGroups(db)).toEqual([]);
  const rows = await db.select().from(donations);
  const groups = await db.select().from(ledgerGroups);
  // a donation the backup caught between its two steps (made, then confirmed by the provider's
  // event) is pending and not booked, as the app left it then: the reconciliation job settles it
  for (const d of rows) {
    const pending = d.status === 'pending';
    expect({ id: d.id, status: d.status }).toEqual({ id: d.id, status: pending ? 'pending' : 'succeeded' });
    expect(groups.filter((g) => g.donationId === d.id).map((g) => g.kind)).toEqual(pending ? [] : ['donation']);
  }
  // and no booking without its donation
  const ids = new Set(rows.map((d) => d.id));
  expect(groups.filter((g) => g.kind === 'donation' && !ids.has(g.donationId ?? ''))).toEqual([]);
  const fromLedger = await db
    .select({ id: ledgerEntries.accountId, n: sql<string>`sum(${ledgerEntries.amount})` })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.accountType, 'campaign'))
    .groupBy(ledgerEntries.accountId);
  const fromTotals = await db
    .select({ id: campaignTotals.campaignId, n: sql<string>`sum(${campaignTotals.raised} - ${campaignTotals.refunded})` })
    .from(campaignTotals)
    .groupBy(campaignTotals.campaignId);
  const fromDonations = Object.fromEntries(
    [...new Set(rows.map((d) => d.campaignId))].map((c) => [c, rows.filter((d) => d.campaignId === c).reduce((s, d) => s + d.amount, 0)]),
  );
  const norm = (r: { id: string | null; n: string }[]) => Object.fromEntries(r.filter((x) => Number(x.n) !== 0).map((x) => [x.id, Number(x.n)]));
  expect(norm(fromTotals)).toEqual(fromDonations);
  expect(norm(fromLedger)).toEqual(fromDonations);
}

describe('backup and restore of the embedded database', () => {
  it('restores a backup taken under writes: every write acknowledged before it began, nothing half there, the uploads', async () => {
    // the lanes' migrated database when there is one (creating and migrating one takes a minute on a busy machine)
    if (inject('pgliteDump')) await (await openPglite(path.join(dataDir, 'pg'), { loadDataDir: new Blob([readFileSync(inject('pgliteDump'))]) })).close();
    let app = await startServer();
    const writes: { write: Write; phase: 'before' | 'during' | 'after' }[] = [];
    let phase: 'before' | 'during' | 'after' = 'before';
    let backup = '';
    let picture: { url: string; bytes: Buffer };
    try {
      // the owner and a picture of theirs
      const owner = (await signUp(app.base)) as Write & { kind: 'signup' };
      const login = await api(app.base, 'POST', '/api/auth/login', { email: owner.email, password: PASSWORD });
      expect(login.status).toBe(200);
      const token = login.json().token;
      const png = await pngImage(321, 200);
      const form = new FormData();
      form.append('files', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'cover.png');
      const up = await fetch(`${app.base}/api/upload/campaign/multi?kind=gallery`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      expect(up.status).toBeLessThan(300);
      const url = ((await up.json()) as { images: { url: string }[] }).images[0].url;
      picture = { url, bytes: Buffer.from(await (await fetch(`${app.base}${url}`)).arrayBuffer()) };
      expect(picture.bytes.length).toBeGreaterThan(0);

      const record = (write: Write) => writes.push({ write, phase });
      const first = await createCampaign(app.base, token);
      record(first);
      for (let i = 0; i < 8; i++) {
        record(await signUp(app.base));
        record(await give(app.base, first.id));
      }

      // three clients writing while the backup is taken, and a little after it
      let stop = false;
      const base = app.base;
      const client = async () => {
        let afterCount = 0;
        for (let i = 0; i < 400 && !stop && afterCount < 3; i++) {
          const c = await createCampaign(base, token);
          record(c);
          record(await signUp(base));
          record(await give(base, c.id));
          record(await give(base, first.id));
          if (phase === 'after') afterCount++;
        }
      };
      const clients = [client(), client(), client()];
      const failed = Promise.all(clients).then(
        () => null,
        (err: unknown) => err,
      );
      await until('the clients write', () => writes.length >= 30);

      phase = 'during';
      const made = await run('src/server/cli/backup.ts', []);
      phase = 'after';
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout).toMatch(/^Backup written by the running app \(pid \d+\): .+\.tar \(/);
      const files = readdirSync(path.join(dataDir, BACKUPS_DIR)).filter((f) => f.endsWith('.tar'));
      expect(files).toHaveLength(1);
      backup = path.join(dataDir, BACKUPS_DIR, files[0]);
      expect(made.stdout).toContain(backup);

      // a restore while the app runs is refused, and changes nothing
      const refused = await run('src/server/cli/restore.ts', [backup]);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toMatch(/^Kindling \(pid \d+\) is using .+: stop it first\. .*nothing was changed\.$/);
      expect(readdirSync(dataDir).filter((n) => n.startsWith(SET_ASIDE_PREFIX))).toEqual([]);

      expect(await failed).toBeNull();
      stop = true;
      await Promise.all(clients);
    } finally {
      await app.stop();
    }
    const before = writes.filter((w) => w.phase === 'before').map((w) => w.write);
    const later = writes.filter((w) => w.phase !== 'before').map((w) => w.write);
    expect(before.length).toBeGreaterThanOrEqual(30);
    expect(later.length).toBeGreaterThan(0);

    const restored = await run('src/server/cli/restore.ts', [backup]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/^Restored .+ The data it replaced is in .+before-restore-[^ ]+: delete that once the app runs as it should\.\n$/);
    // the data it replaced is kept aside, whole
    const aside = readdirSync(dataDir).filter((n) => n.startsWith(SET_ASIDE_PREFIX));
    expect(aside).toHaveLength(1);
    expect(existsSync(path.join(dataDir, aside[0], 'pg', 'PG_VERSION'))).toBe(true);
    expect(existsSync(path.join(dataDir, aside[0], 'uploads'))).toBe(true);

    app = await startServer();
    try {
      for (const w of before) {
        if (w.kind === 'campaign') expect((await api(app.base, 'GET', `/api/campaigns/${w.id}`)).status, w.id).toBe(200);
      }
      const login = await api(app.base, 'POST', '/api/auth/login', {
        email: (before.find((w) => w.kind === 'signup') as { email: string }).email,
        password: PASSWORD,
      });
      expect(login.status).toBe(200);
      const got = await fetch(`${app.base}${picture.url}`);
      expect(got.status).toBe(200);
      expect(Buffer.from(await got.arrayBuffer()).equals(picture.bytes)).toBe(true);
    } finally {
      await app.stop();
    }

    let accounts = 0;
    const database = await openPglite(path.join(dataDir, 'pg'));
    try {
      const db = database.db;
      const emails = before.flatMap((w) => (w.kind === 'signup' ? [w.email] : []));
      const campaignIds = before.flatMap((w) => (w.kind === 'campaign' ? [w.id] : []));
      const given = before.flatMap((w) => (w.kind === 'donation' ? [w] : []));
      expect((await db.select({ email: users.email }).from(users).where(inArray(users.email, emails))).map((u) => u.email).sort()).toEqual([...emails].sort());
      expect((await db.select({ id: campaigns.id }).from(campaigns).where(inArray(campaigns.id, campaignIds))).map((c) => c.id).sort()).toEqual(
        [...campaignIds].sort(),
      );
      const found = await db
        .select({ id: donations.id, campaignId: donations.campaignId, amount: donations.amount, status: donations.status })
        .from(donations)
        .where(
          inArray(
            donations.id,
            given.map((d) => d.id),
          ),
        );
      expect(found.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
        // acknowledged before the backup began: paid then, so paid in the backup
        given.map((d) => ({ id: d.id, campaignId: d.campaignId, amount: d.amount, status: 'succeeded' })).sort((a, b) => a.id.localeCompare(b.id)),
      );
      await soundLedger(db);
      accounts = (await db.select({ id: users.id }).from(users)).length;
    } finally {
      await database.close();
    }

    // with the app stopped the command opens the data directory itself, and that backup restores as well
    const file = path.join(dataDir, BACKUPS_DIR, 'stopped.tar');
    const offline = await run('src/server/cli/backup.ts', [file]);
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout).toMatch(/^Backup written \(the app was not running\): /);
    const again = await run('src/server/cli/restore.ts', [file]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`: ${accounts} accounts, `);
    expect(readdirSync(dataDir).filter((n) => n.startsWith(SET_ASIDE_PREFIX))).toHaveLength(2);
  });
});
