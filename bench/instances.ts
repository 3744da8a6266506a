import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import { writeDocsSection } from './docs-section';
import type { Child, CpuMeter, CpuSnapshot, LoadResult, Options, Scenario } from './run';

/**
 * The instances part of `npm run bench` (`--only instances`, used by bench/run.ts): the lists
 * part's requests (the same shapes: REST list page 1, deep pages by keyset and by `page=`,
 * searches, detail, and the tRPC list and detail) at a steady `--rate`, answered by
 *
 * - one app process,
 * - two app processes on the same database behind one address (a round-robin HTTP proxy in the
 *   bench's own process: Node's http with a keep-alive agent to each process),
 * - one app process with DATABASE_PREPARE=off (what a transaction-mode pooler needs),
 *
 * all three through the same proxy, so that latency compares like with like; the proxy's CPU is
 * the bench process's, never counted as the server's. Each app runs with JOBS=off, so only the
 * requests use its CPU. The figure is server CPU per request (the app processes' utime + stime
 * from /proc, over the answered requests) and its PostgreSQL backends' CPU per request: on two
 * cores a second process brings no throughput, but it must not cost more than 10 % more CPU per
 * request (nothing passes from instance to instance on a request's path).
 */

/** The configurations take turns in this many rounds, each a slice of --duration: a change in the machine's other load falls on all alike. */
const ROUNDS = 3;
/** Issue #31's bound on two processes' server CPU per request against one. */
const TWO_OVER_ONE_MAX = 1.1;

export interface InstancesTools {
  /** The app with these settings over the bench's (run.ts startApp). */
  startApp(settings: NodeJS.ProcessEnv): Promise<{ child: Child; base: string }>;
  /** A raw baseline server (bench/raw-server.ts) on the bench's database; its backends carry `appName`. */
  startRaw(appName: string): Promise<{ child: Child; base: string }>;
  stopChild(c: Child): Promise<void>;
  load(s: Scenario, duration: number, connections: number, rate?: number): Promise<LoadResult>;
  waitForQuiet(meter: CpuMeter): Promise<number>;
  otherCores(a: CpuSnapshot, b: CpuSnapshot): number;
  /** CPU of these process groups and of the PostgreSQL backends with these application names. */
  meterFor(pgids: number[], appNames: string[]): CpuMeter;
  ticksPerSecond: number;
  percentile(sorted: number[], p: number): number;
}

/** A request shape of the lists part, without its server: one path, or several in turn. */
export interface ListShape {
  key: string;
  label: string;
  path: string;
  paths?: string[];
}

/** A shape of the raw baseline (bench/raw-server.ts) and the key of the app's shape it runs the SQL of. */
export interface RawShape extends ListShape {
  pair: string;
}

interface Proxy {
  base: string;
  /** Requests sent to each upstream so far. */
  sent: number[];
  close(): Promise<void>;
}

/**
 * A round-robin HTTP proxy on a free port of 127.0.0.1: each request goes to the next upstream in
 * turn, over a keep-alive agent of its own, with its method, path, headers and body; the answer
 * comes back as it came. What a load balancer in front of several instances does, at its simplest.
 */
