import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { compiled } from '../../test/processes';
import { projectRoot } from './http/client-app';

/**
 * The drain on SIGTERM (issue #31, lifecycle.ts) with the app as its own process on a
 * PostgreSQL database of this file's own, under a steady load of kept-alive requests: every
 * request the app accepted is answered, none with a 5xx and none cut (the process counts the
 * connections it accepted and logs each request); connections are refused only once /readyz has
 * turned 503; the process exits 0. Then, with a request held in
 * flight (its body half sent) as the server stops accepting: it is still answered in full, and
 * one that never finishes is given SHUTDOWN_TIMEOUT_SECONDS before the process exits with 1.
 * PostgreSQL only: PGlite is one process's database.
 *
 * Each process is the app as main.ts builds it (config from the environment, the database
 * checked, `buildApp`, `shutdownOnSignals` with the configured times, listen), run from source
 * by node with tsx's loader (no tsx launcher between the test and the app: the signal goes to
 * the app itself), without the built client, which this test does not need and main.ts would
 * build first when the client's sources changed.
 */

const postgres = inject('dbKind') === 'postgres';
/** Clients sending requests one after another on their kept-alive connection. */
const CLIENTS = 8;
/** Answers each client gets before the SIGTERM: the load is steady by then. */
const WARM_ANSWERS = 20;
/** A client that is never refused stops after this many requests (a hang guard; a drain takes far fewer). */
const MOST_REQUESTS = 100_000;

let url: string;
let dropDatabase: (() => Promise<void>) | undefined;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kindling-drain-'));

const load = (file: string) => JSON.stringify(path.join(projectRoot, file));
let serverFile: string;
const SERVER = `
const { loadConfig } = await import(${load('src/server/config.ts')});
const { openCheckedDatabase } = await import(${load('src/server/db/client.ts')});
const { buildApp } = await import(${load('src/server/app.ts')});
const { shutdownOnSignals } = await import(${load('src/server/lifecycle.ts')});
const config = loadConfig(process.env);
const database = await openCheckedDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
const app = await buildApp({ config, db: database.db, client: 'none' });
shutdownOnSignals(app, { drainMs: config.shutdownDrainMs, timeoutMs: config.shutdownTimeoutMs, closeDatabase: () => database.close() });
// what the test checks on its side: every connection this process accepted had a request read
let accepted = 0;
const served = new WeakSet();
let withoutRequest = 0;
app.server.on('connection', (socket) => {
  accepted++;
  socket.on('close', () => { if (!served.has(socket)) withoutRequest++; });
});
app.server.on('request', (req) => served.add(req.socket));
process.on('exit', () => process.stdout.write(JSON.stringify({ msg: 'connections', accepted, withoutRequest }) + '\\n'));
await app.listen({ port: config.port, host: config.host });
process.stdout.write(JSON.stringify({ msg: 'listening', port: app.server.address().port }) + '\\n');
`;

interface LogEntry {
  msg: string;
  port?: number;
  req?: { url?: string };
  accepted?: number;
  withoutRequest?: number;
}

interface Server {
  child: ChildProcess;
  port: number;
  /** The messages of the JSON log lines the process wrote so far, in order. */
  messages: () => string[];
  /** Those lines themselves. */
  entries: () => LogEntry[];
  output: () => string;
  exited: Promise<number | null>;
}

/** The app as its own process; resolves once it listens. */
function startServer(env: Record<string, string>): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [serverFile], {
      cwd: projectRoot,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: 'test',
        DATABASE_URL: url,
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        JOBS: 'off',
        // every client here is 127.0.0.1: the per-address limit would answer 429s, which are not the point
        CLIENT_CONCURRENCY: '0',
        CLIENT_RATE: '0',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const entries: LogEntry[] = [];
    let partial = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const lines = (partial + d).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        let entry: LogEntry;
        try {
          entry = JSON.parse(line) as LogEntry;
        } catch {
          continue;
        }
        if (typeof entry.msg !== 'string') continue;
        entries.push(entry);
        if (entry.msg === 'listening' && entry.port) {
          resolve({ child, port: entry.port, messages: () => entries.map((e) => e.msg), entries: () => entries, output: () => out, exited });
        }
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    void exited.then((code) => reject(new Error(`the server exited (${code}) before listening:\n${out}`)));
  });
}

/** What became of one request. */
type Outcome =
  | { kind: 'answer'; at: number; status: number; connection: string | undefined }
  | { kind: 'refused'; at: number }
  | { kind: 'failed'; at: number; code: string; reusedSocket: boolean };

