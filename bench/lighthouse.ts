import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { type Result as LighthouseResult } from 'lighthouse';
import postgres from 'postgres';
import { ensureClientBuilt } from '../src/server/build-client';
import { freePort } from '../test/free-port';

/**
 * `npm run lighthouse [-- --runs 3] [--reports DIR] [--only TEXT]`
 *
 * Lighthouse (mobile preset: a mid-range phone on a slow 4G connection, simulated) against a
 * freshly started production server (src/server/main.ts, NODE_ENV=production) on a freshly
 * seeded database (`npm run seed`'s demo), signed out, with the machine's Chromium
 * (CHROMIUM_PATH, else /usr/bin/chromium). It measures /, /campaigns, a campaign's page and
 * /login, prints a table (Performance, Accessibility, Best Practices, SEO, LCP, CLS) and writes
 * it into docs/benchmarks.md (its own section, replaced on each run). With --runs N each page is
 * measured N times and the run with the median Performance score is kept; --reports DIR also
 * saves each run's full Lighthouse report (JSON, to open in the Lighthouse viewer) there; --only
 * TEXT measures only the pages whose name contains TEXT (say `dashboard`) and leaves the docs as
 * they are (their table is of every page).
 *
 * The database is a fresh `kindling_lighthouse` on LIGHTHOUSE_DATABASE_URL (else
 * TEST_DATABASE_URL, else DATABASE_URL), dropped at the end; without any of them, PGlite in a
 * temporary DATA_DIR. Everything it starts is stopped at the end and on error. Not part of
 * `npm test`: a run takes a few minutes and its numbers depend on the machine.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = path.join(ROOT, 'docs', 'benchmarks.md');
const DB_NAME = 'kindling_lighthouse';
const START = '<!-- results lighthouse -->';
const END = '<!-- /results lighthouse -->';
const HEADING = '## Lighthouse: first visit on a phone';
const CHROME_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

interface Measured {
  page: string;
  url: string;
  scores: Record<(typeof CATEGORIES)[number], number>;
  lcpMs: number;
  cls: number;
  tbtMs: number;
  /** Lighthouse's measure of the machine's CPU at the time (a typical desktop scores 1000 or more). */
  benchmarkIndex: number;
  /** The failing audits of the non-performance categories, to say what costs the points. */
  failing: string[];
}

function flag(argv: string[], name: string): string | undefined {
  const i = argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  const raw = argv[i].includes('=') ? argv[i].slice(name.length + 1) : argv[i + 1];
  if (!raw) throw new Error(`${name} needs a value`);
  return raw;
}

function parseRuns(argv: string[]): number {
  const raw = flag(argv, '--runs');
  if (raw === undefined) return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 9) throw new Error(`--runs needs a whole number from 1 to 9, got ${JSON.stringify(raw)}`);
  return n;
}

const tsx = path.join(ROOT, 'node_modules', '.bin', 'tsx');

