import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { loadConfig, type Config } from '../src/server/config';
import { openPostgres } from '../src/server/db/client';
import type { Actor } from '../src/server/deps';
import { encodeCursor } from '../src/server/lib/listing';
import { createCampaignListQueries } from '../src/server/modules/campaigns/list-queries';
import { ListQuery } from '../src/shared/schemas/campaigns';
import { BIG_COMMENTS, explainComments, findCommentTargets, LONG_REPLIES, seedComments, SMALL_COMMENTS, type CommentTargets } from './comments';
import { benchDonations, HOT_DONATIONS, seedHotCampaign, send, WRITE_CAMPAIGNS } from './donations';
import { writeDocsSection } from './docs-section';
import { benchFirstStart } from './first-start';
import { benchInstances, type ListShape, type RawShape } from './instances';
import { benchPending } from './pending';
import { benchSearch } from './search';
import { benchSorts } from './sorts';
import { benchUploads } from './uploads';
import { VOCABULARY } from './vocabulary';
import { freePort } from '../test/free-port';

/**
 * `npm run bench [-- --campaigns 1000000] [--keep] [--reuse] [--explain] [--duration 10]
 *   [--warmup 2] [--connections 10] [--rate 100] [--images 60]
 *   [--only lists|search|pending|sorts|comments|donations|instances|uploads|first-start|seed]`
 *
 * On a real PostgreSQL server (BENCH_DATABASE_URL, else TEST_DATABASE_URL, else DATABASE_URL):
 * makes a fresh database `kindling_bench`, migrates it, bulk-seeds it with SQL, starts the real
 * server (src/server/main.ts) and a bare postgres.js baseline (bench/raw-server.ts) as child
 * processes, measures the campaign list, search and detail with autocannon, prints a table and
 * writes it into docs/benchmarks.md (the section for this N). The comments part (bench/comments.ts)
 * reads a campaign of 100,000 comments and one of 10 and writes its own section; the donations
 * part (bench/donations.ts) measures donation writes against a bare baseline route and reads of
 * a campaign of 1,000,000 donations, and writes its own section. The instances part
 * (bench/instances.ts) measures the lists part's requests answered by one app process, by two
 * behind one address and by one with prepared statements off; the uploads part (bench/uploads.ts)
 * the time an image takes to upload to local disk and to an S3 bucket; the first-start part
 * (bench/first-start.ts, no database) how long `npm start` takes on a fresh clone. `--only` measures one part
 * alone. Everything it starts is stopped at the end and on error; the database is dropped unless
 * --keep. --reuse takes a kept database with the same N as it is (no seeding, except parts a
 * database kept from before them lacks: the comments, the campaign of 1,000,000 donations).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The bench database (`--database`): `kindling_bench` unless told otherwise, so that two sizes can be kept side by side. */
let BENCH_DB = 'kindling_bench';
const OWNERS = 1000;
const DOCS = path.join(ROOT, 'docs', 'benchmarks.md');

// ---------------------------------------------------------------------------------------------
// options
// ---------------------------------------------------------------------------------------------

export interface Options {
  campaigns: number;
  /** Requests a second of the steady-load run. */
  rate: number;
  keep: boolean;
  reuse: boolean;
  explain: boolean;
  duration: number;
  warmup: number;
  connections: number;
  /** Measure only one part (all by default); `seed` seeds (or migrates a reused database) and stops. */
  only: 'all' | 'lists' | 'search' | 'pending' | 'sorts' | 'comments' | 'donations' | 'instances' | 'uploads' | 'first-start' | 'seed';
  /** Images the uploads part sends per storage, one at a time and again two at a time. */
  images: number;
  /** Steady rates of the search part: one word, and pairs and triples (`--search-rate 50`, or `10,5`). */
  searchRate: { words: number; combos: number } | null;
  /** The database's name on the server. */
  database: string;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    campaigns: 100_000,
    rate: 100,
    keep: false,
    reuse: false,
    explain: false,
    duration: 10,
    warmup: 2,
    connections: 10,
    only: 'all',
    searchRate: null,
    database: 'kindling_bench',
    images: 60,
  };
  const num = (flag: string, v: string | undefined) => {
    const n = Number((v ?? '').replace(/[_,]/g, ''));
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} needs a positive number, got ${JSON.stringify(v)}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2) as [string, string | undefined];
    const value = () => inline ?? argv[++i];
    switch (flag) {
      case '--campaigns':
        o.campaigns = Math.round(num(flag, value()));
        break;
      case '--duration':
        o.duration = num(flag, value());
        break;
      case '--warmup':
        o.warmup = num(flag, value());
        break;
      case '--rate':
        o.rate = Math.round(num(flag, value()));
        break;
      case '--images':
        o.images = Math.round(num(flag, value()));
        break;
      case '--connections':
        o.connections = Math.round(num(flag, value()));
        break;
      case '--keep':
        o.keep = true;
        break;
      case '--reuse':
        o.reuse = true;
        o.keep = true;
        break;
      case '--explain':
        o.explain = true;
        break;
      case '--only': {
        const v = value();
        if (
          v !== 'lists' &&
          v !== 'search' &&
          v !== 'sorts' &&
          v !== 'comments' &&
          v !== 'donations' &&
          v !== 'instances' &&
          v !== 'uploads' &&
          v !== 'first-start' &&
          v !== 'pending' &&
          v !== 'seed'
        )
          throw new Error(`--only takes lists, search, pending, sorts, comments, donations, instances, uploads, first-start or seed, got ${JSON.stringify(v)}`);
        o.only = v;
        if (v === 'seed') o.keep = true;
        break;
      }
      case '--search-rate': {
        const [w, c] = (value() ?? '').split(',');
        o.searchRate = { words: Math.round(num(flag, w)), combos: Math.round(num(flag, c ?? w)) };
        break;
      }
      case '--database': {
        const v = value() ?? '';
        if (!/^[a-z_][a-z0-9_]{0,62}$/.test(v)) throw new Error(`--database takes a plain lower-case name, got ${JSON.stringify(v)}`);
        o.database = v;
        break;
      }
      default:
        throw new Error(`unknown option ${argv[i]} (see the comment at the top of bench/run.ts)`);
    }
  }
  return o;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// ---------------------------------------------------------------------------------------------
// child processes: started in their own process group, stopped as a group
// ---------------------------------------------------------------------------------------------

export interface Child {
  name: string;
  proc: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}
const children: Child[] = [];

