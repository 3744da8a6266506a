import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, capturedLog, freshIp, login, register, signUpVerified, trpc, type Client } from '../../../test/helpers';
import { connectionFailureCause, type Database, DatabaseUnavailableError, openPostgres } from './client';
import { openReplica, READ_AFTER_WRITE_COOKIE } from './replica';
import { freePort } from '../../../test/free-port';

/**
 * The read replica (issue #31) against a real streaming standby made here with PostgreSQL's own
 * tools: a primary of the test's own (initdb, on a free port: the machine's server may not allow
 * replication connections), a standby copied from it by `pg_basebackup -R` and started on another
 * port, the app built with DATABASE_URL on the primary and DATABASE_READ_URL on the standby.
 *
 * Replica lag is made, not waited for: `pg_wal_replay_pause()` on the standby holds its replay,
 * so whatever is written meanwhile is on the primary only, for as long as the test wants. Then:
 * an anonymous list, search or detail answered by the replica does not show what was just
 * written, while the writer's own requests do (signed in, or within READ_AFTER_WRITE after a write
 * of theirs), and money and access (a guest's donation, a sign-in) are decided on the primary.
 * Once replay resumes and the standby has replayed the primary's last write, the anonymous reads
 * show everything.
 *
 * PostgreSQL's server binaries are needed (PG_BIN, else `pg_config --bindir`, else the newest
 * /usr/lib/postgresql/N/bin); without them the file is skipped. PostgreSQL refuses to run as
 * root: as root the clusters are run by the `postgres` account (runuser).
 */

function pgBin(): string | null {
  const has = (dir: string) => existsSync(path.join(dir, 'pg_basebackup')) && existsSync(path.join(dir, 'initdb'));
  if (process.env.PG_BIN) return has(process.env.PG_BIN) ? process.env.PG_BIN : null;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const v of versions) if (has(path.join(root, v, 'bin'))) return path.join(root, v, 'bin');
  return null;
}

const BIN = pgBin();
const asRoot = process.getuid?.() === 0;
const run = promisify(execFile);