async function waitForServer(base: string, server: ChildProcess): Promise<void> {
  // bounded by attempts: a server that never answers stops the run with its own output
  for (let attempt = 0; attempt < 600; attempt++) {
    if (server.exitCode !== null) throw new Error(`the server exited with code ${server.exitCode}`);
    try {
      const res = await fetch(`${base}/api/campaigns?limit=1`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the server did not answer');
}

function gitCommit(): string {
  try {
    const hash = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'public', 'index.html', 'vite.config.ts'], { cwd: ROOT, encoding: 'utf8' }).trim();
    return dirty ? `${hash} with uncommitted changes` : hash;
  } catch {
    return 'unknown';
  }
}

function chromiumVersion(chromePath: string): string {
  try {
    return execFileSync(chromePath, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return chromePath;
  }
}

async function measure(port: number, page: string, url: string, saveTo?: string, cookie?: string): Promise<Measured> {
  // the default configuration is the mobile preset (formFactor mobile, simulated slow 4G and CPU)
  // a trace that Chromium failed to record (NO_NAVSTART and the like) is Lighthouse's to retry:
  // up to 3 attempts
  for (let attempt = 1; ; attempt++) {
    const result = await lighthouse(url, {
      port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: [...CATEGORIES],
      ...(cookie ? { extraHeaders: { Cookie: cookie } } : {}),
    });
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const { lhr } = result;
    if (lhr.runtimeError && attempt < 3) {
      console.log(`  Lighthouse could not measure it (${lhr.runtimeError.code}); again...`);
      continue;
    }
    if (lhr.runtimeError) throw new Error(`Lighthouse could not measure ${url}: ${lhr.runtimeError.message}`);
    if (saveTo) writeFileSync(saveTo, typeof result.report === 'string' ? result.report : result.report.join('\n'));
    return summary(page, url, lhr);
  }
}

function summary(page: string, url: string, lhr: LighthouseResult): Measured {
  const score = (c: string) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
  const failing = new Set<string>();
  for (const c of CATEGORIES) {
    for (const ref of lhr.categories[c]?.auditRefs ?? []) {
      const audit = lhr.audits[ref.id];
      if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1 && c !== 'performance') failing.add(`${c}: ${ref.id}`);
    }
  }
  return {
    page,
    url,
    scores: Object.fromEntries(CATEGORIES.map((c) => [c, score(c)])) as Measured['scores'],
    lcpMs: lhr.audits['largest-contentful-paint']?.numericValue ?? NaN,
    cls: lhr.audits['cumulative-layout-shift']?.numericValue ?? NaN,
    tbtMs: lhr.audits['total-blocking-time']?.numericValue ?? NaN,
    benchmarkIndex: lhr.environment.benchmarkIndex,
    failing: [...failing],
  };
}

function table(rows: Measured[]): string {
  const lines = [
    '| page | Performance | Accessibility | Best Practices | SEO | LCP | CLS | TBT | CPU index |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.page} | ${r.scores.performance} | ${r.scores.accessibility} | ${r.scores['best-practices']} | ${r.scores.seo} | ${(r.lcpMs / 1000).toFixed(1)} s | ${r.cls.toFixed(3)} | ${Math.round(r.tbtMs)} ms | ${Math.round(r.benchmarkIndex)} |`,
    ),
  ];
  return lines.join('\n');
}

function writeDocs(body: string) {
  let doc = readFileSync(DOCS, 'utf8');
  const section = `${START}\n${body.trim()}\n${END}`;
  const i = doc.indexOf(START);
  const j = doc.indexOf(END);
  if (i >= 0 && j > i) doc = doc.slice(0, i) + section + doc.slice(j + END.length);
  else doc = `${doc.trimEnd()}\n\n${HEADING}\n\n${section}\n`;
  writeFileSync(DOCS, doc);
}

