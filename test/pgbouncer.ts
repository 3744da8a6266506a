import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';

/**
 * PgBouncer in transaction mode for the tests (issue #31), as most hosted PostgreSQL is reached
 * at scale: Debian's `pgbouncer`, which CI installs. The run starts one in front of the test
 * server (test/global-setup.ts) and the server test files named in THROUGH_POOLER reach their
 * databases through it (test/helpers.ts); src/server/db/pgbouncer.heavy.test.ts starts its own to
 * show what DATABASE_PREPARE=off guards against.
 */

export const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', ...(process.env.PATH ?? '').split(':').map((d) => path.join(d, 'pgbouncer'))].find((p) =>
  existsSync(p),
);

/**
 * Server test files whose apps reach their databases through the run's pooler, with prepared
 * statements off, as DATABASE_URL behind a transaction-mode pooler: one or more for each module
 * and for the parts that hold transactions, locks or streams (jobs' run lock, payments' webhooks,
 * uploads, the tRPC door, CSV exports). Every other file reaches PostgreSQL directly with prepared
 * statements on (the default). Each file runs once, one way or the other: a second run of these
 * through the pooler took about a seventh of the whole test run.
 */
export const THROUGH_POOLER = [
  'src/server/modules/admin/admin.test.ts',
  'src/server/modules/auth/auth.test.ts',
  'src/server/modules/blocks/blocks.test.ts',
  'src/server/modules/campaigns/campaigns.test.ts',
  'src/server/modules/comments/comments.test.ts',
  'src/server/modules/disputes/disputes.test.ts',
  'src/server/modules/donations/donations.test.ts',
  'src/server/modules/favorites/favorites.test.ts',
  'src/server/modules/payouts/payouts.test.ts',
  'src/server/modules/previews/previews.test.ts',
  'src/server/modules/projects/projects.test.ts',
  'src/server/modules/stats/stats.test.ts',
  'src/server/modules/supports/supports.test.ts',
  'src/server/modules/tags/tags.test.ts',
  'src/server/modules/teams/teams.test.ts',
  'src/server/modules/updates/updates.test.ts',
  'src/server/modules/uploads/uploads.test.ts',
  'src/server/modules/users/users.test.ts',
  'src/server/jobs/jobs.test.ts',
  'src/server/payments/stripe.test.ts',
  'src/server/trpc/http.test.ts',
  'src/server/http/csv-export.test.ts',
];

/** True when the test file at `file` (an absolute path or one from the project root) goes through the pooler. */
export function throughPooler(file: string): boolean {
  const f = file.split(path.sep).join('/');
  return THROUGH_POOLER.some((suffix) => f === suffix || f.endsWith(`/${suffix}`));
}

export interface Pooler {
  /** The pooler's URL for a database of the server (by the path of a server URL). */
  url(serverUrl: string): string;
  /** What PgBouncer logged so far. */
  log(): string;
  stop(): Promise<void>;
}

/** The pooler's address for a database of the server: `serverUrl` with the pooler's host and port. */
export function pooledUrl(poolerBase: string, serverUrl: string): string {
  const pooler = new URL(poolerBase);
  const u = new URL(serverUrl);
  u.hostname = pooler.hostname;
  u.port = pooler.port;
  u.password = '';
  return u.toString();
}

/**
 * PgBouncer in transaction mode on a free port in front of the server at `serverUrl`, with trust
 * authentication; `aliases` are database entries of their own (name: PgBouncer's options).
 */
export async function startPgbouncer(serverUrl: string, aliases: Record<string, string> = {}): Promise<Pooler> {
  if (!PGBOUNCER) throw new Error('pgbouncer is not installed');
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username) || 'postgres';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kindling-pgbouncer-'));
  // PgBouncer refuses to run as root: it is then started as nobody, who must read its files
  chmodSync(dir, 0o755);
  const port = await freePort();
  const password = server.password ? ` password=${decodeURIComponent(server.password)}` : '';
  writeFileSync(path.join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      ...Object.entries(aliases).map(([alias, options]) => `${alias} = host=${server.hostname} port=${server.port || '5432'}${password} ${options}`),
      `* = host=${server.hostname} port=${server.port || '5432'}${password}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 20',
      'max_client_conn = 500',
      '',
    ].join('\n'),
  );
  const args = process.getuid?.() === 0 ? ['-u', 'nobody', path.join(dir, 'pgbouncer.ini')] : [path.join(dir, 'pgbouncer.ini')];
  const child: ChildProcess = spawn(PGBOUNCER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  await new Promise<void>((resolve, reject) => {
    const onData = (d: string) => {
      log += d;
      if (log.includes('process up')) resolve();
    };
    child.stdout?.setEncoding('utf8').on('data', onData);
    child.stderr?.setEncoding('utf8').on('data', onData);
    child.on('error', reject);
    void exited.then(() => reject(new Error(`pgbouncer exited before it was up:\n${log}`)));
  });
  // the pooler lives as long as the run; its log is read only by the test that started it
  return {
    url: (forServerUrl) => pooledUrl(`postgres://127.0.0.1:${port}`, forServerUrl),
    log: () => log,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