function startChild(name: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const proc = spawn('npx', args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (output.length > 200) output.shift();
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const child = { name, proc, output, exited };
  children.push(child);
  return child;
}

async function stopChild(c: Child): Promise<void> {
  const group = -c.proc.pid!;
  const alive = () => {
    try {
      process.kill(group, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  try {
    process.kill(group, 'SIGTERM');
  } catch {
    return;
  }
  // npx -> tsx -> node: wait for the whole group to shut down gracefully, then force it
  for (let i = 0; i < 80 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive()) {
    try {
      process.kill(group, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

async function waitForHttp(child: Child, url: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  let exited = false;
  void child.exited.then(() => (exited = true));
  while (Date.now() < until) {
    if (exited) throw new Error(`${child.name} exited before answering:\n${child.output.join('').slice(-4000)}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${child.name} did not answer ${url} within ${timeoutMs / 1000} s:\n${child.output.join('').slice(-4000)}`);
}

// ---------------------------------------------------------------------------------------------
// seeding
// ---------------------------------------------------------------------------------------------

const CATEGORIES_BUT_ADULT = ['art', 'code', 'literature', 'other', 'music', 'photography', 'film', 'design', 'game', 'podcast', 'research'];

/** Campaigns number `from`..`to` in one statement (the triggers keep list_counts and tag_usage). */
async function insertCampaigns(sql: postgres.Sql, from: number, to: number): Promise<void> {
  const vocab = VOCABULARY;
  await sql`
    with o as (select array_agg(id order by id) as ids from users)
    insert into campaigns (owner_id, title, description, tags, type, target_type, goal_amount, currency,
                           image_url, images, action_mode, execution_date, created_at, updated_at)
    select
      o.ids[1 + floor(power(r_owner, 2) * array_length(o.ids, 1))::int],
      initcap(bench_words(${vocab}, 3 + floor(random() * 4)::int)),
      bench_words(${vocab}, 10 + floor(random() * 16)::int) || '.',
      bench_tags(${vocab}, 2 + floor(random() * 3)::int),
      (case when r_type < 0.02 then 'adult' else (${CATEGORIES_BUT_ADULT}::text[])[1 + floor(random() * ${CATEGORIES_BUT_ADULT.length})::int] end)::category,
      (case when r_target < 0.15 then 'supporters' else 'amount' end)::target_type,
      case when r_target < 0.15 then 10 + floor(random() * 490)::bigint
           else (round(exp(ln(100) + random() * ln(1000))) * 100)::bigint end,
      (case when r_cur < 0.6 then 'USD' when r_cur < 0.85 then 'EUR' else 'GBP' end)::currency,
      '/uploads/cover/' || gen_random_uuid() || '.webp',
      case when random() < 0.5
        then jsonb_build_array(jsonb_build_object('url', '/uploads/gallery/' || gen_random_uuid() || '.webp', 'alt', 'Gallery picture'))
        else jsonb_build_array(jsonb_build_object('url', '/uploads/gallery/' || gen_random_uuid() || '.webp', 'alt', 'Gallery picture'),
                               jsonb_build_object('url', '/uploads/gallery/' || gen_random_uuid() || '.webp', 'alt', 'Another picture')) end,
      (case when r_mode < 0.5 then 'donation' when r_mode < 0.7 then 'support' else 'both' end)::action_mode,
      case when r_exec < 0.4 then created + random() * interval '150 days' end,
      created, created
    from (select g, random() as r_owner, random() as r_type, random() as r_target, random() as r_cur, random() as r_mode,
                 random() as r_exec, now() - random() * interval '1095 days' as created
          from generate_series(${from}::int, ${to}::int) g) s, o`;
}

/** Bulk-seeds the migrated bench database with SQL; returns the time of each phase. */
async function seed(sql: postgres.Sql, n: number): Promise<Record<string, number>> {
  const times: Record<string, number> = {};
  const phase = async (name: string, fn: () => Promise<unknown>) => {
    const t = Date.now();
    process.stdout.write(`  ${name}...`);
    await fn();
    times[name] = Date.now() - t;
    process.stdout.write(` ${secs(times[name])}\n`);
  };
  const vocab = VOCABULARY;

  // word k of the vocabulary is drawn with probability ln((k+1)/k) / ln(V+1), i.e. ~1/k (Zipf)
  await sql.unsafe(`
    create function bench_words(w text[], n int) returns text language sql volatile as $$
      select string_agg(w[least(array_length(w, 1), floor(exp(random() * ln(array_length(w, 1) + 1)))::int)], ' ')
      from generate_series(1, n)
    $$`);
  await sql.unsafe(`
    create function bench_tags(w text[], n int) returns text[] language sql volatile as $$
      select array_agg(distinct w[least(array_length(w, 1), floor(exp(random() * ln(array_length(w, 1) + 1)))::int)])
      from generate_series(1, n)
    $$`);

  await phase(
    `${OWNERS} owners`,
    () => sql`
    insert into users (email, username, name, tags, password_hash, image_url, email_verified_at, created_at, updated_at)
    select 'owner' || g || '@bench.example.com', 'owner' || g, initcap(bench_words(${vocab}, 2)), bench_tags(${vocab}, 3),
           'not-a-password-hash', '/uploads/avatar/' || gen_random_uuid() || '.jpg', now(), ts, ts
    from (select g, now() - random() * interval '1500 days' as ts from generate_series(1, ${OWNERS}) g) s`,
  );

  // bulk load: the secondary indexes are dropped and built again afterwards, as the migrations define them
  const indexes = await sql<{ name: string; def: string }[]>`
    select indexname as name, indexdef as def from pg_indexes
    where schemaname = 'public' and tablename = 'campaigns'
      and indexname not in (select conname from pg_constraint where conrelid = 'campaigns'::regclass)`;
  for (const i of indexes) await sql.unsafe(`drop index ${i.name}`);
  const chunk = 50_000;
  await phase(`${n.toLocaleString('en-US')} campaigns`, async () => {
    const ranges: [number, number][] = [];
    for (let from = 1; from <= n; from += chunk) ranges.push([from, Math.min(n, from + chunk - 1)]);
    let done = 0;
    // two statements at a time, one per connection: to_tsvector for the generated column dominates
    await Promise.all(
      [0, 1].map(async () => {
        for (let r = ranges.shift(); r; r = ranges.shift()) {
          await insertCampaigns(sql, r[0], r[1]);
          done += r[1] - r[0] + 1;
          if (n > chunk) process.stdout.write(` ${Math.round((100 * done) / n)}%`);
        }
      }),
    );
  });

  await phase(`rebuild ${indexes.length} campaign indexes`, async () => {
    // two at a time: a 2-core machine builds the GIN indexes in parallel
    const queue = [...indexes];
    await Promise.all(
      [0, 1].map(async () => {
        for (let i = queue.shift(); i; i = queue.shift()) await sql.unsafe(i.def);
      }),
    );
  });
  // the sort keys' row triggers would update a campaign's row of campaign_sort_keys once per support
  // and per donation (about a million updates at 1,000,000 campaigns, twice the table's size in dead
  // rows and index entries): off while seeding, the keys computed in bulk after, as the triggers keep them
  await sql.unsafe(`alter table supports disable trigger supports_sort_keys; alter table campaign_totals disable trigger campaign_totals_sort_keys`);
  await phase(
    'supports',
    () => sql`
    with o as (select array_agg(id order by id) as ids from users)
    insert into supports (campaign_id, user_id, confirmed_at, created_at)
    select c.id, o.ids[1 + ((c.start + j * 7) % array_length(o.ids, 1))], c.created_at + interval '1 day', c.created_at + interval '1 day'
    from (select id, created_at, 1 + floor(random() * 15)::int as k, floor(random() * ${OWNERS})::int as start
          from campaigns where action_mode <> 'donation' and random() < 0.2) c
    cross join lateral generate_series(1, c.k) j, o`,
  );

  // donations with their ledger groups: provider -x, campaign +x in the campaign's currency (balanced; the
  // deferred trigger checks every group at commit)
  await phase(
    'donations + ledger',
    () => sql`
    with o as (select array_agg(id order by id) as ids from users),
    d as (
      insert into donations (campaign_id, donor_id, donor_email, amount, currency, status, provider, provider_ref,
                             idempotency_key, request_hash, succeeded_at, created_at, updated_at)
      select c.id,
             case when r_guest < 0.8 then o.ids[1 + floor(random() * array_length(o.ids, 1))::int] end,
             case when r_guest >= 0.8 then 'guest' || floor(random() * 100000)::int || '@bench.example.com' end,
             (round(exp(ln(5) + random() * ln(100))) * 100)::bigint, c.currency, 'succeeded', 'sandbox',
             'bench-' || gen_random_uuid(), gen_random_uuid()::text, 'bench', c.ts, c.ts, c.ts
      from (select c.id, c.currency, random() as r_guest,
                   least(now(), c.created_at + random() * interval '30 days') as ts
            from campaigns c cross join lateral generate_series(1, 1 + floor(random() * 6)::int + 0 * length(c.title)) j
            where c.action_mode <> 'support' and c.id in (select id from campaigns where random() < 0.08)) c, o
      returning id, campaign_id, amount, currency, created_at
    ),
    g as (
      insert into ledger_groups (kind, donation_id, created_at)
      select 'donation', d.id, d.created_at from d
      returning id, donation_id
    )
    insert into ledger_entries (group_id, account_type, account_id, amount, currency, created_at)
    select g.id, x.account_type, x.account_id, x.amount, d.currency, d.created_at
    from g join d on d.id = g.donation_id
    cross join lateral (values ('provider'::ledger_account_type, 'sandbox', -d.amount),
                               ('campaign'::ledger_account_type, d.campaign_id::text, d.amount)) x(account_type, account_id, amount)`,
  );

  await phase('sort keys', async () => {
    await sql.unsafe(`alter table supports enable trigger supports_sort_keys; alter table campaign_totals enable trigger campaign_totals_sort_keys`);
    await sql`
      update campaign_sort_keys k set supporters = s.n
      from (select campaign_id, count(*) as n from supports where confirmed_at is not null group by campaign_id) s
      where k.campaign_id = s.campaign_id`;
    await sql`
      update campaign_sort_keys k set raised = t.raised
      from (select t.campaign_id, sum(t.raised - t.refunded - t.charged_back) as raised
            from campaign_totals t join campaigns c on c.id = t.campaign_id and c.currency = t.currency
            group by t.campaign_id) t
      where k.campaign_id = t.campaign_id and t.raised <> 0`;
  });
  await sql.unsafe(`drop function bench_words(text[], int); drop function bench_tags(text[], int)`);
  await phase(`comments (${BIG_COMMENTS.toLocaleString('en-US')} on one campaign, ${SMALL_COMMENTS} on another, a few elsewhere)`, () =>
    seedComments(sql, vocab),
  );
  await phase('vacuum analyze', () => sql.unsafe(`vacuum (analyze)`));
  return times;
}

// ---------------------------------------------------------------------------------------------
// measuring
// ---------------------------------------------------------------------------------------------

export interface Scenario {
  key: string;
  label: string;
  url: string;
  /** Several paths to rotate through (detail of many campaigns). */
  paths?: string[];
  /** Each request made anew (a write: method, path, headers and body); `url` gives the server. */
  request?: () => { method: 'POST'; path: string; headers: Record<string, string>; body: string };
  /** Which server answers: its process group and its PostgreSQL application_name. */
  server: 'app' | 'raw';
  /** Also measured with one connection (latency without queueing) and at the steady rate. */
  single?: boolean;
  /** Only in the one-connection and steady-rate runs. */
  latencyOnly?: boolean;
  /** Where the turn through `paths` is. */
  next?: number;
}

export interface Measured {
  key: string;
  label: string;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  requests: number;
  /** Answers other than 2xx and connection errors; timeouts (no answer within 10 s) are counted apart. */
  bad: number;
  timeouts: number;
  /** CPU time per request of the answering server's processes and of its PostgreSQL backends (ms). */
  serverCpu: number;
  pgCpu: number;
  /** CPU used meanwhile by processes that are not part of the benchmark, in cores. */
  otherLoad: number;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

// --- CPU accounting from /proc (Linux): the servers' process groups, the PostgreSQL backends of
// the bench database by application_name, this process (autocannon runs here), and the rest.

const HAS_PROC = existsSync('/proc/stat');
const TICKS_PER_S = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

function procTicks(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return Number(rest[11]) + Number(rest[12]); // utime + stime
  } catch {
    return 0;
  }
}

/** Busy ticks of the process group (the child and everything it started). */
function groupTicks(pgid: number): number {
  let sum = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
      if (Number(rest[2]) === pgid) sum += Number(rest[11]) + Number(rest[12]);
    } catch {
      // gone meanwhile
    }
  }
  return sum;
}

function systemBusyTicks(): number {
  const [cpu] = readFileSync('/proc/stat', 'utf8').split('\n');
  const v = cpu.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  return v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] ?? 0);
}

export interface CpuSnapshot {
  at: number;
  busy: number;
  app: number;
  raw: number;
  pgApp: number;
  pgRaw: number;
  pgOther: number;
  self: number;
}

export interface CpuMeter {
  snapshot(): Promise<CpuSnapshot>;
}

/**
 * `app` counts the process groups `appPgids` and `pgApp` the backends named `appNames` (several
 * when several app processes answer, as in the instances part); `raw` the baseline's.
 */
function cpuMeter(probe: postgres.Sql, appPgids: number | number[], rawPgid: number, appNames: string[] = ['kindling-bench-app']): CpuMeter {
  const pgids = typeof appPgids === 'number' ? [appPgids] : appPgids;
  return {
    async snapshot() {
      const backends = await probe<{ pid: number; app: string }[]>`
        select pid, application_name as app from pg_stat_activity where datname = ${BENCH_DB}`;
      const sum = (f: (a: string) => boolean) => backends.filter((b) => f(b.app)).reduce((s, b) => s + procTicks(b.pid), 0);
      const self = process.cpuUsage();
      return {
        at: performance.now(),
        busy: HAS_PROC ? systemBusyTicks() : 0,
        app: HAS_PROC ? pgids.reduce((s, g) => s + groupTicks(g), 0) : 0,
        raw: HAS_PROC ? groupTicks(rawPgid) : 0,
        pgApp: sum((a) => appNames.includes(a)),
        pgRaw: sum((a) => a === 'kindling-bench-raw'),
        pgOther: sum((a) => !appNames.includes(a) && a !== 'kindling-bench-raw'),
        self: ((self.user + self.system) / 1e6) * TICKS_PER_S,
      };
    },
  };
}

/** Cores used by everything that is not the benchmark between two snapshots. */
function otherCores(a: CpuSnapshot, b: CpuSnapshot): number {
  const ours = b.app - a.app + (b.raw - a.raw) + (b.pgApp - a.pgApp) + (b.pgRaw - a.pgRaw) + (b.pgOther - a.pgOther) + (b.self - a.self);
  const seconds = (b.at - a.at) / 1000;
  return Math.max(0, (b.busy - a.busy - ours) / TICKS_PER_S / seconds);
}

/** Waits (up to about 15 s) until other processes use less than half a core, so they disturb the numbers less. */
async function waitForQuiet(meter: CpuMeter): Promise<number> {
  if (!HAS_PROC) return 0;
  let load = Infinity;
  for (let i = 0; i < 8; i++) {
    const a = await meter.snapshot();
    await new Promise((r) => setTimeout(r, 1000));
    load = otherCores(a, await meter.snapshot());
    if (load < 0.5) return load;
    if (i === 0) process.stdout.write(`(other processes use ${load.toFixed(1)} cores, waiting) `);
  }
  return load;
}

export interface LoadResult {
  samples: number[];
  total: number;
  seconds: number;
  bad: number;
  timeouts: number;
}

function load(s: Scenario, duration: number, connections: number, rate?: number): Promise<LoadResult> {
  return rate ? steadyLoad(s, duration, rate) : closedLoad(s, duration, connections);
}

/** The path of the scenario's next request (one turn through `paths` across all its runs). */
function nextPath(s: Scenario): string {
  if (!s.paths) return new URL(s.url).pathname + new URL(s.url).search;
  s.next = (s.next ?? 0) + 1;
  return s.paths[s.next % s.paths.length];
}

/**
 * Open-loop load: one request every 1/rate seconds, evenly spaced, whether or not earlier ones
 * have been answered (autocannon's own rate limit sends each connection's share in bursts, which
 * measures the bursts). Latency is from sending to the end of the body.
 */
async function steadyLoad(s: Scenario, duration: number, rate: number): Promise<LoadResult> {
  const origin = new URL(s.url).origin;
  const samples: number[] = [];
  let bad = 0;
  let timeouts = 0;
  const inflight: Promise<void>[] = [];
  // node's own client with keep-alive: fetch (undici) spent about four times its CPU per answer,
  // on the cores the server and PostgreSQL share (bench/search.ts)
  const agent = new http.Agent({ keepAlive: true });
  const started = performance.now();
  const count = Math.round(duration * rate);
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const r = s.request?.();
    const path = r?.path ?? nextPath(s);
    inflight.push(
      send(agent, origin, { path, method: r?.method, headers: r?.headers, body: r?.body }).then(
        (res) => {
          samples.push(res.ms);
          if (res.status < 200 || res.status >= 300) bad++;
        },
        (err: unknown) => {
          if (err instanceof Error && err.message.startsWith('no answer within')) timeouts++;
          else bad++;
        },
      ),
    );
  }
  await Promise.all(inflight);
  agent.destroy();
  return { samples, total: samples.length, seconds: (performance.now() - started) / 1000, bad, timeouts };
}

function closedLoad(s: Scenario, duration: number, connections: number): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const samples: number[] = [];
    const inst = autocannon(
      {
        url: s.url,
        connections,
        pipelining: 1,
        duration,
        timeout: 10,
        ...(s.request
          ? { requests: [{ setupRequest: (req) => ({ ...req, ...s.request!() }) }] }
          : s.paths
            ? {
                requests: [
                  {
                    setupRequest: (req) => ({ ...req, path: nextPath(s) }),
                  },
                ],
              }
            : {}),
      },
      (err, result) =>
        err
          ? reject(err)
          : resolve({
              samples,
              total: result.requests.total,
              seconds: result.duration || duration,
              bad: result.non2xx + Math.max(0, result.errors - result.timeouts),
              timeouts: result.timeouts,
            }),
    );
    inst.on('response', (_client, _status, _bytes, responseTime) => samples.push(responseTime));
  });
}

async function measure(s: Scenario, meter: CpuMeter, run: { connections: number; duration: number; warmup: number; rate?: number }): Promise<Measured> {
  process.stdout.write(`  ${s.label.padEnd(46)}`);
  await waitForQuiet(meter);
  await load(s, run.warmup, run.connections, run.rate);
  const before = await meter.snapshot();
  const result = await load(s, run.duration, run.connections, run.rate);
  const { samples } = result;
  const after = await meter.snapshot();
  samples.sort((a, b) => a - b);
  const n = Math.max(1, result.total);
  const ms = (ticks: number) => ((ticks / TICKS_PER_S) * 1000) / n;
  const m: Measured = {
    key: s.key,
    label: s.label,
    rps: result.total / result.seconds,
    p50: percentile(samples, 0.5),
    p95: percentile(samples, 0.95),
    p99: percentile(samples, 0.99),
    requests: result.total,
    bad: result.bad,
    timeouts: result.timeouts,
    serverCpu: ms(s.server === 'app' ? after.app - before.app : after.raw - before.raw),
    pgCpu: ms(s.server === 'app' ? after.pgApp - before.pgApp : after.pgRaw - before.pgRaw),
    otherLoad: otherCores(before, after),
  };
  process.stdout.write(
    `${m.rps.toFixed(0).padStart(6)} req/s  p50 ${m.p50.toFixed(1)}  p95 ${m.p95.toFixed(1)}  p99 ${m.p99.toFixed(1)} ms` +
      `  cpu/req ${m.serverCpu.toFixed(2)} + pg ${m.pgCpu.toFixed(2)} ms${m.otherLoad >= 0.3 ? `  (others: ${m.otherLoad.toFixed(1)} cores)` : ''}` +
      `${m.timeouts ? `  (${m.timeouts} timed out)` : ''}${m.bad ? `  (${m.bad} failed!)` : ''}\n`,
  );
  return m;
}

// ---------------------------------------------------------------------------------------------
// report
// ---------------------------------------------------------------------------------------------

const DOCS_HEADER = `# Benchmarks

\`npm run bench\` measures the campaign list, search and detail of the real server
(\`src/server/main.ts\`, production mode, started as a child process) on a real PostgreSQL server.
Each "N campaigns" section below is one run at one size, written by the benchmark; a new run at
the same size replaces its section. Numbers are from one machine and only compare with each
other.

## How a run works (bench/run.ts)

- **Database:** a fresh \`kindling_bench\` on \`BENCH_DATABASE_URL\` (else \`TEST_DATABASE_URL\`,
  else \`DATABASE_URL\`), migrated like the app does, then bulk-seeded with SQL: N campaigns over
  ${OWNERS} owners, every category (about 2 % adult), titles, descriptions and tags drawn from a
  ${VOCABULARY.length}-word vocabulary with Zipf frequencies (word k about 1/k: a few words are in a
  third of the campaigns, the rarest in under 1 %), created over 3 years, about 40 % with an
  execution date; confirmed supports on about 10 % of the campaigns and succeeded donations (with
  balanced ledger groups: provider -x, campaign +x, checked by the ledger triggers) on about 6 %.
  The campaign indexes are built after the load, as the migrations define them. Then
  \`VACUUM ANALYZE\`.
- **Servers:** the app (as \`npm start\` runs it, \`NODE_ENV=production\`, \`LOG_LEVEL=warn\`,
  \`RATE_LIMIT_PER_MINUTE=0\`, its normal pool of 10 connections; for the lists also
  \`CLIENT_CONCURRENCY=0 CLIENT_RATE=0\`, since their ten connections stand for ten clients but come from one
  address; the comments part times its reads with \`CLIENT_RATE=0\` too and the list under readers
  with the per-address limits as configured) and a baseline
  (\`bench/raw-server.ts\`): bare Fastify + postgres.js running *exactly* the statements the REST
  list runs for the same request, the same way (taken from the service's own list queries,
  \`createCampaignListQueries(db).statements(...)\` after one request through them: over the
  extended protocol, named prepared statements when the app prepares them (every list without a
  search) and unnamed ones otherwise, as the app sends them; from the page mark for a deep
  \`page=\`), answering the rows as JSON with no DTO mapping and no zod. Neither is part of the app.
- **Load:** both servers first run every scenario for the warm-up time (V8 compiles the code
  they run; the app has more of it). Then autocannon over loopback, one scenario at a time, three ways: 10 connections flat out
  (pipelining 1, 2 s warm-up then 10 s measured: throughput, and latency when requests queue);
  one connection (latency without queueing); a steady 100 requests a second, evenly spaced and
  sent on time whether or not earlier ones were answered (\`--rate\`, open loop: latency under a
  constant load the server keeps up with). Percentiles are computed
  from every response. Requests are anonymous (adult campaigns hidden). Each REST scenario runs
  next to its raw counterpart.
- **CPU columns:** CPU milliseconds per request used by the answering server's processes and by
  its PostgreSQL backends (from /proc, told apart by \`application_name\`). They hardly depend on
  what else runs on the machine, unlike req/s and latency; the load generator, both servers and
  PostgreSQL share the machine, and the run reports how many cores other processes used.
- **Scenarios:** first page (\`/api/campaigns\`); a deep page about 90 % into the list by keyset
  (\`?cursor=\` built from the row at that depth, what the app's infinite scroll uses) and by the
  documented form (\`?page=\`); search for a common and a rarer word (\`?q=\`, repeated), and a
  new search every request (each vocabulary word in ever other upper/lower-case spellings: the
  same matches; the app keeps no search cache since migration 0026); detail
  (\`/api/campaigns/:id\`, rotating over 1,000 random campaigns); the tRPC list and detail
  (\`/trpc/campaigns.list\` and \`/trpc/campaigns.get\` over the same ids, superjson input, one call a
  request), each with its ratio to the REST one in req/s and in server CPU per request.
- **Search** (\`bench/search.ts\`): every word of the vocabulary (505), 100 pairs and 50 triples
  of words drawn evenly from it, each measured on its own, every request in a new mix of upper
  and lower case: with one connection, each search 10 times in a row (its p95, and the CPU of
  the app's PostgreSQL backends and process per search); and at a steady rate
  (\`--search-rate WORDS,COMBOS\`, by default the issue's: 50 a second below 1,000,000 campaigns,
  from there 10 for one word and 5 for pairs and triples), one kind at a time, its searches in
  turn for about 120 s (at least 3 requests each): the kind's p95 over all its requests and the
  worst search's own. Then the space: the \`campaigns\` heap against the \`search_vector\` column
  (\`sum(pg_column_size(...))\`), every index and \`campaign_sort_keys\`. Targets (issue #29): at
  100,000 campaigns p95 under 20 ms at 50 a second for every kind; at 1,000,000 one word under
  50 ms at 10 a second, pairs and triples under 300 ms at 5 a second; search's space at most a
  quarter of the heap.
- **Pending** (\`bench/pending.ts\`): 167 searches (one vocabulary word in four and 40 pairs)
  three times, one at a time through the app, with nothing new and while 3,000 new campaigns are
  written and not yet vacuumed, with the campaign search indexes as migrated (no pending list) and
  switched to PostgreSQL's default pending list (\`fastupdate = on\`), then put back.
- **Sorts** (\`bench/sorts.ts\`): \`/api/campaigns?sort=\` newest, ending, funded and supported,
  over all categories and with \`type=music\`: the first page and a page 90 % deep by the app's own
  cursor (\`encodeSortCursor\` over the sort's order, made from the row at that depth and checked:
  the app's page after it starts with the next row), each with one connection and at a steady
  \`--rate\`. Target (issue #29, at 1,000,000 campaigns): every p95 under 20 ms.
- **Comments** (\`bench/comments.ts\`): the seed also gives one campaign 100,000 comments
  (90,000 threads, a reply on every 18th and 5,001 replies on the one in the middle, 1 % deleted),
  one campaign 10, and 1-3 to a tenth of the others. With one connection: the first page of
  threads of each (\`/api/campaigns/:id/comments\`), a page at 90 % by cursor, and the long
  thread's replies (first page and at 90 %). Then \`GET /api/campaigns?limit=5\` 20 times a second on one
  connection from 127.0.0.2 alone and while ten connections from 127.0.0.1 read the first page of
  the 10-comment campaign or of the 100,000 one, flat out and at a steady \`--rate\`: to the app,
  two clients. Targets: the 100,000 campaign's first page within 1.2x the 10-comment one (p95);
  the list's p95 within 1.5x of alone while ten connections read it. Blocks: one owner blocked
  300 others and every other owner about 100 (95,000 in all), for \`--explain\` as that viewer.
- **Donations** (\`bench/donations.ts\`): guests (a new email each request) donate by the sandbox's
  test card through \`POST /api/campaigns/:id/donations\` (a new \`Idempotency-Key\` each), ten
  connections over ${WRITE_CAMPAIGNS.toLocaleString('en-US')} campaigns in turn and all to one campaign, next to a bare route of the
  baseline (\`POST /raw/campaigns/:id/donations\`: the donation, its ledger group and the group's two
  entries in one transaction, the same triggers firing); the app runs with \`CLIENT_CONCURRENCY=0 CLIENT_RATE=0\` and
  \`WRITE_LIMITS=off\` (ten donors from one address). The seed gives one campaign ${HOT_DONATIONS.toLocaleString('en-US')} succeeded
  donations (one transaction; the two triggers that keep \`campaign_totals\` are disabled in it and
  the totals computed in bulk, then checked against the ledger); its detail and the list page that
  starts with it are read with one connection, alternating with a campaign of none (the next in the
  list) and the page one row later. A second instance of each server, its database connections
  through a proxy that reads the PostgreSQL protocol, gives the statements and round trips of a
  donation. Targets: the app at least 0.7x the baseline's req/s; all to one campaign at least 0.8x
  spread; reads of the campaign of ${HOT_DONATIONS.toLocaleString('en-US')} within 1.2x of the one of none (p95).
- **Instances** (\`bench/instances.ts\`): the lists part's requests (the app's scenarios above
  but the new-search one), each at a steady \`--rate\`, answered by one app process, by two on the
  same database behind one address (a round-robin proxy in the bench's process, Node's http with
  a keep-alive agent to each; its CPU is not counted) and by one with \`DATABASE_PREPARE=off\`, all
  three through the same proxy and with \`JOBS=off\`, in rounds taking turns, and, as a control, by
  one process sent half the rate (what each of the two gets: a process's CPU per request rises as
  its requests come further apart). A second control makes the same one-against-two comparison
  for the raw baseline (bare Fastify and postgres.js, none of the app's code) over its requests:
  what a second process costs on this machine whatever the code. Target (issue #31): on two cores
  a second process brings no throughput, so two processes' server CPU per request at most 1.1x
  one's. The prepare-off column is what a transaction-mode pooler costs.
- **Uploads** (\`bench/uploads.ts\`): \`POST /api/upload/campaign/multi\` with a 1600x1200 photo-like
  JPEG, signed in, \`--images\` per storage one at a time and as many two at a time, to an app
  storing on local disk and one storing in an S3 bucket (s3rver in a process of its own), in turn:
  time per image (median, p95), images a second, app CPU per image, and the ratio bucket/disk.
- **First start** (\`bench/first-start.ts\`, no database): \`npm start\` in a clone of the commit
  (node_modules a link to this checkout's), from spawning it to the first page: a fresh clone, the
  build kept with a new data directory, and a restart, in turn; wall time, CPU of every process
  of the start, the server's RSS. Target (issue #31): a fresh clone's first page within 10 s.
- **Targets (2 cores):** REST list at least 0.8x the raw baseline (0.85x since issue #29); tRPC
  list and detail at least 0.8x the REST ones in req/s and at most 1.3x their server CPU per
  request; at 1,000,000 campaigns deep pages p95 under 10 ms, reported at each of the three
  loads (the lists part's search p95 line predates issue #29; the search part's targets are the
  issue's, in its section and in "Issue #29: targets after migration 0026").

Run it: \`npm run bench\` (100,000 campaigns), \`npm run bench -- --campaigns 1000000\`. Options:
\`--keep\` keeps the database, \`--reuse\` runs against a kept one without seeding, \`--explain\`
prints \`EXPLAIN (ANALYZE, BUFFERS)\` of each query first, \`--duration\`, \`--warmup\`,
\`--connections\`, \`--rate\`, \`--search-rate\`, \`--images\`, \`--only lists\`, \`--only search\`, \`--only sorts\`, \`--only comments\`,
\`--only donations\`, \`--only instances\`, \`--only uploads\` or \`--only first-start\` (one part alone), \`--only seed\` (seed, keep and stop), \`--database NAME\` (another
name than \`kindling_bench\`: two sizes kept side by side).

`;

function fmt(n: number, digits = 1) {
  return Number.isFinite(n) ? n.toFixed(digits) : '-';
}

function resultsTable(results: Measured[], full: boolean): string {
  const by = (k: string) => results.find((r) => r.key === k);
  const rows = results.map((r) => {
    const raw = by(`raw-${r.key.replace(/^rest-/, '')}`);
    let ratio = '';
    if (r.key.startsWith('rest-') && raw) ratio = `REST/raw ${fmt(r.rps / raw.rps, 2)}`;
    const restTwin = by(r.key.replace(/^trpc-/, 'rest-'));
    if (r.key.startsWith('trpc-') && restTwin)
      ratio = `tRPC/REST ${fmt(r.rps / restTwin.rps, 2)} req/s, ${fmt(r.serverCpu / restTwin.serverCpu, 2)} server CPU`;
    const failed = `${r.timeouts ? ` (${r.timeouts} timed out after 10 s)` : ''}${r.bad ? ` (${r.bad} failed)` : ''}`;
    return full
      ? `| ${r.label} | ${r.rps.toFixed(0)} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${fmt(r.p99)} | ${fmt(r.serverCpu, 2)} | ${fmt(r.pgCpu, 2)} | ${ratio}${failed} |`
      : `| ${r.label} | ${r.rps.toFixed(0)} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${fmt(r.p99)} |${failed}`;
  });
  const head = full
    ? ['| scenario | req/s | p50 ms | p95 ms | p99 ms | server CPU ms/req | PG CPU ms/req | ratio |', '|---|---:|---:|---:|---:|---:|---:|---|']
    : ['| scenario | req/s | p50 ms | p95 ms | p99 ms |', '|---|---:|---:|---:|---:|'];
  return [...head, ...rows].join('\n');
}

function writeDocs(n: number, body: string) {
  const start = `<!-- results N=${n} -->`;
  const end = `<!-- /results N=${n} -->`;
  let doc = existsSync(DOCS) ? readFileSync(DOCS, 'utf8') : DOCS_HEADER;
  const section = `${start}\n${body.trim()}\n${end}`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i >= 0 && j > i) doc = doc.slice(0, i) + section + doc.slice(j + end.length);
  else {
    // sections in order of N
    const others = [...doc.matchAll(/<!-- results N=(\d+) -->/g)].map((m) => ({ n: Number(m[1]), at: m.index! }));
    const after = others.find((s) => s.n > n);
    doc = after ? `${doc.slice(0, after.at)}${section}\n\n${doc.slice(after.at)}` : `${doc.trimEnd()}\n\n${section}\n`;
  }
  writeFileSync(DOCS, doc);
}

