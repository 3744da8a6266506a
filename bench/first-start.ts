import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { writeDocsSection } from './docs-section';
import { freePort } from '../test/free-port';

/**
 * The first-start part of `npm run bench` (`--only first-start`, bench/run.ts; no database
 * needed): how long `npm start` takes to answer its first page on a fresh clone of the committed
 * project, the embedded database and all (issue #31: at most 10 s after `npm install`). The clone
 * (`git clone` of HEAD) shares this checkout's node_modules by a link, which is what `npm install`
 * would put there. Three cases, RUNS times each: a fresh clone (no dist/, no data/), the build
 * kept but a new data directory, and a restart on the same data. Measured from spawning
 * `npm start` to the first 200 on `/`: the wall time, the CPU time of every process of the start
 * (npm, the launcher, esbuild, the client's build, the server: read from /proc every 50 ms, so a
 * process's last 50 ms may be missed) and the server's resident memory a second after.
 */

const RUNS = 3;
/** Polls of `/` 50 ms apart before a start counts as failed: far above any start's length. */
const MAX_POLLS = 2400;

interface Sample {
  wallS: number;
  cpuS: number;
  rssMb: number;
}

function status(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/** utime + stime (ticks) and RSS (pages) of each live process in process group `pgid`. */
function groupProcesses(pgid: number): Map<number, { ticks: number; rssPages: number; cmd: string }> {
  const out = new Map<number, { ticks: number; rssPages: number; cmd: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    // fields[0] is the state (stat's third field): pgrp is the fifth, utime the 14th, rss the 24th
    if (Number(fields[2]) !== pgid) continue;
    out.set(Number(entry), { ticks: Number(fields[11]) + Number(fields[12]), rssPages: Number(fields[21]), cmd: stat.slice(stat.indexOf('(') + 1, close) });
  }
  return out;
}

async function startOnce(clone: string, ticksPerSecond: number): Promise<Sample> {
  const port = await freePort();
  const began = process.hrtime.bigint();
  const child = spawn('npm', ['start'], {
    cwd: clone,
    detached: true,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  const pgid = child.pid as number;
  const most = new Map<number, number>();
  const sample = () => {
    for (const [pid, p] of groupProcesses(pgid)) most.set(pid, Math.max(most.get(pid) ?? 0, p.ticks));
  };
  try {
    let answered = false;
    for (let i = 0; i < MAX_POLLS && child.exitCode === null; i++) {
      sample();
      if ((await status(port)) === 200) {
        answered = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const wallS = Number(process.hrtime.bigint() - began) / 1e9;
    sample();
    if (!answered) throw new Error(`npm start did not answer its first page:\n${output}`);
    const cpuS = [...most.values()].reduce((a, b) => a + b, 0) / ticksPerSecond;
    await new Promise((r) => setTimeout(r, 1000));
    const pageBytes = Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }));
    const rssMb = Math.max(...[...groupProcesses(pgid).values()].filter((p) => p.cmd === 'node').map((p) => (p.rssPages * pageBytes) / 2 ** 20), 0);
    return { wallS, cpuS, rssMb };
  } finally {
    try {
      process.kill(-pgid, 'SIGTERM');
    } catch {}
    await exited;
    // the server leaves with its drain: wait until nothing of the group is left
    for (let i = 0; i < MAX_POLLS && groupProcesses(pgid).size > 0; i++) await new Promise((r) => setTimeout(r, 50));
  }
}

export interface FirstStartContext {
  root: string;
  docs: string;
  docsHeader: string;
}

export async function benchFirstStart(ctx: FirstStartContext): Promise<void> {
  const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kindling-bench-start-'));
  const clone = path.join(dir, 'clone');
  try {
    execFileSync('git', ['clone', '--quiet', ctx.root, clone]);
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: clone, encoding: 'utf8' }).trim();
    symlinkSync(path.join(ctx.root, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
    const load = os.loadavg()[0];
    const cases: { name: string; before: () => void; samples: Sample[] }[] = [
      {
        name: 'fresh clone (no dist/, no data/)',
        before: () => {
          for (const d of ['dist', 'data']) rmSync(path.join(clone, d), { recursive: true, force: true });
        },
        samples: [],
      },
      { name: 'built, new data directory', before: () => rmSync(path.join(clone, 'data'), { recursive: true, force: true }), samples: [] },
      { name: 'restart (same data)', before: () => {}, samples: [] },
    ];
    // each case's runs in turn with the others', so that a slow minute touches all three alike
    for (let run = 0; run < RUNS; run++) {
      for (const c of cases) {
        c.before();
        if (c.name.startsWith('built') && !existsSync(path.join(clone, 'dist', 'client', 'index.html'))) throw new Error('no build to keep');
        const s = await startOnce(clone, ticksPerSecond);
        c.samples.push(s);
        console.log(`first start, ${c.name}: ${s.wallS.toFixed(1)} s, CPU ${s.cpuS.toFixed(1)} s, RSS ${s.rssMb.toFixed(0)} MB`);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const fmt = (xs: number[], digits: number) => xs.map((x) => x.toFixed(digits)).join(' / ');
    const rows = cases.map(
      (c) =>
        `| ${c.name} | ${median(c.samples.map((s) => s.wallS)).toFixed(1)} | ${fmt(
          c.samples.map((s) => s.wallS),
          1,
        )} | ${median(c.samples.map((s) => s.cpuS)).toFixed(1)} | ${median(c.samples.map((s) => s.rssMb)).toFixed(0)} |`,
    );
    const fresh = median(cases[0].samples.map((s) => s.wallS));
    const body = [
      `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ` +
        `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory; Node ${process.version}; commit ${commit}; load average ${load.toFixed(2)} at the start.`,
      '',
      `\`npm start\` in a clone of the commit (its node_modules a link to this checkout's, which is what \`npm install\` puts there), ${RUNS} runs of each case, the cases in turn; from spawning \`npm start\` to the first 200 on \`/\`. CPU: every process of the start (npm, the launcher, esbuild, the client's build, the server), read from /proc every 50 ms. RSS: the largest node process a second after the first page.`,
      '',
      '| case | median s | runs s | median CPU s | median RSS MB |',
      '|---|---:|---:|---:|---:|',
      ...rows,
      '',
      `Target (issue #31): a fresh clone's first page within 10 s of \`npm install\`: ${fresh.toFixed(1)} s (${fresh <= 10 ? 'met' : '**missed**'} on this machine, this run).`,
    ].join('\n');
    writeDocsSection(ctx.docs, ctx.docsHeader, { heading: '## The first start: npm start on a fresh clone', name: 'first-start' }, body);
    console.log(body);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