async function main() {
  const runs = parseRuns(process.argv.slice(2));
  const loadBefore = os.loadavg()[0].toFixed(1);
  const reportsFlag = flag(process.argv.slice(2), '--reports');
  const reports = reportsFlag ? path.resolve(reportsFlag) : undefined;
  if (reports) mkdirSync(reports, { recursive: true });
  const chromePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromePath)) throw new Error(`No Chromium at ${chromePath}: install it (apt-get install chromium) or set CHROMIUM_PATH.`);

  const cleanups: (() => Promise<void> | void)[] = [];
  const cleanUp = async () => {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch((e) => console.error('cleanup:', e instanceof Error ? e.message : e));
    cleanups.length = 0;
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanUp().then(() => process.exit(130)));

  try {
    console.log('Building the client...');
    await ensureClientBuilt(true);

    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kindling-lighthouse-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const serverUrl = process.env.LIGHTHOUSE_DATABASE_URL || process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
    let databaseUrl: string | undefined;
    if (serverUrl) {
      const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
      cleanups.push(() => admin.end());
      await admin.unsafe(`drop database if exists ${DB_NAME} with (force)`);
      await admin.unsafe(`create database ${DB_NAME}`);
      cleanups.push(async () => void (await admin.unsafe(`drop database if exists ${DB_NAME} with (force)`)));
      const u = new URL(serverUrl);
      u.pathname = `/${DB_NAME}`;
      databaseUrl = u.toString();
    }
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      APP_URL: base,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? '',
      SECRETS_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'warn',
      JOBS: 'off',
    };
    delete env.TEST_DATABASE_URL;

    console.log(`Seeding ${databaseUrl ? `the database ${DB_NAME}` : 'a PGlite database'}...`);
    const seeded = execFileSync(tsx, ['src/server/cli/seed.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
    // the regular person's account (its password is random per seed): the dashboard is measured signed in as them
    const person = /Sign in as a regular user: (\S+) \/ (\S+)/.exec(seeded);
    if (!person) throw new Error('the seed did not print the regular person’s account');

    console.log('Starting the production server...');
    const server = spawn(tsx, ['src/server/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          if (server.exitCode !== null) return resolve();
          server.once('exit', () => resolve());
          server.kill('SIGTERM');
        }),
    );
    await waitForServer(base, server);
    const list = (await (await fetch(`${base}/api/campaigns?limit=1`)).json()) as { items: { _id: string }[] };
    const campaignId = list.items[0]?._id;
    if (!campaignId) throw new Error('the seeded database has no campaign');

    // the dashboard of one of the person's own campaigns, with their session (the cookie the login sets)
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ email: person[1], password: person[2] }),
    });
    const signedIn = (await login.json()) as { token?: string; user?: { _id: string } };
    if (!signedIn.token || !signedIn.user) throw new Error(`the seeded person could not sign in (${login.status})`);
    const theirs = (await (await fetch(`${base}/api/public/users/${signedIn.user._id}/campaigns?limit=1`)).json()) as { items: { _id: string }[] };
    const ownCampaign = theirs.items[0]?._id;
    if (!ownCampaign) throw new Error('the seeded person owns no campaign');
    const session = `session=${signedIn.token}`;

    const chrome = await chromeLauncher.launch({ chromePath, chromeFlags: CHROME_FLAGS, logLevel: 'error' });
    cleanups.push(() => chrome.kill());

    const pages: [string, string, string?][] = [
      ['/', `${base}/`],
      ['/campaigns', `${base}/campaigns`],
      ['/campaigns/:id', `${base}/campaigns/${campaignId}`],
      ['/login', `${base}/login`],
      ['/campaigns/:id/dashboard (signed in)', `${base}/campaigns/${ownCampaign}/dashboard`, session],
    ];
    const only = flag(process.argv.slice(2), '--only');
    const rows: Measured[] = [];
    for (const [page, url, cookie] of pages.filter(([name]) => only === undefined || name.includes(only))) {
      const tries: Measured[] = [];
      for (let r = 0; r < runs; r++) {
        console.log(`Measuring ${page}${runs > 1 ? ` (run ${r + 1} of ${runs})` : ''}...`);
        const name = `${page.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'home'}-${r + 1}.json`;
        tries.push(await measure(chrome.port, page, url, reports && path.join(reports, name), cookie));
      }
      tries.sort((a, b) => a.scores.performance - b.scores.performance);
      rows.push(tries[Math.floor(tries.length / 2)]);
    }

    const lhVersion = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', 'lighthouse', 'package.json'), 'utf8')).version as string;
    const failing = [...new Set(rows.flatMap((r) => r.failing.map((f) => `${f} (${r.page})`)))];
    const body = [
      `Measured ${new Date().toISOString().slice(0, 10)} at commit ${gitCommit()} by \`npm run lighthouse\` (bench/lighthouse.ts):`,
      `Lighthouse ${lhVersion}, mobile preset (simulated slow 4G and a 4x slower CPU), signed out but for the dashboard (a seeded person's session), ${chromiumVersion(chromePath)} headless,`,
      `a production server (\`npm start\`, NODE_ENV=production) on ${databaseUrl ? 'PostgreSQL' : 'PGlite'} seeded by \`npm run seed\`,`,
      `on a shared 2-core machine; ${runs > 1 ? `the median of ${runs} runs by Performance` : 'one run'} per page. Scores out of 100; LCP is the simulated`,
      'Largest Contentful Paint, CLS the Cumulative Layout Shift, TBT the Total Blocking Time (the main',
      "thread's long tasks, scaled by the simulated 4x slower CPU). CPU index is Lighthouse's benchmark of",
      'the machine during that run (a typical desktop scores 1000 or more): TBT, and with it Performance, grows',
      `as it falls. The machine's load average was ${loadBefore} when the run began and ${os.loadavg()[0].toFixed(1)} at its end.`,
      '',
      table(rows),
      '',
      failing.length
        ? `Audits that cost points outside Performance: ${failing.map((f) => `\`${f}\``).join(', ')}.`
        : 'No audit outside Performance cost points.',
    ].join('\n');
    console.log(`\n${table(rows)}\n`);
    if (only === undefined) {
      writeDocs(body);
      console.log(`Wrote the results to ${path.relative(ROOT, DOCS)}.`);
    }
  } finally {
    await cleanUp();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);