// ---------------------------------------------------------------------------------------------
// comments: a thread of 100,000 (seeded by bench/comments.ts)
// ---------------------------------------------------------------------------------------------

const COMMENTS_HEADING = '## Comments: a thread of 100,000';
/** Where the comments part's list reader connects from (the readers use 127.0.0.1). */
const LIST_READER_ADDRESS = '127.0.0.2';
/** Requests a second of the list reader (below the app's default CLIENT_RATE, 30). */
const LIST_READER_RATE = 20;
/** Seconds the list reader is timed under each condition, in all: 240 answers, so the p95 is the 12th slowest. */
const LIST_READER_SECONDS = 12;
/** Rounds the conditions take in turn (each a third of LIST_READER_SECONDS). */
const LIST_READER_ROUNDS = 3;

/**
 * Readers in the background until stopped, on `connections` keep-alive connections: flat out
 * (autocannon, each connection sends its next request when the last is answered) or, with
 * `rate`, one request every 1/rate seconds evenly spaced (open loop: sent on time whether or
 * not earlier ones were answered, queued on the connections when all are busy).
 */
function backgroundLoad(s: Scenario, connections: number, rate?: number) {
  let answered = 0;
  let bad = 0;
  // refused by the app's per-address limit (429): its answer to too many at once, not a failure
  let refused = 0;
  if (rate) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
    let stopped = false;
    const inflight = new Set<Promise<void>>();
    const loop = (async () => {
      const started = performance.now();
      for (let i = 0; !stopped; i++) {
        const wait = started + (i * 1000) / rate - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (stopped) break;
        const p = new Promise<void>((resolve) => {
          const req = http.get(s.url, { agent }, (res) => {
            res.resume();
            res.on('end', () => {
              answered++;
              if (res.statusCode === 429) refused++;
              else if ((res.statusCode ?? 500) >= 300) bad++;
              resolve();
            });
          });
          req.on('error', () => {
            bad++;
            resolve();
          });
        });
        inflight.add(p);
        void p.then(() => inflight.delete(p));
      }
    })();
    return {
      answered: () => answered,
      bad: () => bad,
      refused: () => refused,
      stop: async () => {
        stopped = true;
        await loop;
        await Promise.all(inflight);
        agent.destroy();
      },
    };
  }
  let finished = () => {};
  const ended = new Promise<void>((resolve) => (finished = resolve));
  const inst = autocannon({ url: s.url, connections, pipelining: 1, duration: 3600, timeout: 10 }, () => finished());
  inst.on('response', (_client, status) => {
    answered++;
    if (status === 429) refused++;
    else if (status >= 300) bad++;
  });
  return {
    answered: () => answered,
    bad: () => bad,
    refused: () => refused,
    stop: async () => {
      inst.stop();
      await ended;
    },
  };
}