/** Runs one of PostgreSQL's programs, as the `postgres` account when this process is root. */
async function pg(program: string, args: string[]): Promise<string> {
  const file = path.join(BIN!, program);
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  try {
    return (await run(cmd, argv)).stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${program} failed: ${e.stderr || e.message}`);
  }
}

/** The most times a condition is asked (every 50 ms or slower): only a hung standby reaches it. */
const MAX_POLLS = 1200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < MAX_POLLS; i++) {
    if (await done()) return;
    await sleep(50);
  }
  throw new Error(`${what}: not after ${MAX_POLLS} polls`);
}

/** Server settings for a throwaway cluster: no durability needed, small memory. */
const FAST = ['-c fsync=off', '-c full_page_writes=off', '-c synchronous_commit=off', '-c shared_buffers=32MB'];

describe.skipIf(BIN === null)('read replica on a streaming standby', () => {
  let base: string;
  let primaryDir: string;
  let standbyDir: string;
  let primaryUrl: string;
  let standbyUrl: string;
  let standbyPort: number;
  let primary: Database;
  /** Superuser connections of the test, to pause and watch the standby. */
  let primarySql: postgres.Sql;
  let standbySql: postgres.Sql;
  let app: FastifyInstance;
  let owner: Client & { userId: string };
  const started: string[] = [];

  async function startCluster(dir: string, port: number): Promise<void> {
    const opts = [`-p ${port}`, `-k ${base}`, "-c listen_addresses='127.0.0.1'", ...FAST].join(' ');
    await pg('pg_ctl', ['-D', dir, '-l', `${dir}.log`, '-w', '-t', '600', '-o', opts, 'start']);
    started.push(dir);
  }

  /** Holds the standby's replay; resolves once it says it is paused. */
  async function pauseReplay(): Promise<void> {
    await standbySql`select pg_wal_replay_pause()`;
    await until('replay paused', async () => (await standbySql`select pg_get_wal_replay_pause_state() as s`)[0].s === 'paused');
  }

  /**
   * Lets replay go on; resolves once the standby has replayed everything the primary has written so far.
   * The insert position, not the write position: these clusters commit asynchronously (FAST), so a
   * commit the app has answered may still sit in the primary's WAL buffers, past its write position.
   */
  async function resumeAndCatchUp(): Promise<void> {
    await standbySql`select pg_wal_replay_resume()`;
    const [{ lsn }] = await primarySql`select pg_current_wal_insert_lsn()::text as lsn`;
    await until('the standby caught up', async () => (await standbySql`select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as ok`)[0].ok === true);
  }

  beforeAll(async () => {
    base = mkdtempSync(path.join(os.tmpdir(), 'kindling-replica-'));
    if (asRoot) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      chownSync(base, Number(stdout), Number(gid));
    }
    primaryDir = path.join(base, 'primary');
    standbyDir = path.join(base, 'standby');
    const [p1, p2] = [await freePort(), await freePort()];
    // initdb's own pg_hba.conf lets local replication connections in (trust, like the rest)
    await pg('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    await startCluster(primaryDir, p1);
    primarySql = postgres(`postgres://postgres@127.0.0.1:${p1}/postgres`, { max: 1, onnotice: () => {} });
    await primarySql`create database kindling`;
    primaryUrl = `postgres://postgres@127.0.0.1:${p1}/kindling`;
    primary = await openPostgres(primaryUrl, { max: 5 });
    await primary.migrate();
    // the standby: a base backup that writes standby.signal and primary_conninfo (-R), streaming from the primary
    await pg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(p1), '-U', 'postgres', '-D', standbyDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
    standbyPort = p2;
    await startCluster(standbyDir, p2);
    standbySql = postgres(`postgres://postgres@127.0.0.1:${p2}/postgres`, { max: 1, onnotice: () => {} });
    standbyUrl = `postgres://postgres@127.0.0.1:${p2}/kindling`;
    expect((await standbySql`select pg_is_in_recovery() as r`)[0].r).toBe(true);

    // a minute of read-after-write: longer than this test, so a marker never runs out in it
    app = await buildTestApp(primary, { databaseUrl: primaryUrl, databaseReadUrl: standbyUrl, readAfterWriteMs: 60_000 });
    owner = await signUpVerified(app, primary, { username: 'replica_owner' });
    await resumeAndCatchUp();
  });

  afterAll(async () => {
    await app?.close();
    await primary?.close();
    await primarySql?.end({ timeout: 1 });
    await standbySql?.end({ timeout: 1 });
    for (const dir of started.reverse()) await pg('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']).catch(() => {});
    if (base) rmSync(base, { recursive: true, force: true });
  });

  const anonymous = (): Client => ({ ip: freshIp() });
  const ids = (res: { json(): unknown }) => ((res.json() as { items: { _id: string }[] }).items ?? []).map((i) => i._id);
  const get = (who: Client | null, url: string) => call(app, who, { method: 'GET', url });

  it('while the standby lags, anonymous reads come from it; writers and money and access read the primary; after replay the anonymous reads show it all', async () => {
    await pauseReplay();
    const word = `lighthouse${Date.now().toString(36)}`;
    const campaign = await call(app, owner, {
      method: 'POST',
      url: '/api/campaigns',
      payload: { title: `Restore the ${word}`, goalAmount: 100, actionMode: 'donation' },
    });
    expect(campaign.statusCode).toBe(201);
    const campaignId = campaign.json()._id as string;
    const project = await call(app, owner, { method: 'POST', url: '/api/projects', payload: { title: `Harbour ${word} project` } });
    expect(project.statusCode).toBe(201);
    const projectId = project.json()._id as string;
    const team = await call(app, owner, { method: 'POST', url: '/api/teams', payload: { name: `Keepers ${word}` } });
    expect(team.statusCode).toBe(201);
    const teamId = team.json()._id as string;
    // a person who joins while the standby lags: registering is a write, signing in an access decision (on the primary)
    const newcomerEmail = await register(app, { username: `n_${word}`.slice(0, 30) });
    const newcomer = await login(app, newcomerEmail);

    // an anonymous visitor reads the replica: nothing of the above yet
    const visitor = anonymous();
    expect(ids(await get(visitor, '/api/campaigns'))).not.toContain(campaignId);
    expect(ids(await get(visitor, `/api/campaigns?q=${word}`))).toEqual([]);
    expect((await get(visitor, `/api/campaigns/${campaignId}`)).statusCode).toBe(404);
    expect((await get(visitor, `/api/public/users/${owner.userId}/campaigns`)).json().items).toEqual([]);
    expect(ids(await get(visitor, '/api/projects'))).not.toContain(projectId);
    expect((await get(visitor, `/api/projects/${projectId}`)).statusCode).toBe(404);
    expect(ids(await get(visitor, '/api/teams'))).not.toContain(teamId);
    expect((await get(visitor, `/api/teams/${teamId}`)).statusCode).toBe(404);
    expect(ids(await get(visitor, '/api/public/users'))).not.toContain(newcomer.userId);
    expect((await get(visitor, `/api/public/users/${newcomer.userId}`)).statusCode).toBe(404);

    // the creator, signed in, reads the primary: everything they made is there
    expect(ids(await get(owner, '/api/campaigns'))).toContain(campaignId);
    expect(ids(await get(owner, `/api/campaigns?q=${word}`))).toEqual([campaignId]);
    expect((await get(owner, `/api/campaigns/${campaignId}`)).statusCode).toBe(200);
    expect(ids(await get(owner, '/api/projects'))).toContain(projectId);
    expect((await get(owner, `/api/teams/${teamId}`)).statusCode).toBe(200);
    expect((await get(newcomer, `/api/public/users/${newcomer.userId}`)).statusCode).toBe(200);

    // money: a guest gives to the campaign the replica does not know yet; the donation is decided on the primary
    const guest = anonymous();
    const gift = await call(app, guest, {
      method: 'POST',
      url: `/api/campaigns/${campaignId}/donations`,
      headers: { 'idempotency-key': `replica-${word}` },
      payload: { amount: 25, card: '4242 4242 4242 4242', email: `guest.${word}@example.com` },
    });
    expect(gift.statusCode).toBe(201);
    expect(gift.json()).toMatchObject({ campaignId, status: 'succeeded' });
    // the answer marks the guest as having just written: their reads stay on the primary for READ_AFTER_WRITE
    const marker = gift.cookies.find((c) => c.name === READ_AFTER_WRITE_COOKIE);
    expect(marker).toMatchObject({ httpOnly: true, path: '/', maxAge: 60 });
    const guestBack: Client = { ip: guest.ip, cookie: `${READ_AFTER_WRITE_COOKIE}=${marker!.value}` };
    const seen = await get(guestBack, `/api/campaigns/${campaignId}`);
    expect(seen.statusCode).toBe(200);
    expect(seen.json()).toMatchObject({ totalRaised: 25, donors: 1 });
    expect(ids(await get(guestBack, `/api/campaigns?q=${word}`))).toEqual([campaignId]);
    // the same guest without the marker, or with one that has run out, is an anonymous visitor again
    expect((await get(guest, `/api/campaigns/${campaignId}`)).statusCode).toBe(404);
    const ranOut: Client = { ip: guest.ip, cookie: `${READ_AFTER_WRITE_COOKIE}=${Date.now() - 1}` };
    expect((await get(ranOut, `/api/campaigns/${campaignId}`)).statusCode).toBe(404);
    // the app's own door (tRPC) the same: a guest's gift there marks them too, and their page then shows it
    const second = anonymous();
    expect((await trpc(app, second, 'query', 'campaigns.get', { id: campaignId })).status).toBe(404);
    const viaApp = await trpc(app, second, 'mutation', 'donations.donate', {
      campaignId,
      amount: 5,
      card: '4242 4242 4242 4242',
      email: `second.${word}@example.com`,
      idempotencyKey: `replica-trpc-${word}`,
    });
    expect(viaApp.status).toBe(200);
    const appMarker = viaApp.cookies.find((c) => c.name === READ_AFTER_WRITE_COOKIE);
    expect(appMarker).toBeDefined();
    const secondBack: Client = { ip: second.ip, cookie: `${READ_AFTER_WRITE_COOKIE}=${appMarker!.value}` };
    expect((await trpc(app, secondBack, 'query', 'campaigns.get', { id: campaignId })).data).toMatchObject({ totalRaised: 30, donors: 2 });
    expect((await trpc(app, second, 'query', 'campaigns.get', { id: campaignId })).status).toBe(404);
    // the newcomer, who registered and signed in on the primary, reads there too, and signing out keeps them there a while
    const out = await call(app, newcomer, { method: 'POST', url: '/api/auth/logout' });
    expect(out.statusCode).toBeLessThan(300);
    const leftMarker = out.cookies.find((c) => c.name === READ_AFTER_WRITE_COOKIE);
    expect(leftMarker).toBeDefined();
    expect((await get({ ip: newcomer.ip, cookie: `${READ_AFTER_WRITE_COOKIE}=${leftMarker!.value}` }, `/api/teams/${teamId}`)).statusCode).toBe(200);
    // access: a draft shown through a preview link is decided on the primary (the replica has neither the draft nor the link)
    const draft = await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: `Draft ${word}`, visibility: 'draft' } });
    expect(draft.statusCode).toBe(201);
    const draftId = draft.json()._id as string;
    const link = await call(app, owner, { method: 'POST', url: `/api/campaigns/${draftId}/circle/links`, payload: { label: 'press' } });
    expect(link.statusCode).toBe(201);
    const holder: Client = { ip: freshIp(), cookie: `kindling_preview=${draftId}.${new URL(link.json().url).searchParams.get('preview')}` };
    expect((await get(holder, `/api/campaigns/${draftId}`)).statusCode).toBe(200);
    // and a revoked link ends at once, however far behind the replica is
    const revoked = await call(app, owner, { method: 'DELETE', url: `/api/campaigns/${draftId}/circle/links/${link.json().link._id}` });
    expect(revoked.statusCode).toBe(200);
    expect((await get(holder, `/api/campaigns/${draftId}`)).statusCode).toBe(404);
    // still nothing for the visitor: the standby has not moved
    expect((await get(visitor, `/api/campaigns/${campaignId}`)).statusCode).toBe(404);

    // replay resumes: once the standby has the primary's last write, the anonymous reads show it all
    await resumeAndCatchUp();
    expect(ids(await get(visitor, '/api/campaigns'))).toContain(campaignId);
    expect(ids(await get(visitor, `/api/campaigns?q=${word}`))).toEqual([campaignId]);
    expect((await get(visitor, `/api/campaigns/${campaignId}`)).json()).toMatchObject({ _id: campaignId, totalRaised: 30, donors: 2 });
    expect((await trpc(app, anonymous(), 'query', 'campaigns.get', { id: campaignId })).data).toMatchObject({ totalRaised: 30, donors: 2 });
    expect(ids(await get(visitor, `/api/public/users/${owner.userId}/campaigns`))).toEqual([campaignId]);
    expect(ids(await get(visitor, '/api/projects'))).toContain(projectId);
    expect((await get(visitor, `/api/projects/${projectId}`)).statusCode).toBe(200);
    expect(ids(await get(visitor, '/api/teams'))).toContain(teamId);
    expect((await get(visitor, `/api/teams/${teamId}`)).statusCode).toBe(200);
    expect(ids(await get(visitor, '/api/public/users'))).toContain(newcomer.userId);
    expect((await get(visitor, `/api/public/users/${newcomer.userId}`)).statusCode).toBe(200);
  });

  it('a DATABASE_READ_URL on a primary by mistake: the start warns and the app still cannot write there', async () => {
    const log = capturedLog();
    const misread = await buildTestApp(primary, { databaseUrl: primaryUrl, databaseReadUrl: primaryUrl }, log);
    try {
      const said = log.lines.filter((l) => l.msg.includes('replica') || l.msg.includes('DATABASE_READ_URL')).map((l) => [l.level, l.msg]);
      expect(said).toEqual([
        [30, `read replica: PostgreSQL at ${primaryUrl}`],
        [40, 'DATABASE_READ_URL points at a server that is not a standby (pg_is_in_recovery() is false)'],
      ]);
      // every session of the replica's pool is read-only, whatever server it reaches
      const failed = await misread.deps.readDb!.execute(sql`create table never_here (x int)`).catch((err: Error) => err);
      expect(connectionFailureCause(failed)).toBe('cannot execute CREATE TABLE in a read-only transaction');
      // and anonymous reads are still answered through it
      expect((await get(anonymous(), '/api/campaigns')).statusCode).toBe(200);
    } finally {
      await misread.close();
    }
  });

  it('an unreachable DATABASE_READ_URL stops the start with one line naming it', async () => {
    const port = await freePort();
    const err = await openReplica(`postgres://kindling:secret@127.0.0.1:${port}/kindling`, { prepare: true }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect((err as Error).message).toBe(`Cannot connect to the read replica (DATABASE_READ_URL) at 127.0.0.1:${port}: connection refused`);
  });

  it('without DATABASE_READ_URL there is one pool and no write answer carries the marker', async () => {
    const plain = await buildTestApp(primary);
    try {
      expect(plain.deps.readDb).toBeUndefined();
      const res = await call(plain, owner, { method: 'POST', url: '/api/projects', payload: { title: 'No replica here' } });
      expect(res.statusCode).toBe(201);
      expect(res.cookies.map((c) => c.name)).not.toContain(READ_AFTER_WRITE_COOKIE);
    } finally {
      await plain.close();
    }
  });

  it('a standby that stops answering is left for the primary within a few checks, and read again once it answers', async () => {
    const log = capturedLog();
    const watched = await buildTestApp(
      primary,
      { databaseUrl: primaryUrl, databaseReadUrl: standbyUrl, readAfterWriteMs: 60_000, metricsToken: 'replica-test' },
      log,
    );
    const gauge = async () =>
      /^kindling_read_replica_up (\d)$/m.exec(
        (await watched.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer replica-test' } })).body,
      )?.[1];
    const read = (url: string) => call(watched, anonymous(), { method: 'GET', url });
    const said = () => log.lines.filter((l) => l.msg.startsWith('read replica ')).map((l) => [l.level, l.msg.replace(/ \(.*\):/, ' (...):')]);
    const make = async (title: string) => {
      const res = await call(watched, owner, { method: 'POST', url: '/api/campaigns', payload: { title, goalAmount: 100, actionMode: 'donation' } });
      expect(res.statusCode).toBe(201);
      return res.json()._id as string;
    };
    try {
      expect(watched.deps.readDbUp?.()).toBe(true);
      expect(await gauge()).toBe('1');
      // something only the primary has: written while the standby's replay is held
      await pauseReplay();
      const first = await make('Written while the standby lags');
      expect(ids(await read('/api/campaigns'))).not.toContain(first);

      await pg('pg_ctl', ['-D', standbyDir, '-m', 'fast', '-w', 'stop']);
      // the next checks find it gone: every anonymous read is answered by the primary
      await until('anonymous reads answered by the primary', async () => {
        const res = await read('/api/campaigns');
        return res.statusCode === 200 && ids(res).includes(first);
      });
      expect(watched.deps.readDbUp?.()).toBe(false);
      expect(await gauge()).toBe('0');
      expect((await read(`/api/campaigns/${first}`)).statusCode).toBe(200);
      expect(ids(await read('/api/campaigns?q=lags'))).toEqual([first]);
      expect(said()).toEqual([[40, 'read replica does not answer (...): every read goes to the primary until it does']]);

      // back: replay goes on as it starts, the checks find it, and anonymous reads go to it again
      await startCluster(standbyDir, standbyPort);
      await until('the replica answers its checks again', async () => watched.deps.readDbUp?.() === true);
      expect(await gauge()).toBe('1');
      expect(said()).toEqual([
        [40, 'read replica does not answer (...): every read goes to the primary until it does'],
        [30, 'read replica answers again: anonymous reads go to it'],
      ]);
      await resumeAndCatchUp();
      await pauseReplay();
      const second = await make('Written while the standby lags again');
      expect(ids(await read('/api/campaigns'))).not.toContain(second);
      await resumeAndCatchUp();
      expect(ids(await read('/api/campaigns'))).toContain(second);
    } finally {
      await watched.close();
    }
  });
});
