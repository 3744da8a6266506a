import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiled } from '../../../test/processes';
import { projectRoot } from '../http/client-app';
import { DataDirInUseError, openDatabase, openPglite, type Database } from './client';
import { users } from './schema';

// One process at a time holds an embedded data directory. This test process opens one (as a
// running server does) and runs the real commands against it in child processes: the admin
// command and a second start each stop with one line and change nothing; once the directory is
// free, the admin command does its work. Every wait is for a child to exit (a condition).

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kindling-lock-'));
const pgDir = path.join(dataDir, 'pg');
const lockFile = `${pgDir}.lock`;
const EMAIL = 'lock.owner@example.com';
const IN_USE = `The embedded database in ${pgDir} is in use by another Kindling process (pid ${process.pid}); stop it first, or run this with DATABASE_URL set to a PostgreSQL server`;

let held: Database | undefined;

beforeAll(async () => {
  held = await openDatabase({ dataDir });
  await held.migrate();
  await held.db.insert(users).values({ email: EMAIL, passwordHash: 'not a real hash' });
});
afterAll(async () => {
  await held?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A command of the project run as an operator runs it, on this test's DATA_DIR. A start that got
 * as far as serving is stopped and reported as such (it should never get there while the
 * directory is held).
 */
async function run(script: string, args: string[] = []): Promise<Run> {
  // compiled as the build compiles it, started with plain node (test/processes.ts)
  const file = await compiled(script);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (stdout.includes('Kindling is running')) child.kill('SIGTERM');
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const isAdmin = async (db: Database) => (await db.db.select({ isAdmin: users.isAdmin }).from(users).where(eq(users.email, EMAIL)))[0]?.isAdmin;

describe('an embedded data directory another process holds', () => {
  it('stops the admin command with one line, and nothing changes', async () => {
    const r = await run('src/server/cli/admin.ts', ['grant', EMAIL]);
    expect(r.stderr.trim().split('\n'), r.stderr).toEqual([IN_USE]);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(1);
    expect(await isAdmin(held!)).toBe(false);
    expect(readFileSync(lockFile, 'utf8').trim()).toBe(String(process.pid));
  });

  it('stops a second start with the same line, before it builds or serves anything', async () => {
    const r = await run('src/server/main.ts');
    expect(r.stdout).not.toContain('Kindling is running');
    expect(r.stderr.trim().split('\n'), r.stderr).toEqual([IN_USE]);
    expect(r.stdout).not.toMatch(/Building the client/);
    expect(r.code).toBe(1);
    expect(readFileSync(lockFile, 'utf8').trim()).toBe(String(process.pid));
  });

  it('is refused to a second opening in the same process', async () => {
    await expect(openPglite(pgDir)).rejects.toThrow(DataDirInUseError);
    await expect(openPglite(pgDir)).rejects.toThrow(IN_USE);
  });
});

describe('an embedded data directory once it is free', () => {
  it('lets the admin command do its work, and the grant is there for the next process', async () => {
    await held!.close();
    held = undefined;
    expect(existsSync(lockFile)).toBe(false);
    const r = await run('src/server/cli/admin.ts', ['grant', EMAIL]);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(`${EMAIL} is now an admin.`);
    expect(r.code).toBe(0);
    expect(existsSync(lockFile)).toBe(false);
    held = await openDatabase({ dataDir });
    expect(await isAdmin(held)).toBe(true);
  });

  it('takes over a lock left by a process that no longer runs', async () => {
    await held!.close();
    held = undefined;
    // the id of a process that has ended: a command killed before it could remove its lock
    const gone = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
      child.on('error', reject);
      child.on('close', () => resolve(child.pid!));
    });
    writeFileSync(lockFile, `${gone}\n`);
    const r = await run('src/server/cli/admin.ts', ['revoke', EMAIL]);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(`${EMAIL} is no longer an admin.`);
    expect(r.code).toBe(0);
    expect(existsSync(lockFile)).toBe(false);
    held = await openDatabase({ dataDir });
    expect(await isAdmin(held)).toBe(false);
  });
});