/**
 * The list reader of the comments part: one keep-alive connection from `localAddress`, a request
 * every 1/LIST_READER_RATE s (or as soon as the last is answered, when that is later): a person's
 * pace, within the app's budget per address (CLIENT_RATE), so its own budget never holds it back.
 * It comes from an address of its own (127.0.0.2, still loopback) so the app tells it apart from
 * the readers (127.0.0.1), as it would two clients. Latency is from sending to the end of the body.
 */
async function probeLoad(s: Scenario, duration: number, localAddress: string): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress });
  const samples: number[] = [];
  let bad = 0;
  let timeouts = 0;
  const started = performance.now();
  const until = started + duration * 1000;
  try {
    for (let i = 0; performance.now() < until; i++) {
      const wait = started + (i * 1000) / LIST_READER_RATE - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const t0 = performance.now();
      await new Promise<void>((resolve) => {
        const req = http.get(s.url, { agent, timeout: 10_000 }, (res) => {
          res.resume();
          res.on('end', () => {
            samples.push(performance.now() - t0);
            if ((res.statusCode ?? 500) >= 300) bad++;
            resolve();
          });
        });
        req.on('timeout', () => {
          timeouts++;
          req.destroy();
        });
        req.on('error', () => {
          bad++;
          resolve();
        });
      });
    }
  } finally {
    agent.destroy();
  }
  return { samples, total: samples.length, seconds: (performance.now() - started) / 1000, bad, timeouts };
}