async function startProxy(upstreams: string[]): Promise<Proxy> {
  const targets = upstreams.map((u) => ({ url: new URL(u), agent: new http.Agent({ keepAlive: true }) }));
  const sent = targets.map(() => 0);
  let turn = 0;
  const server = http.createServer((req, res) => {
    const i = turn++ % targets.length;
    sent[i]++;
    const t = targets[i];
    const up = http.request({ host: t.url.hostname, port: t.url.port, method: req.method, path: req.url, headers: req.headers, agent: t.agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    sent,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const t of targets) t.agent.destroy();
    },
  };
}

interface Setup {
  key: 'one' | 'two' | 'noprep' | 'half' | 'raw-one' | 'raw-two';
  label: string;
  proxy: Proxy;
  meter: CpuMeter;
  /** The share of `--rate` this setup is sent (1 but for 'half'). */
  share: number;
}

interface Acc {
  samples: number[];
  total: number;
  seconds: number;
  bad: number;
  timeouts: number;
  appTicks: number;
  pgTicks: number;
  other: number[];
}

const newAcc = (): Acc => ({ samples: [], total: 0, seconds: 0, bad: 0, timeouts: 0, appTicks: 0, pgTicks: 0, other: [] });

export async function benchInstances(
  o: Options,
  ctx: {
    tools: InstancesTools;
    shapes: ListShape[];
    /** The control: the raw baseline's shapes, one process against two at the same rate. */
    rawShapes: RawShape[];
    env: { pgVersion: string; sharedBuffers: string };
    docs: string;
    docsHeader: string;
  },
): Promise<void> {
  const { tools } = ctx;
  // as the lists part: ten connections' worth of clients from one address, so the per-address
  // limits are off; JOBS=off, so that the processes' CPU is the requests' alone
  const settings: NodeJS.ProcessEnv = { CLIENT_CONCURRENCY: '0', CLIENT_RATE: '0', JOBS: 'off' };
  const names = {
    a: 'kindling-bench-app',
    b: 'kindling-bench-app-2',
    noprep: 'kindling-bench-app-noprep',
    rawA: 'kindling-bench-raw-a',
    rawB: 'kindling-bench-raw-b',
  };
  const raws: { child: Child; base: string }[] = [];
  const a = await tools.startApp({ ...settings, PGAPPNAME: names.a });
  const b = await tools.startApp({ ...settings, PGAPPNAME: names.b });
  const c = await tools.startApp({ ...settings, PGAPPNAME: names.noprep, DATABASE_PREPARE: 'off' });
  const proxies: Proxy[] = [];
  try {
    /** A setup: these servers behind one proxy of their own, metered with their PostgreSQL backends (named). */
    const setupOf = async (
      key: Setup['key'],
      label: string,
      servers: { server: { child: Child; base: string }; name: string }[],
      share = 1,
    ): Promise<Setup> => {
      const proxy = await startProxy(servers.map((s) => s.server.base));
      proxies.push(proxy);
      return {
        key,
        label,
        proxy,
        meter: tools.meterFor(
          servers.map((s) => s.server.child.proc.pid!),
          servers.map((s) => s.name),
        ),
        share,
      };
    };
    const setups: Setup[] = [
      await setupOf('one', 'one process', [{ server: a, name: names.a }]),
      await setupOf('two', 'two processes, round robin', [
        { server: a, name: names.a },
        { server: b, name: names.b },
      ]),
      await setupOf('noprep', 'one process, DATABASE_PREPARE=off', [{ server: c, name: names.noprep }]),
      // the control: one process sent what each of the two gets (half the rate). A process's CPU
      // per request falls as its requests come closer together (more of them share each wake-up of
      // its event loop), so two processes at a rate are compared with one at half of it too
      await setupOf('half', 'one process, half the rate', [{ server: a, name: names.a }], 0.5),
    ];
    const scenario = (shape: ListShape, setup: Setup): Scenario => ({
      key: shape.key,
      label: shape.label,
      url: `${setup.proxy.base}${shape.path}`,
      paths: shape.paths,
      server: 'app',
    });
    const acc = new Map<string, Acc>();
    const slice = o.duration / ROUNDS;

    /** Each shape through each setup: checked once, warmed up, then ROUNDS rounds with the setups in turn. */
    const measure = async (shapes: ListShape[], group: Setup[], what: string) => {
      // one request of each shape through each setup first: every answer must be right before it is timed
      for (const setup of group) {
        for (const shape of shapes) {
          for (let i = 0; i < setup.proxy.sent.length; i++) {
            const res = await fetch(`${setup.proxy.base}${shape.paths?.[0] ?? shape.path}`);
            await res.arrayBuffer();
            if (!res.ok) throw new Error(`instances, ${setup.label}: ${shape.label} answered ${res.status}`);
          }
        }
      }
      process.stdout.write(`\nInstances, ${what}: warming every process up on every shape at ${o.rate} req/s (${o.warmup} s each)...`);
      for (const setup of group) for (const shape of shapes) await tools.load(scenario(shape, setup), o.warmup, o.connections, o.rate * setup.share);
      console.log(' done');
      console.log(
        `Instances, ${what}: a steady ${o.rate} requests a second, ${ROUNDS} rounds of ${slice.toFixed(1)} s per shape and setup, the setups in turn:`,
      );
      for (const shape of shapes) {
        process.stdout.write(`  ${shape.label.padEnd(46)}`);
        for (let round = 0; round < ROUNDS; round++) {
          for (const setup of group) {
            const k = `${shape.key}/${setup.key}`;
            if (!acc.has(k)) acc.set(k, newAcc());
            const x = acc.get(k)!;
            if (round === 0 && setup === group[0]) await tools.waitForQuiet(setup.meter);
            const before = await setup.meter.snapshot();
            const r = await tools.load(scenario(shape, setup), slice, o.connections, o.rate * setup.share);
            const after = await setup.meter.snapshot();
            x.samples.push(...r.samples);
            x.total += r.total;
            x.seconds += r.seconds;
            x.bad += r.bad;
            x.timeouts += r.timeouts;
            x.appTicks += after.app - before.app;
            x.pgTicks += after.pgApp - before.pgApp;
            x.other.push(tools.otherCores(before, after));
          }
        }
        const [first, second] = group.map((g) => acc.get(`${shape.key}/${g.key}`)!);
        process.stdout.write(`server CPU/req one ${ms(first, first.appTicks).toFixed(2)}, two ${ms(second, second.appTicks).toFixed(2)} ms\n`);
      }
    };
    const ms = (x: Acc, ticks: number) => ((ticks / tools.ticksPerSecond) * 1000) / Math.max(1, x.total);

    const sentBefore = setups[1].proxy.sent.slice();
    await measure(ctx.shapes, setups, 'the app');
    const split = setups[1].proxy.sent.map((n, i) => n - sentBefore[i]);

    // the control: the raw baseline (bare Fastify and postgres.js running the REST list's SQL, none
    // of the app's code), one process against two at the same rate. What it shows is the machine's
    // and Node's, not the app's: a process's CPU per request rises as its requests come further apart
    // each kept as it starts, so that a failed start of the second still stops the first
    const rawA = await tools.startRaw(names.rawA);
    raws.push(rawA);
    const rawB = await tools.startRaw(names.rawB);
    raws.push(rawB);
    const rawSetups: Setup[] = [
      await setupOf('raw-one', 'raw baseline, one process', [{ server: rawA, name: names.rawA }]),
      await setupOf('raw-two', 'raw baseline, two processes, round robin', [
        { server: rawA, name: names.rawA },
        { server: rawB, name: names.rawB },
      ]),
    ];
    await measure(ctx.rawShapes, rawSetups, 'the raw baseline (the control)');

    // --- report
    const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');
    const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
    const sum = (key: Setup['key'], shapes: ListShape[] = ctx.shapes) => {
      const all = newAcc();
      for (const shape of shapes) {
        const x = acc.get(`${shape.key}/${key}`)!;
        all.total += x.total;
        all.appTicks += x.appTicks;
        all.pgTicks += x.pgTicks;
        all.bad += x.bad + x.timeouts;
        all.other.push(...x.other);
      }
      return all;
    };
    const totals = { one: sum('one'), two: sum('two'), noprep: sum('noprep'), half: sum('half') };
    const cpu = (x: Acc) => ({ server: ms(x, x.appTicks), pg: ms(x, x.pgTicks) });
    const [one, two, noprep, half] = [cpu(totals.one), cpu(totals.two), cpu(totals.noprep), cpu(totals.half)];
    const twoOverOne = two.server / one.server;
    const twoOverHalf = two.server / half.server;
    const others = [...totals.one.other, ...totals.two.other, ...totals.noprep.other, ...totals.half.other];
    // the control against the app over the same requests (the app shapes the raw baseline has)
    const paired = ctx.rawShapes.map((r) => ctx.shapes.find((shape) => shape.key === r.pair)!);
    const raw = { one: cpu(sum('raw-one', ctx.rawShapes)), two: cpu(sum('raw-two', ctx.rawShapes)) };
    const app = { one: cpu(sum('one', paired)), two: cpu(sum('two', paired)) };
    const rawBad = sum('raw-one', ctx.rawShapes).bad + sum('raw-two', ctx.rawShapes).bad;
    const rawRows = ctx.rawShapes.map((shape, i) => {
      const at = (key: Setup['key'], k = shape.key) => {
        const x = acc.get(`${k}/${key}`)!;
        return cpu(x).server;
      };
      const appPair = paired[i].key;
      return `| ${paired[i].label} | ${f(at('raw-one'), 2)} | ${f(at('raw-two'), 2)} | ${f(at('raw-two') / at('raw-one'), 2)} | ${f(at('one', appPair), 2)} | ${f(at('two', appPair), 2)} | ${f(at('two', appPair) / at('one', appPair), 2)} |`;
    });
    const rows = ctx.shapes.map((shape) => {
      const get = (key: Setup['key']) => {
        const x = acc.get(`${shape.key}/${key}`)!;
        x.samples.sort((p, q) => p - q);
        return { p95: tools.percentile(x.samples, 0.95), ...cpu(x), failed: x.bad + x.timeouts };
      };
      const [r1, r2, r0, rh] = [get('one'), get('two'), get('noprep'), get('half')];
      const failed = r1.failed + r2.failed + r0.failed + rh.failed;
      return (
        `| ${shape.label} | ${f(r1.p95)} | ${f(r1.server, 2)} | ${f(r1.pg, 2)} | ${f(r2.p95)} | ${f(r2.server, 2)} | ${f(r2.pg, 2)} | ${f(r2.server / r1.server, 2)} | ` +
        `${f(rh.server, 2)} | ${f(r2.server / rh.server, 2)} | ` +
        `${f(r0.p95)} | ${f(r0.server, 2)} | ${f(r0.pg, 2)} | ${f((r0.server + r0.pg) / (r1.server + r1.pg), 2)} |${failed ? ` (${failed} failed)` : ''}`
      );
    });
    const body = [
      `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ` +
        `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory; Node ${process.version}; PostgreSQL ${ctx.env.pgVersion} (shared_buffers ${ctx.env.sharedBuffers}), same machine; ` +
        `${o.campaigns.toLocaleString('en-US')} campaigns.`,
      '',
      `The lists part's requests, anonymous, each shape at a steady ${o.rate} requests a second (evenly spaced, open loop), ${ROUNDS} rounds of ${f(slice)} s per shape and setup, ` +
        `the setups in turn (after ${o.warmup} s of warm-up of each), answered by one app process, by two on the same database behind one address (a round-robin proxy ` +
        `in the bench's process: the two got ${split.map((n) => n.toLocaleString('en-US')).join(' and ')} of the timed requests), by one with \`DATABASE_PREPARE=off\`, ` +
        `and by one sent half the rate (what each of the two gets: the control). ` +
        'Every setup is reached through the same proxy, whose CPU is not counted. Each app has its own pool of 10 connections and `JOBS=off`. ' +
        `CPU columns: milliseconds per answered request of the app processes (utime + stime from /proc) and of their PostgreSQL backends. ` +
        `Other processes on the machine used ${f(Math.min(...others))}-${f(Math.max(...others))} cores.`,
      '',
      '| request | one: p95 ms | one: server CPU | one: PG CPU | two: p95 ms | two: server CPU | two: PG CPU | two/one server CPU | one at half the rate: server CPU | two / one at half the rate | prepare off: p95 ms | prepare off: server CPU | prepare off: PG CPU | prepare off/on, server + PG CPU |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
      `| **all requests** | | ${f(one.server, 2)} | ${f(one.pg, 2)} | | ${f(two.server, 2)} | ${f(two.pg, 2)} | ${f(twoOverOne, 2)} | ${f(half.server, 2)} | ${f(twoOverHalf, 2)} | | ${f(noprep.server, 2)} | ${f(noprep.pg, 2)} | ` +
        `${f((noprep.server + noprep.pg) / (one.server + one.pg), 2)} |`,
      '',
      `Target (issue #31): two processes' server CPU per request at most ${TWO_OVER_ONE_MAX}x one's: ${f(twoOverOne, 2)} (${verdict(twoOverOne <= TWO_OVER_ONE_MAX)}); ` +
        `their PostgreSQL CPU per request ${f(two.pg / one.pg, 2)}x. Against one process sent what each of the two gets (half the rate): ${f(twoOverHalf, 2)}x ` +
        `(one process's own CPU per request at half the rate: ${f(half.server / one.server, 2)}x its CPU at the full rate). ` +
        `Prepared statements off (\`DATABASE_PREPARE=off\`, for a transaction-mode pooler): server CPU per request ${f(noprep.server / one.server, 2)}x, ` +
        `PostgreSQL CPU per request ${f(noprep.pg / one.pg, 2)}x, both together ${f((noprep.server + noprep.pg) / (one.server + one.pg), 2)}x those with them on.`,
      '',
      '**The control: the raw baseline, one process against two.** The same comparison (same rate, rounds and proxy) for the raw baseline (bench/raw-server.ts: bare Fastify and postgres.js ' +
        "running the SQL the REST list runs, none of the app's code), over the requests it has, beside the app's figures for the same requests in the same run. " +
        'Nothing can pass between two raw processes, so its ratio is what a second process costs on this machine whatever the code.',
      '',
      '| request | raw one: server CPU | raw two: server CPU | raw two/one | app one: server CPU | app two: server CPU | app two/one |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...rawRows,
      `| **these requests** | ${f(raw.one.server, 2)} | ${f(raw.two.server, 2)} | ${f(raw.two.server / raw.one.server, 2)} | ${f(app.one.server, 2)} | ${f(app.two.server, 2)} | ${f(app.two.server / app.one.server, 2)} |`,
      '',
      `Two processes against one, server CPU per request over these requests: the raw baseline ${f(raw.two.server / raw.one.server, 2)}x, the app ${f(app.two.server / app.one.server, 2)}x ` +
        `(the app's rise over the baseline's: ${f(app.two.server / app.one.server / (raw.two.server / raw.one.server), 2)}x).`,
    ].join('\n');
    console.log(`\n${body}\n`);
    writeDocsSection(ctx.docs, ctx.docsHeader, { heading: '## Several instances: one process against two', name: `instances N=${o.campaigns}` }, body);
    console.log('Wrote the instances results to docs/benchmarks.md.');
    if (totals.one.bad || totals.two.bad || totals.noprep.bad || totals.half.bad || rawBad) process.exitCode = 1;
  } finally {
    await Promise.all(proxies.map((p) => p.close()));
    for (const server of [a, b, c, ...raws]) await tools.stopChild(server.child);
  }
}
