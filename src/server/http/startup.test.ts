import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { compiled } from '../../../test/processes';
import { connectionFailureCause, postgresLocation } from '../db/client';
import { projectRoot } from './client-app';

// `npm start` against a database it cannot use: one line on stderr (where and why, never the
// password), exit code 1, and no time spent building the client first. The real start command
// runs in a child process; the test waits for it to exit (a condition).

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kindling-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function start(databaseUrl: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // the server as the build compiles it, started with plain node (test/processes.ts)
  const file = await compiled('src/server/main.ts');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], {
      cwd: projectRoot,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: databaseUrl,
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function oneLine(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, stderr).toHaveLength(1);
  return lines[0];
}

describe('start-up with a database it cannot use', () => {
  it('names the host and the cause in one line when the server refuses the connection', async () => {
    const r = await start('postgres://kindling:hunter2secret@127.0.0.1:1/kindling');
    expect(r.code).toBe(1);
    const line = oneLine(r.stderr);
    expect(line).toBe('Cannot connect to PostgreSQL at 127.0.0.1:1: connection refused');
    expect(r.stderr + r.stdout).not.toContain('hunter2secret');
    // nothing was built before the database was checked
    expect(r.stdout).not.toMatch(/Building the client/);
  });

  it.skipIf(inject('dbKind') !== 'postgres')('says when the database does not exist on the server', async () => {
    const u = new URL(inject('pgAdminUrl'));
    const name = `kindling_missing_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    u.pathname = `/${name}`;
    const r = await start(u.toString());
    expect(r.code).toBe(1);
    const line = oneLine(r.stderr);
    expect(line).toBe(`Cannot connect to PostgreSQL at ${u.hostname}:${u.port || '5432'}: database "${name}" does not exist`);
  });
});

describe('the connection failure line', () => {
  it('gives host:port without credentials, and the innermost cause without the password', () => {
    expect(postgresLocation('postgres://u:p@db.example.com/x')).toBe('db.example.com:5432');
    expect(postgresLocation('postgresql://u:p@10.0.0.5:6543/x')).toBe('10.0.0.5:6543');
    const wrapped = new Error('Failed query: select 1\nparams: ', {
      cause: Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:1'), { code: 'ECONNREFUSED' }),
    });
    expect(connectionFailureCause(wrapped)).toBe('connection refused');
    const several = new AggregateError([Object.assign(new Error('getaddrinfo ENOTFOUND x'), { code: 'ENOTFOUND' })], 'all failed');
    expect(connectionFailureCause(several)).toBe('host not found');
    const pg = new Error('Failed query', { cause: Object.assign(new Error('password authentication failed for user "u" (pw s3cr3t)'), { code: '28P01' }) });
    expect(connectionFailureCause(pg, 'postgres://u:s3cr3t@h/x')).toBe('password authentication failed for user "u" (pw ***)');
  });
});