/** Reads of the comment threads, then a small campaign list alone and while ten connections read a thread; writes its section of docs/benchmarks.md. */
async function benchComments(
  o: Options,
  reads: { base: string; meter: CpuMeter },
  fairApp: () => Promise<{ base: string; meter: CpuMeter; config: Pick<Config, 'clientConcurrency' | 'clientQueue' | 'clientRate' | 'clientBurst'> }>,
  t: CommentTargets,
  env: { pgVersion: string; sharedBuffers: string },
) {
  let { base, meter } = reads;
  const threads = (id: string, qs = '') => `${base}/api/campaigns/${id}/comments${qs}`;
  const big = BIG_COMMENTS.toLocaleString('en-US');
  const scenarios: Scenario[] = [
    { key: 'small', label: `first page of threads, campaign of ${SMALL_COMMENTS} comments`, url: threads(t.small), server: 'app' },
    { key: 'big', label: `first page of threads, campaign of ${big} comments`, url: threads(t.big), server: 'app' },
    { key: 'big-deep', label: `page of threads at 90 % (cursor), campaign of ${big}`, url: threads(t.big, `?cursor=${t.deepThreads}`), server: 'app' },
    {
      key: 'replies',
      label: `first page of replies, thread of ${LONG_REPLIES.toLocaleString('en-US')} replies`,
      url: threads(t.big, `/${t.longThread}/replies`),
      server: 'app',
    },
    {
      key: 'replies-deep',
      label: 'page of replies at 90 % (cursor), same thread',
      url: threads(t.big, `/${t.longThread}/replies?cursor=${t.deepReplies}`),
      server: 'app',
    },
  ];
  // one request each first: the answers must be right (and their size known) before they are timed
  const answers: Record<string, string> = {};
  for (const s of scenarios) {
    const res = await fetch(s.url);
    const text = await res.text();
    if (!res.ok) throw new Error(`${s.label}: ${s.url} answered ${res.status}: ${text.slice(0, 300)}`);
    // a page of threads is a list (its next cursor in the headers), a page of replies { items, nextCursor }
    type Item = { replies?: unknown[] };
    const body = JSON.parse(text) as Item[] | { items: Item[] };
    const items = Array.isArray(body) ? body : body.items;
    if (!items?.length) throw new Error(`${s.label}: no items`);
    const replies = items.reduce((n, i) => n + (i.replies?.length ?? 0), 0);
    const what = s.key.startsWith('replies') ? `${items.length} replies` : `${items.length} threads + ${replies} replies`;
    answers[s.key] = `${what}, ${(Buffer.byteLength(text) / 1024).toFixed(1)} KiB`;
  }

  process.stdout.write(`\nComments: warming up on every scenario (${o.warmup} s each)...`);
  for (const s of scenarios) await load(s, o.warmup, o.connections);
  console.log(' done');
  const single = { connections: 1, duration: Math.min(5, o.duration), warmup: 1 };
  console.log(`\nComments, one connection (${single.warmup} s warm-up + ${single.duration} s each):`);
  const singles: Measured[] = [];
  for (const s of scenarios) singles.push(await measure(s, meter, single));

  // GET /api/campaigns?limit=5 with one connection, alone and while ten connections read a thread,
  // on the app with its default per-address limits
  const fair = await fairApp();
  ({ base, meter } = fair);
  const { config } = fair;
  for (const s of scenarios) s.url = s.url.replace(reads.base, base);
  const list: Scenario = { key: 'list5', label: 'GET /api/campaigns?limit=5', url: `${base}/api/campaigns?limit=5`, server: 'app' };
  const conditions: { label: string; readers?: Scenario; rate?: number }[] = [
    { label: 'nothing else' },
    { label: `${o.connections} connections read the first page of the ${SMALL_COMMENTS}-comment campaign, flat out`, readers: scenarios[0] },
    { label: `${o.connections} connections read the first page of the ${big}-comment campaign, flat out`, readers: scenarios[1] },
    {
      label: `${o.connections} connections read the first page of the ${big}-comment campaign, ${o.rate} req/s in all, evenly spaced`,
      readers: scenarios[1],
      rate: o.rate,
    },
  ];
  console.log(
    `\nGET /api/campaigns?limit=5, ${LIST_READER_RATE} a second from ${LIST_READER_ADDRESS} (${LIST_READER_ROUNDS} rounds of ${single.warmup} s warm-up + ${LIST_READER_SECONDS / LIST_READER_ROUNDS} s each), while:`,
  );
  await probeLoad(list, o.warmup, LIST_READER_ADDRESS);
  // The conditions take turns, LIST_READER_ROUNDS rounds of each: a change in the machine's other
  // load falls on all of them alike, and each condition's percentiles are over all its rounds.
  type Probe = { label: string; rps: number; p50: number; p95: number; p99: number; readers: number; refused: number; bad: number; otherLoad: number };
  const acc = conditions.map(() => ({ samples: [] as number[], total: 0, seconds: 0, readerAnswers: 0, readerSeconds: 0, refused: 0, bad: 0, otherLoad: 0 }));
  const roundSeconds = LIST_READER_SECONDS / LIST_READER_ROUNDS;
  const readerWarmup = config.clientRate > 0 ? Math.ceil(config.clientBurst / config.clientRate) + single.warmup : single.warmup;
  for (let round = 1; round <= LIST_READER_ROUNDS; round++) {
    console.log(`  round ${round} of ${LIST_READER_ROUNDS}:`);
    for (const [i, c] of conditions.entries()) {
      process.stdout.write(`    ${c.label.padEnd(86)}`);
      await waitForQuiet(meter);
      const bg = c.readers ? backgroundLoad(c.readers, o.connections, c.rate) : null;
      try {
        // with readers, the warm-up lasts until their burst is spent (CLIENT_BURST / CLIENT_RATE): what is timed is their steady state
        await probeLoad(list, c.readers ? readerWarmup : single.warmup, LIST_READER_ADDRESS);
        const before = await meter.snapshot();
        const answeredBefore = bg?.answered() ?? 0;
        const refusedBefore = bg?.refused() ?? 0;
        const r = await probeLoad(list, roundSeconds, LIST_READER_ADDRESS);
        const after = await meter.snapshot();
        const seconds = (after.at - before.at) / 1000;
        const a = acc[i];
        a.samples.push(...r.samples);
        a.total += r.total;
        a.seconds += r.seconds;
        const refused = bg ? bg.refused() - refusedBefore : 0;
        if (bg) {
          a.readerAnswers += bg.answered() - answeredBefore - refused;
          a.readerSeconds += seconds;
        }
        a.refused += refused;
        a.bad += r.bad + r.timeouts + (bg?.bad() ?? 0);
        const other = otherCores(before, after);
        a.otherLoad = Math.max(a.otherLoad, other);
        const sorted = [...r.samples].sort((x, y) => x - y);
        process.stdout.write(
          `p50 ${percentile(sorted, 0.5).toFixed(1)}  p95 ${percentile(sorted, 0.95).toFixed(1)} ms` +
            `${bg ? `  readers ${((bg.answered() - answeredBefore - refused) / seconds).toFixed(0)} req/s${refused ? ` (${refused} refused, 429)` : ''}` : ''}` +
            `${other >= 0.3 ? `  (others: ${other.toFixed(1)} cores)` : ''}\n`,
        );
      } finally {
        await bg?.stop();
      }
    }
  }
  const probes: Probe[] = conditions.map((c, i) => {
    const a = acc[i];
    a.samples.sort((x, y) => x - y);
    return {
      label: c.label,
      rps: a.total / a.seconds,
      p50: percentile(a.samples, 0.5),
      p95: percentile(a.samples, 0.95),
      p99: percentile(a.samples, 0.99),
      readers: a.readerSeconds ? a.readerAnswers / a.readerSeconds : 0,
      refused: a.refused,
      bad: a.bad,
      otherLoad: a.otherLoad,
    };
  });

  // --- report
  const by = (k: string) => singles.find((m) => m.key === k)!;
  const ratio95 = by('big').p95 / by('small').p95;
  const ratio50 = by('big').p50 / by('small').p50;
  const [alone, smallReaders, bigReaders, bigRate] = probes;
  const slow = bigReaders.p95 / alone.p95;
  const slowVsSmall = bigReaders.p95 / smallReaders.p95;
  const slowRate = bigRate.p95 / alone.p95;
  const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
  const others = [...singles.map((m) => m.otherLoad), ...probes.map((p) => p.otherLoad)];
  const body = [
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ` +
      `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory; Node ${process.version}; PostgreSQL ${env.pgVersion} (shared_buffers ${env.sharedBuffers}), same machine; ` +
      `${o.campaigns.toLocaleString('en-US')} campaigns.`,
    '',
    `Data: one campaign with ${big} comments (${t.threads.toLocaleString('en-US')} threads, ${(t.comments - t.threads).toLocaleString('en-US')} replies: one on every 18th thread and ` +
      `${LONG_REPLIES.toLocaleString('en-US')} on the thread in the middle; 1 % of threads deleted), one with ${SMALL_COMMENTS} (8 threads, 2 replies), ` +
      `${t.allComments.toLocaleString('en-US')} comments in all. Requests through REST, anonymous, default page size (20).`,
    `Other processes on the machine used ${Math.min(...others).toFixed(1)}-${Math.max(...others).toFixed(1)} cores during the runs` +
      `${Math.max(...others) >= 0.3 ? ' (the numbers are disturbed by that much)' : ''}.`,
    '',
    `One connection (${single.warmup} s warm-up + ${single.duration} s each; CPU columns: milliseconds of CPU per request of the app's processes and of its PostgreSQL backends):`,
    '',
    '| scenario | answer | req/s | p50 ms | p95 ms | p99 ms | server CPU ms/req | PG CPU ms/req |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...singles.map(
      (m) =>
        `| ${m.label} | ${answers[m.key]} | ${m.rps.toFixed(0)} | ${fmt(m.p50)} | ${fmt(m.p95)} | ${fmt(m.p99)} | ${fmt(m.serverCpu, 2)} | ${fmt(m.pgCpu, 2)} |` +
        `${m.bad || m.timeouts ? ` (${m.bad + m.timeouts} failed)` : ''}`,
    ),
    '',
    `\`GET /api/campaigns?limit=5\`, ${LIST_READER_RATE} a second on one connection from ${LIST_READER_ADDRESS} (${LIST_READER_ROUNDS} rounds of ${single.warmup} s warm-up, ${readerWarmup} s with readers, while they spend their burst, + ${LIST_READER_SECONDS / LIST_READER_ROUNDS} s each, the conditions in turn), ` +
      'while something else runs; the readers come from 127.0.0.1. The app runs with its default limits per address: ' +
      (config.clientConcurrency > 0 ? `at most ${config.clientConcurrency} requests handled at once` : 'no limit on requests at once') +
      ', ' +
      (config.clientRate > 0 ? `${config.clientRate} a second on average (${config.clientBurst} at once after a pause)` : 'no budget over time') +
      `, ${config.clientQueue} more wait (CLIENT_CONCURRENCY, CLIENT_RATE, CLIENT_BURST, CLIENT_QUEUE):`,
    '',
    '| while | req/s | p50 ms | p95 ms | p99 ms | readers, req/s |',
    '|---|---:|---:|---:|---:|---:|',
    ...probes.map(
      (p) =>
        `| ${p.label} | ${p.rps.toFixed(0)} | ${fmt(p.p50)} | ${fmt(p.p95)} | ${fmt(p.p99)} | ${p.readers ? p.readers.toFixed(0) : '-'}${p.refused ? ` (${p.refused} refused)` : ''} |` +
        `${p.bad ? ` (${p.bad} failed)` : ''}`,
    ),
    '',
    `Targets: first page of the ${big}-comment campaign / of the ${SMALL_COMMENTS}-comment one, one connection: p95 ${ratio95.toFixed(2)} (<= 1.2: ${verdict(ratio95 <= 1.2)}), p50 ${ratio50.toFixed(2)}. ` +
      `List p95 while ${o.connections} connections read the ${big}-comment campaign flat out / alone: ${slow.toFixed(2)} (<= 1.5: ${verdict(slow <= 1.5)}); ` +
      `at ${o.rate} req/s of readers: ${slowRate.toFixed(2)} (${verdict(slowRate <= 1.5)}); ` +
      `flat out, against the same readers on the ${SMALL_COMMENTS}-comment campaign: ${slowVsSmall.toFixed(2)}.`,
  ].join('\n');
  console.log(`\n${body}`);
  writeDocsSection(DOCS, DOCS_HEADER, { heading: COMMENTS_HEADING, name: 'comments' }, body);
  console.log(`\nWrote the comments results to ${path.relative(ROOT, DOCS)}.`);
  if ([...singles].some((m) => m.bad || m.timeouts) || probes.some((p) => p.bad)) process.exitCode = 1;
}