/** One GET through `agent` (a kept-alive connection) or a connection of its own; the whole answer is read. */
function get(port: number, urlPath: string, agent: http.Agent | false): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ kind: 'answer', at: performance.now(), status: res.statusCode ?? 0, connection: res.headers.connection }));
      res.on('error', (err: NodeJS.ErrnoException) =>
        resolve({ kind: 'failed', at: performance.now(), code: `body: ${err.code ?? err.message}`, reusedSocket: req.reusedSocket }),
      );
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      const at = performance.now();
      if (err.code === 'ECONNREFUSED') resolve({ kind: 'refused', at });
      else resolve({ kind: 'failed', at, code: err.code ?? err.message, reusedSocket: req.reusedSocket });
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `done` holds, checking every 20 ms, at most `polls` times. */
async function until(what: string, done: () => boolean, polls = 3000): Promise<void> {
  for (let i = 0; i < polls; i++) {
    if (done()) return;
    await sleep(20);
  }
  throw new Error(`${what}: not after ${polls} checks`);
}

beforeAll(async () => {
  serverFile = await compiled({ name: 'drain-server', source: SERVER });
  if (!postgres) return;
  // a database of this file's own, as openTestDatabase makes it, whose address the processes are given
  const { default: pg } = await import('postgres');
  const admin = pg(inject('pgAdminUrl'), { max: 1, onnotice: () => {} });
  const name = `${inject('pgDbPrefix')}drain${Math.random().toString(36).slice(2, 10)}`;
  await admin.unsafe(`create database ${name} template ${inject('pgTemplate')}`);
  const u = new URL(inject('pgAdminUrl'));
  u.pathname = `/${name}`;
  url = u.toString();
  dropDatabase = async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
});
afterAll(async () => {
  await dropDatabase?.();
  rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(!postgres)('SIGTERM under load', () => {
  it('answers every request it accepted (no reset, no 5xx), refuses only after /readyz turned 503, and exits 0', async () => {
    const server = await startServer({ SHUTDOWN_DRAIN_SECONDS: '2', SHUTDOWN_TIMEOUT_SECONDS: '20' });
    let stop = false;
    const byClient: Outcome[][] = Array.from({ length: CLIENTS }, () => []);
    // each client: one kept-alive connection at a time, a request as soon as the last was answered,
    // until a connection is refused (the server stopped accepting: the balancer's cue to go elsewhere)
    const clients = byClient.map(async (outcomes, i) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      for (let n = 0; n < MOST_REQUESTS && !stop; n++) {
        const o = await get(server.port, `/api/campaigns?client=${i}`, agent);
        outcomes.push(o);
        if (o.kind === 'refused') break;
      }
      agent.destroy();
    });
    // the balancer: /readyz on a new connection each time, a few times a second
    const probes: Outcome[] = [];
    const balancer = (async () => {
      for (let n = 0; n < MOST_REQUESTS && !stop; n++) {
        const o = await get(server.port, '/readyz', false);
        probes.push(o);
        if (o.kind === 'refused') break;
        await sleep(50);
      }
    })();

    try {
      await until('steady load', () => byClient.every((o) => o.filter((x) => x.kind === 'answer').length >= WARM_ANSWERS));
      expect(probes.some((p) => p.kind === 'answer' && p.status === 200)).toBe(true);
      const sigtermAt = performance.now();
      server.child.kill('SIGTERM');
      await Promise.all([...clients, balancer]);

      const all = byClient.flat();
      const answers = all.filter((o) => o.kind === 'answer');
      const failed = all.filter((o) => o.kind === 'failed');
      const since = (at: number) => `${Math.round(at - sigtermAt)} ms after the SIGTERM`;
      // A connection the kernel had queued for the app when its listening socket closed is reset
      // by the kernel: the app never accepted it (checked below: every connection it accepted had
      // its request read, and it logged as many requests as were answered). Any other failure, on
      // a kept-alive connection or after an answer began, is a request cut.
      const isNotAccepted = (o: Outcome) => o.kind === 'failed' && o.code === 'ECONNRESET' && !o.reusedSocket;
      const notAccepted = [...failed, ...probes].filter(isNotAccepted);
      expect(
        failed
          .filter((f) => !notAccepted.includes(f))
          .map((f) => f.kind === 'failed' && `${f.code} on a ${f.reusedSocket ? 'kept-alive' : 'new'} connection ${since(f.at)}`),
      ).toEqual([]);
      const code = await server.exited;
      const connections = server.entries().find((e) => e.msg === 'connections');
      expect(connections?.accepted).toBeGreaterThan(0);
      expect(connections?.withoutRequest).toBe(0);
      const requests = server.entries().filter((e) => e.msg === 'incoming request' && e.req?.url?.startsWith('/api/campaigns'));
      expect(requests.length).toBe(answers.length);
      expect(probes.filter((p) => p.kind === 'failed' && !isNotAccepted(p))).toEqual([]);
      expect(answers.filter((a) => a.status >= 500)).toEqual([]);
      expect(answers.every((a) => a.status === 200)).toBe(true);

      // /readyz turned 503 (draining) after the SIGTERM, before any connection was refused
      const first503 = probes.find((p) => p.kind === 'answer' && p.status === 503);
      expect(first503, 'a /readyz 503 during the drain').toBeDefined();
      expect(first503!.at).toBeGreaterThan(sigtermAt);
      const refusals = [...all, ...probes].filter((o) => o.kind === 'refused' || notAccepted.includes(o));
      expect(refusals.length).toBeGreaterThan(0);
      for (const r of refusals) expect(r.at).toBeGreaterThan(first503!.at);
      // requests went on being answered after the balancer saw the 503, each closing its connection
      const duringDrain = answers.filter((a) => a.at > first503!.at);
      expect(duringDrain.length).toBeGreaterThan(0);
      expect(duringDrain.every((a) => a.connection === 'close')).toBe(true);
      // and each client was refused in the end (none was left hanging on a connection)
      for (const outcomes of byClient) expect(outcomes.at(-1)?.kind).toBe('refused');

      expect(code, server.output().slice(-3000)).toBe(0);
      const said = server.messages();
      const order = ['SIGTERM received: draining', 'drain over', 'shut down cleanly'].map((m) => said.findIndex((s) => s.startsWith(m)));
      expect(order.every((i) => i >= 0) && order[0]! < order[1]! && order[1]! < order[2]!, said.join('\n')).toBe(true);
    } finally {
      stop = true;
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  });
});

/** A login request whose body is sent only in part: the server has it in flight until the rest comes. */
function heldRequest(port: number) {
  const body = JSON.stringify({ email: 'nobody@example.com', password: 'not the password' });
  const half = Math.floor(body.length / 2);
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  let errorCode: string | undefined;
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (received += d));
  socket.on('error', (err: NodeJS.ErrnoException) => (errorCode = err.code ?? err.message));
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(
    `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, half)}`,
  );
  return {
    finish: () => socket.write(body.slice(half)),
    ended,
    received: () => received,
    errorCode: () => errorCode,
    destroy: () => socket.destroy(),
  };
}

/** True when a new connection to `port` is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

describe.skipIf(!postgres)('requests in flight when the server stops accepting', () => {
  it('one still coming in is answered in full (with Connection: close) after new connections are refused, then the process exits 0', async () => {
    const server = await startServer({ SHUTDOWN_DRAIN_SECONDS: '0.5', SHUTDOWN_TIMEOUT_SECONDS: '60' });
    const held = heldRequest(server.port);
    try {
      // the server has the request (its headers were read: the handler waits for the body)
      await until('the held request reached the app', () => server.messages().includes('incoming request'));
      server.child.kill('SIGTERM');
      await until('the drain is over', () => server.messages().some((m) => m.startsWith('drain over')));
      // the server no longer accepts connections, and waits for the request in flight
      expect(await refused(server.port)).toBe(true);
      expect(server.child.exitCode).toBeNull();
      held.finish();
      await held.ended;
      expect(held.errorCode()).toBeUndefined();
      const [head, answer] = held.received().split('\r\n\r\n');
      // a wrong password: the app's own answer, whole
      expect(head).toMatch(/^HTTP\/1\.1 401 /);
      expect(head?.toLowerCase()).toContain('connection: close');
      const length = Number(/content-length: (\d+)/i.exec(head ?? '')?.[1]);
      expect(Buffer.byteLength(answer ?? '')).toBe(length);
      expect(await server.exited, server.output().slice(-3000)).toBe(0);
      expect(server.messages()).toContain('shut down cleanly');
    } finally {
      held.destroy();
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  });

  it('one that never finishes gets SHUTDOWN_TIMEOUT_SECONDS, then the process says so and exits 1', async () => {
    const server = await startServer({ SHUTDOWN_DRAIN_SECONDS: '0', SHUTDOWN_TIMEOUT_SECONDS: '1' });
    const held = heldRequest(server.port);
    try {
      await until('the held request reached the app', () => server.messages().includes('incoming request'));
      server.child.kill('SIGTERM');
      expect(await server.exited, server.output().slice(-3000)).toBe(1);
      expect(server.messages()).toContain('shutdown did not finish within 1 s (still waiting for the requests in flight): exiting');
      expect(server.messages()).not.toContain('shut down cleanly');
    } finally {
      held.destroy();
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  });
});