/** The generated part of the comments section (under its hand-written heading and reading); added at the end the first time. */

// ---------------------------------------------------------------------------------------------
// main
// ---------------------------------------------------------------------------------------------

/** Expected share of campaigns whose text holds word k (1-based) given about `draws` words per campaign. */
function expectedShare(k: number, draws: number): number {
  const p = Math.log((k + 1) / k) / Math.log(VOCABULARY.length + 1);
  return 1 - (1 - p) ** draws;
}

/** A word with about the given share of campaigns that is not the start of another word (prefix search). */
function pickWord(share: number): string {
  let best = '';
  let bestDiff = Infinity;
  VOCABULARY.forEach((w, i) => {
    if (w.length < 5 || VOCABULARY.some((o) => o !== w && (o.startsWith(w) || o.includes(w)))) return;
    const d = Math.abs(Math.log(expectedShare(i + 1, 25) / share));
    if (d < bestDiff) {
      bestDiff = d;
      best = w;
    }
  });
  return best;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  BENCH_DB = o.database;
  const runs = (part: 'lists' | 'search' | 'pending' | 'sorts' | 'comments' | 'donations' | 'instances' | 'uploads' | 'first-start') =>
    o.only === 'all' || o.only === part;
  // the first start needs no database: a clone of the commit and its own embedded one
  if (runs('first-start')) {
    await benchFirstStart({ root: ROOT, docs: DOCS, docsHeader: DOCS_HEADER });
    if (o.only === 'first-start') return;
  }
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (!serverUrl || !/^postgres(ql)?:\/\//.test(serverUrl)) {
    console.error(
      'npm run bench needs a real PostgreSQL server: set BENCH_DATABASE_URL (or TEST_DATABASE_URL, or DATABASE_URL),\n' +
        'for example BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench\n' +
        `It creates (and at the end drops) the database ${BENCH_DB} on that server.`,
    );
    process.exitCode = 2;
    return;
  }
  const benchUrl = withDatabase(serverUrl, BENCH_DB);
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  let created = false;
  let tmpDir: string | undefined;
  const probes: postgres.Sql[] = [];

  let stopping = false;
  const cleanup = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.all(children.map(stopChild));
    await Promise.all(probes.map((p) => p.end({ timeout: 2 }).catch(() => {})));
    if (created && !o.keep) {
      await admin.unsafe(`drop database if exists ${BENCH_DB} with (force)`).catch((e) => console.error('could not drop the bench database:', e.message));
    } else if (created) console.log(`Kept the database ${BENCH_DB} (--keep).`);
    await admin.end({ timeout: 2 }).catch(() => {});
    if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
  };
  const onSignal = (sig: NodeJS.Signals) => {
    console.error(`\n${sig}: stopping...`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const [{ server_version: pgVersion }] = await admin<{ server_version: string }[]>`show server_version`;
    const [{ shared_buffers: sharedBuffers }] = await admin<{ shared_buffers: string }[]>`show shared_buffers`;
    console.log(`PostgreSQL ${pgVersion} at ${new URL(serverUrl).host}; ${o.campaigns.toLocaleString('en-US')} campaigns`);

    // --- database
    let seedTimes: Record<string, number> = {};
    let seedTotal = 0;
    const exists = (await admin`select 1 from pg_database where datname = ${BENCH_DB}`).length > 0;
    created = true;
    if (o.reuse && exists) {
      const check = postgres(benchUrl, { max: 1, onnotice: () => {} });
      const [{ n }] = await check<{ n: string }[]>`select count(*) as n from campaigns`;
      await check.end();
      if (Number(n) !== o.campaigns) throw new Error(`--reuse: ${BENCH_DB} has ${n} campaigns, not ${o.campaigns}`);
      console.log(`Reusing ${BENCH_DB} (${Number(n).toLocaleString('en-US')} campaigns)`);
      // migrations added since it was seeded, as the app would apply them
      const migrating = await openPostgres(benchUrl, { max: 1 });
      await migrating.migrate();
      await migrating.close();
      // a database kept from before migration 0026 got its new columns, indexes and sort keys
      // from the migration: their visibility map set, so that index-only scans stay index-only
      const vacuuming = postgres(benchUrl, { max: 1, onnotice: () => {} });
      await vacuuming.unsafe('vacuum (analyze) campaigns, campaign_sort_keys, list_counts');
      await vacuuming.end();
      // a database kept from before the comments scenario gets its comments now
      const seeder = postgres(benchUrl, { max: 1, onnotice: () => {}, connection: { synchronous_commit: 'off', work_mem: '64MB' } });
      try {
        if (await seedComments(seeder, VOCABULARY)) {
          await seeder.unsafe('vacuum (analyze) comments, blocks');
          console.log(`Added the comments (${BIG_COMMENTS.toLocaleString('en-US')} on one campaign) to the kept database`);
        }
        // and one from before the donations part its campaign of 1,000,000 donations, when that part runs
        if (runs('donations') && (await seedHotCampaign(seeder))) {
          console.log(`Added the campaign of ${HOT_DONATIONS.toLocaleString('en-US')} donations to the kept database`);
        }
      } finally {
        await seeder.end();
      }
    } else {
      console.log(`Seeding ${BENCH_DB}:`);
      const t0 = Date.now();
      await admin.unsafe(`drop database if exists ${BENCH_DB} with (force)`);
      await admin.unsafe(`create database ${BENCH_DB}`);
      const migrating = await openPostgres(benchUrl, { max: 1 });
      await migrating.migrate();
      await migrating.close();
      const seeder = postgres(benchUrl, {
        max: 2,
        onnotice: () => {},
        connection: { synchronous_commit: 'off', maintenance_work_mem: '512MB', work_mem: '64MB' },
      });
      try {
        seedTimes = await seed(seeder, o.campaigns);
        if (runs('donations')) {
          const t = Date.now();
          await seedHotCampaign(seeder);
          seedTimes[`${HOT_DONATIONS.toLocaleString('en-US')} donations to one campaign`] = Date.now() - t;
        }
      } finally {
        await seeder.end();
      }
      seedTotal = Date.now() - t0;
      console.log(`Seeded in ${secs(seedTotal)}`);
      // kept with the database, so that a later --reuse run can say how long its seeding took
      const noting = postgres(benchUrl, { max: 1, onnotice: () => {} });
      await noting`create table bench_seed_times (phase text not null, ms integer not null, at timestamptz not null default now())`;
      for (const [phase, ms] of Object.entries({ ...seedTimes, total: seedTotal }))
        await noting`insert into bench_seed_times (phase, ms) values (${phase}, ${ms})`;
      await noting.end();
    }
    if (o.only === 'seed') return;

    // --- what to ask for
    const probe = postgres(benchUrl, { max: 1, onnotice: () => {}, connection: { application_name: 'kindling-bench-probe' } });
    probes.push(probe);
    const [{ visible }] = await probe<
      { visible: string }[]
    >`select coalesce(sum(n), 0) as visible from list_counts where entity = 'campaigns' and audience = 'public'`;
    const depth = Math.floor(Number(visible) * 0.9);
    const [deepRow] = await probe<{ created_at: Date; id: string }[]>`
      select created_at, id from campaigns where audience = 'public' order by created_at desc, id desc offset ${depth} limit 1`;
    const cursor = encodeCursor({ createdAt: deepRow.created_at, id: deepRow.id });
    const deepPage = Math.floor(depth / 20) + 1;
    const detailIds = (await probe<{ id: string }[]>`select id from campaigns tablesample system (5) where audience = 'public' limit 1000`).map((r) => r.id);
    const [stats] = await probe<{ supports: string; donations: string; entries: string }[]>`
      select (select count(*) from supports) as supports, (select count(*) from donations) as donations, (select count(*) from ledger_entries) as entries`;
    const common = pickWord(0.25);
    const rare = pickWord(0.008);
    // searches nobody made before (each word of the vocabulary, in ever other upper/lower case
    // spellings: the same matches, but new to the app's cache of search totals)
    const freshSearches = Array.from({ length: 8 * VOCABULARY.length }, (_, i) => {
      const word = VOCABULARY[i % VOCABULARY.length];
      const variant = Math.floor(i / VOCABULARY.length) + 1;
      return [...word].map((ch, k) => ((variant >> k) & 1 ? ch.toUpperCase() : ch)).join('');
    });

    // the raw baseline's SQL, taken from the service's own query builders
    const anonymous: Actor = { user: null, session: null, ip: '127.0.0.1' };
    const builder = await openPostgres(benchUrl, { max: 1 });
    const listQueries = createCampaignListQueries(builder.db);
    // each request once through the service first, as the app will have done after its warm-up
    // (a search's total is then known, a deep page's marks are taken)
    const captured = async (query: Record<string, unknown>) => {
      await listQueries.run(anonymous, ListQuery.parse(query));
      return listQueries.statements(anonymous, ListQuery.parse(query));
    };
    const rawQueries = {
      list: await captured({}),
      keyset: await captured({ cursor }),
      offset: await captured({ page: deepPage }),
      'search-common': await captured({ q: common }),
      'search-rare': await captured({ q: rare }),
    };
    await builder.close();
    tmpDir = mkdtempSync(path.join(os.tmpdir(), 'kindling-bench-'));
    const queriesFile = path.join(tmpDir, 'queries.json');
    writeFileSync(queriesFile, JSON.stringify(rawQueries));

    const commentTargets = await findCommentTargets(probe);
    if (o.explain && runs('comments')) console.log(`\n${await explainComments(benchUrl, commentTargets)}\n`);
    if (o.explain && runs('lists')) {
      for (const [name, q] of Object.entries(rawQueries)) {
        for (const part of ['rows', 'total'] as const) {
          const st = q[part];
          if (!st) continue;
          const plan = await probe.unsafe(`explain (analyze, buffers) ${st.sql}`, st.params as never[]);
          console.log(`\n--- ${name} (${part})\n${plan.map((r) => r['QUERY PLAN']).join('\n')}`);
        }
      }
      console.log('');
    }

    // --- servers
    /** A baseline server (bench/raw-server.ts) on this database URL; its backends carry `appName`. */
    const startRaw = async (databaseUrl: string, appName: string) => {
      const port = await freePort();
      console.log(`Starting the raw baseline on :${port}...`);
      const child = startChild('the raw baseline (bench/raw-server.ts)', ['tsx', 'bench/raw-server.ts'], {
        ...process.env,
        RAW_DATABASE_URL: databaseUrl,
        RAW_PORT: String(port),
        RAW_QUERIES: queriesFile,
        NODE_ENV: 'production',
        PGAPPNAME: appName,
      });
      const base = `http://127.0.0.1:${port}`;
      await waitForHttp(child, `${base}/raw/list`, 60_000);
      return { child, base };
    };
    const { child: raw, base: rawBase } = await startRaw(benchUrl, 'kindling-bench-raw');
    /**
     * The app as `npm start` runs it (its Node flags included, without npm in between), with the
     * given settings over the environment's; it builds the client first when that is stale.
     */
    const benchSecretsKey = randomBytes(32).toString('base64');
    const startApp = async (settings: NodeJS.ProcessEnv) => {
      const port = await freePort();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: benchUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
        APP_URL: `http://127.0.0.1:${port}`,
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        RATE_LIMIT_PER_MINUTE: '0',
        // production needs the key of the stored tokens; the bench stores none worth keeping
        SECRETS_KEY: process.env.SECRETS_KEY || benchSecretsKey,
        // postgres.js takes its application_name from here: the bench tells its backends apart
        PGAPPNAME: 'kindling-bench-app',
        ...settings,
      };
      console.log(`Starting the app on :${port}...`);
      const startScript = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
      const child = startChild('the app (src/server/main.ts)', startScript.split(/\s+/), env);
      const base = `http://127.0.0.1:${port}`;
      await waitForHttp(child, `${base}/api/campaigns?limit=1`, 300_000);
      return { child, base, meter: cpuMeter(probe, child.proc.pid!, raw.proc.pid!), config: loadConfig(env) };
    };
    // The lists part's ten connections stand for ten clients but come from one address: the
    // app's per-address limits (CLIENT_CONCURRENCY, CLIENT_RATE) would measure themselves there, so they are off.
    let current = runs('lists') ? await startApp({ CLIENT_CONCURRENCY: '0', CLIENT_RATE: '0' }) : null;
    const base = current?.base ?? '';
    const meter = current?.meter as CpuMeter;

    // what the app's client sends (httpBatchLink with superjson), one call per request
    const trpcInput = encodeURIComponent(JSON.stringify({ json: {} }));
    const trpcDetailInput = (id: string) => encodeURIComponent(JSON.stringify({ json: { id } }));
    // each REST scenario next to its raw counterpart, so a change in the machine's other load skews both alike
    const scenarios: Scenario[] = [
      { key: 'rest-list', label: 'REST list, page 1', url: `${base}/api/campaigns`, server: 'app', single: true },
      { key: 'raw-list', label: 'raw baseline, list page 1', url: `${rawBase}/raw/list`, server: 'raw', single: true },
      { key: 'trpc-list', label: 'tRPC list, page 1', url: `${base}/trpc/campaigns.list?input=${trpcInput}`, server: 'app' },
      { key: 'rest-keyset', label: 'REST deep page, keyset (cursor at 90 %)', url: `${base}/api/campaigns?cursor=${cursor}`, server: 'app', single: true },
      { key: 'raw-keyset', label: 'raw baseline, deep page keyset', url: `${rawBase}/raw/keyset`, server: 'raw' },
      { key: 'rest-offset', label: `REST deep page, offset (page=${deepPage})`, url: `${base}/api/campaigns?page=${deepPage}`, server: 'app', single: true },
      { key: 'raw-offset', label: 'raw baseline, deep page offset', url: `${rawBase}/raw/offset`, server: 'raw' },
      { key: 'rest-search-common', label: `REST search, common word "${common}"`, url: `${base}/api/campaigns?q=${common}`, server: 'app', single: true },
      { key: 'raw-search-common', label: `raw baseline, search "${common}"`, url: `${rawBase}/raw/search-common`, server: 'raw' },
      { key: 'rest-search-rare', label: `REST search, rarer word "${rare}"`, url: `${base}/api/campaigns?q=${rare}`, server: 'app', single: true },
      { key: 'raw-search-rare', label: `raw baseline, search "${rare}"`, url: `${rawBase}/raw/search-rare`, server: 'raw' },
      {
        key: 'rest-search-new',
        label: 'REST search, a new search each request',
        url: `${base}/api/campaigns?q=${freshSearches[0]}`,
        paths: freshSearches.map((q) => `/api/campaigns?q=${encodeURIComponent(q)}`),
        server: 'app',
        single: true,
        latencyOnly: true,
      },
      {
        key: 'rest-detail',
        label: 'REST detail (1,000 ids in turn)',
        url: `${base}/api/campaigns/${detailIds[0]}`,
        paths: detailIds.map((id) => `/api/campaigns/${id}`),
        server: 'app',
        single: true,
      },
      {
        key: 'trpc-detail',
        label: 'tRPC detail (the same 1,000 ids)',
        url: `${base}/trpc/campaigns.get?input=${trpcDetailInput(detailIds[0])}`,
        paths: detailIds.map((id) => `/trpc/campaigns.get?input=${trpcDetailInput(id)}`),
        server: 'app',
      },
    ];

    if (runs('lists')) {
      // one request each first: the answers must be right before they are timed
      const totals: Record<string, number> = {};
      for (const s of scenarios) {
        const res = await fetch(s.url);
        if (!res.ok) throw new Error(`${s.label}: ${s.url} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        const body = (await res.json()) as { items?: unknown[]; total?: number; result?: { data: { json: { items: unknown[]; total: number } } } };
        const list = body.result?.data.json ?? body;
        if (list.total !== undefined) totals[s.key] = list.total;
        if (!s.key.endsWith('-detail') && !list.items?.length) throw new Error(`${s.label}: no items`);
      }
      for (const k of ['list', 'keyset', 'offset', 'search-common', 'search-rare']) {
        // the raw baseline gives no total for a repeated search (see raw-server.ts)
        if (rawQueries[k as keyof typeof rawQueries].totalFrom === 'counter') continue;
        if (totals[`rest-${k}`] !== totals[`raw-${k}`]) throw new Error(`${k}: totals differ, REST ${totals[`rest-${k}`]}, raw ${totals[`raw-${k}`]}`);
      }

      const main = { connections: o.connections, duration: o.duration, warmup: o.warmup };
      // both servers run every scenario once before anything is measured, so that the first
      // scenario does not also measure V8 compiling the server's code (the app has more of it)
      process.stdout.write(`\nWarming both servers up on every scenario (${o.warmup} s each)...`);
      for (const s of scenarios.filter((x) => !x.latencyOnly)) await load(s, o.warmup, o.connections);
      console.log(' done');
      console.log(`\nMeasuring (${o.warmup} s warm-up + ${o.duration} s each, ${o.connections} connections):`);
      const results: Measured[] = [];
      for (const s of scenarios.filter((x) => !x.latencyOnly)) results.push(await measure(s, meter, main));
      const single = { connections: 1, duration: Math.min(5, o.duration), warmup: 1 };
      console.log(`\nOne connection (${single.warmup} s warm-up + ${single.duration} s each):`);
      const singles: Measured[] = [];
      for (const s of scenarios.filter((x) => x.single)) singles.push(await measure(s, meter, single));
      const steady = { connections: o.connections, duration: o.duration, warmup: 1, rate: o.rate };
      console.log(`\nSteady ${o.rate} requests a second, evenly spaced (${steady.warmup} s warm-up + ${steady.duration} s each):`);
      const steadies: Measured[] = [];
      for (const s of scenarios.filter((x) => x.single)) steadies.push(await measure(s, meter, steady));

      // --- report
      const by = (k: string) => results.find((r) => r.key === k)!;
      const restRaw = by('rest-list').rps / by('raw-list').rps;
      // the same ratio from CPU per request (server + PostgreSQL), which other load on the machine hardly moves
      const cpuOf = (m: Measured) => m.serverCpu + m.pgCpu;
      const restRawCpu = cpuOf(by('raw-list')) / cpuOf(by('rest-list'));
      // the app's own door against the REST one, on the same service: req/s, and server CPU per request
      const trpcVsRest = (k: 'list' | 'detail') => {
        const rest = by(`rest-${k}`);
        const trpc = by(`trpc-${k}`);
        return { rps: trpc.rps / rest.rps, cpu: trpc.serverCpu / rest.serverCpu };
      };
      const trpcList = trpcVsRest('list');
      const trpcDetail = trpcVsRest('detail');
      // the latency targets, at each load: p95 of searches (the worst of the three kinds) and of the deep pages (keyset and page=)
      const latencyAt = (list: Measured[]) => {
        const p95 = (k: string) => list.find((r) => r.key === k)?.p95 ?? NaN;
        return {
          search: Math.max(p95('rest-search-common'), p95('rest-search-rare'), list.some((r) => r.key === 'rest-search-new') ? p95('rest-search-new') : -1),
          deep: Math.max(p95('rest-keyset'), p95('rest-offset')),
        };
      };
      const atOne = latencyAt(singles);
      const atRate = latencyAt(steadies);
      const atFull = latencyAt(results);
      const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
      const mem = `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`;
      const seedLine = seedTotal
        ? `${secs(seedTotal)} (${Object.entries(seedTimes)
            .map(([k, v]) => `${k} ${secs(v)}`)
            .join(', ')})`
        : 'reused a kept database';
      const others = [...results, ...singles, ...steadies].map((r) => r.otherLoad);
      const body = [
        `## ${o.campaigns.toLocaleString('en-US')} campaigns`,
        '',
        `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${mem} memory; ` +
          `Node ${process.version}; PostgreSQL ${pgVersion} (shared_buffers ${sharedBuffers}), same machine.`,
        '',
        `Data: ${o.campaigns.toLocaleString('en-US')} campaigns (${Number(visible).toLocaleString('en-US')} not adult) over ${OWNERS} owners; ` +
          `${Number(stats.supports).toLocaleString('en-US')} supports, ${Number(stats.donations).toLocaleString('en-US')} donations, ` +
          `${Number(stats.entries).toLocaleString('en-US')} ledger entries. Seeding: ${seedLine}.`,
        `Search totals: "${common}" ${totals['rest-search-common']?.toLocaleString('en-US')} campaigns, "${rare}" ${totals['rest-search-rare']?.toLocaleString('en-US')}. ` +
          `Deep page: row ${depth.toLocaleString('en-US')} of ${Number(visible).toLocaleString('en-US')}.`,
        `Other processes on the machine used ${Math.min(...others).toFixed(1)}-${Math.max(...others).toFixed(1)} cores during the runs` +
          `${Math.max(...others) >= 0.3 ? ' (the numbers are disturbed by that much)' : ''}.`,
        '',
        `${o.connections} connections, pipelining 1, ${o.warmup} s warm-up + ${o.duration} s per scenario ` +
          "(CPU columns: milliseconds of CPU per request used by the answering server's processes and by its PostgreSQL backends):",
        '',
        resultsTable(results, true),
        '',
        `One connection (${single.duration} s each): latency without queueing behind other requests.`,
        '',
        resultsTable(singles, false),
        '',
        `A steady ${o.rate} requests a second, evenly spaced, each sent on time whether or not earlier ones were answered (${steady.duration} s each): latency under a constant load the server keeps up with.`,
        '',
        resultsTable(steadies, false),
        '',
        `Targets${o.campaigns < 1_000_000 ? ' (the latency targets are for 1,000,000 campaigns)' : ''}: ` +
          `REST list / raw = ${restRaw.toFixed(2)} in req/s (>= 0.8: ${verdict(restRaw >= 0.8)}), ${restRawCpu.toFixed(2)} by CPU per request. ` +
          `Search p95 (worst of common, rarer and new searches) < 20 ms: ${atOne.search.toFixed(1)} ms with one connection (${verdict(atOne.search < 20)}), ` +
          `${atRate.search.toFixed(1)} ms at a steady ${o.rate} req/s (${verdict(atRate.search < 20)}), ${atFull.search.toFixed(1)} ms with ${o.connections} connections flat out (${verdict(atFull.search < 20)}). ` +
          `Deep page p95 (worse of keyset and page=) < 10 ms: ${atOne.deep.toFixed(1)} ms with one connection (${verdict(atOne.deep < 10)}), ` +
          `${atRate.deep.toFixed(1)} ms at a steady ${o.rate} req/s (${verdict(atRate.deep < 10)}), ${atFull.deep.toFixed(1)} ms with ${o.connections} connections flat out (${verdict(atFull.deep < 10)}).`,
        '',
        `tRPC/REST req/s (${o.connections} connections): list ${trpcList.rps.toFixed(2)}, detail ${trpcDetail.rps.toFixed(2)} ` +
          `(>= 0.8: ${verdict(Math.min(trpcList.rps, trpcDetail.rps) >= 0.8)}). ` +
          `CPU per request ratio (server, tRPC/REST): list ${trpcList.cpu.toFixed(2)}, detail ${trpcDetail.cpu.toFixed(2)} ` +
          `(<= 1.3: ${verdict(Math.max(trpcList.cpu, trpcDetail.cpu) <= 1.3)}).`,
      ].join('\n');
      console.log(`\n${resultsTable(results, true)}\n\n${resultsTable(singles, false)}\n\n${resultsTable(steadies, false)}\n`);
      console.log(body.split('\n').slice(-3).join('\n'));
      writeDocs(o.campaigns, body);
      console.log(`\nWrote the results to ${path.relative(ROOT, DOCS)}.`);
      if ([...results, ...singles, ...steadies].some((r) => r.bad)) process.exitCode = 1;
    }
    if (runs('search')) {
      // one client asking flat out and at a steady rate: the per-address limits would time themselves
      if (current) await stopChild(current.child);
      current = await startApp({ CLIENT_CONCURRENCY: '0', CLIENT_RATE: '0' });
      await benchSearch(o, {
        base: current.base,
        appPgid: current.child.proc.pid!,
        meter: current.meter,
        probe,
        benchUrl,
        waitForQuiet,
        otherCores,
        env: { pgVersion, sharedBuffers },
        docs: DOCS,
        docsHeader: DOCS_HEADER,
        machine: `${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory; Node ${process.version}`,
      });
    }
    if (runs('pending')) {
      if (current) await stopChild(current.child);
      current = await startApp({ CLIENT_CONCURRENCY: '0', CLIENT_RATE: '0' });
      await benchPending(o, {
        base: current.base,
        probe,
        env: { pgVersion, sharedBuffers },
        docs: DOCS,
        docsHeader: DOCS_HEADER,
        machine: `${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory; Node ${process.version}`,
      });
    }
    if (runs('sorts')) {
      if (current) await stopChild(current.child);
      current = await startApp({ CLIENT_CONCURRENCY: '0', CLIENT_RATE: '0' });
      await benchSorts(o, {
        base: current.base,
        meter: current.meter,
        probe,
        load,
        measure,
        env: { pgVersion, sharedBuffers },
        docs: DOCS,
        docsHeader: DOCS_HEADER,
        machine: `${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory; Node ${process.version}`,
      });
    }
    // what the instances and uploads parts measure with: CPU of the app processes they start and of their PostgreSQL backends
    const partTools = {
      startApp,
      stopChild,
      load,
      waitForQuiet,
      otherCores,
      meterFor: (pgids: number[], appNames: string[]) => cpuMeter(probe, pgids, raw.proc.pid!, appNames),
      ticksPerSecond: TICKS_PER_S,
      percentile,
    };
    if (runs('instances')) {
      // it starts its own three processes
      if (current) await stopChild(current.child);
      current = null;
      const shapes: ListShape[] = scenarios
        .filter((s) => s.server === 'app' && !s.latencyOnly)
        .map((s) => ({ key: s.key, label: s.label, path: s.url.slice(base.length), paths: s.paths }));
      // the raw baseline's requests, each with the app's request it runs the SQL of (raw-x: rest-x)
      const rawShapes: RawShape[] = scenarios
        .filter((s) => s.server === 'raw' && shapes.some((a) => a.key === s.key.replace(/^raw-/, 'rest-')))
        .map((s) => ({ key: s.key, label: s.label, path: s.url.slice(rawBase.length), pair: s.key.replace(/^raw-/, 'rest-') }));
      await benchInstances(o, {
        tools: { ...partTools, startRaw: (appName: string) => startRaw(benchUrl, appName) },
        shapes,
        rawShapes,
        env: { pgVersion, sharedBuffers },
        docs: DOCS,
        docsHeader: DOCS_HEADER,
      });
    }
    if (runs('comments')) {
      // the thread reads are timed flat out from one address, so without the per-address budget
      // (it would time itself); the list under readers runs the app with its defaults: there the
      // ten readers are one client and the list reader another
      if (current) await stopChild(current.child);
      current = await startApp({ CLIENT_RATE: '0' });
      const reads = current;
      await benchComments(
        o,
        reads,
        async () => {
          await stopChild(reads.child);
          current = await startApp({});
          return current;
        },
        commentTargets,
        { pgVersion, sharedBuffers },
      );
    }
    if (runs('uploads')) {
      if (current) await stopChild(current.child);
      current = null;
      await benchUploads(o, { tools: partTools, probe, tmpDir, env: { pgVersion, sharedBuffers }, docs: DOCS, docsHeader: DOCS_HEADER });
    }
    if (runs('donations')) {
      // last: it writes (donations to 2,002 campaigns); it starts the app with its own settings
      if (current) await stopChild(current.child);
      current = null;
      const dataDir = path.join(tmpDir, 'data');
      mkdirSync(dataDir);
      await benchDonations(o, {
        tools: { measure, load, waitForQuiet, startApp, startRaw, stopChild, otherCores, ticksPerSecond: TICKS_PER_S },
        probe,
        benchUrl,
        rawBase,
        dataDir,
        env: { pgVersion, sharedBuffers },
        docs: DOCS,
        docsHeader: DOCS_HEADER,
      });
    }
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  } finally {
    await cleanup();
  }
}

void main();
