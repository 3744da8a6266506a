import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import type postgres from 'postgres';
import { encodeCursor } from '../src/server/lib/listing';
import { TEST_CARDS } from '../src/shared/schemas/donations';
import { writeDocsSection } from './docs-section';
import type { Child, CpuMeter, CpuSnapshot, LoadResult, Measured, Options, Scenario } from './run';

/**
 * The donations part of `npm run bench` (used by bench/run.ts).
 *
 * Writes: guests donate by the sandbox's test card through `POST /api/campaigns/{id}/donations`
 * (a unique Idempotency-Key and a unique email each request), spread over WRITE_CAMPAIGNS
 * campaigns and all to one campaign, next to the bare baseline route of bench/raw-server.ts
 * (donation, ledger group and its two entries in one transaction).
 *
 * Reads: one campaign gets HOT_DONATIONS succeeded donations (seedHotCampaign), and its detail
 * and the list page it sits on are read, alternating request by request with one connection, next
 * to a campaign with none (its neighbour in the list) and the page that starts one row later.
 *
 * Profile: a TCP proxy between a server and PostgreSQL (startCountingProxy) reads the protocol
 * and counts, per donation, the statements, the round trips and the time PostgreSQL took for each.
 */
export const HOT_DONATIONS = 1_000_000;
export const WRITE_CAMPAIGNS = 1000;
/** The hot campaign's donations have idempotency keys `bench-hot-<n>`: `bench-hot-1` finds it again. */
const HOT_KEY = 'bench-hot-';
const HOT_BATCH = 100_000;
/** Rows of the list skipped before looking for the hot campaign's place (it is not on the first page). */
const HOT_DEPTH = 100;
/** The list's page size (the default `limit`). */
const PAGE = 20;
/** Donations the profile sends one after another, after PROFILE_WARMUP. */
const PROFILE_REQUESTS = 200;
const PROFILE_WARMUP = 30;
const AMOUNTS = [10, 25, 50, 100];
/** The write scenarios run in this many rounds, each a slice of --duration. */
const WRITE_ROUNDS = 3;

// ---------------------------------------------------------------------------------------------
// seeding: one campaign with HOT_DONATIONS succeeded donations
// ---------------------------------------------------------------------------------------------

/**
 * Gives one campaign HOT_DONATIONS succeeded donations when no campaign has them yet (a database
 * kept from before this part gets them too); false when they were there.
 *
 * The campaign is the second row of 22 consecutive rows of the anonymous list (from row
 * HOT_DEPTH on) of which none has donations, and it and the next take donations: so its page and
 * the page one row later (which starts with the next one, a campaign with none) differ in that
 * one campaign. Everything is written in one transaction, in batches with SQL: the donations (80 %
 * from the 1000 accounts, 20 % from 100,000 guest emails, over the past year), a ledger group
 * each and its two entries (checked by the ledger's deferred balance trigger, which stays on: run
 * at the end with SET CONSTRAINTS ALL IMMEDIATE, since ALTER TABLE refuses a table with pending
 * trigger events). The two triggers that keep campaign_totals (one per ledger entry, one per new donor)
 * are disabled for the transaction only (ALTER TABLE is transactional: an error or a kill rolls it
 * back with the data); campaign_donors and the 16 shard rows of campaign_totals are computed in
 * bulk instead, and checked against the ledger before the commit.
 */
export async function seedHotCampaign(sql: postgres.Sql, say: (s: string) => void = (s) => process.stdout.write(s)): Promise<boolean> {
  const [found] = await sql`select campaign_id from donations where idempotency_key = ${`${HOT_KEY}1`}`;
  if (found) return false;
  const rows = await sql<{ id: string; created_at: Date; has_donations: boolean; takes_donations: boolean }[]>`
    select c.id, c.created_at, exists (select 1 from donations d where d.campaign_id = c.id) as has_donations,
           c.action_mode <> 'support' as takes_donations
    from campaigns c where c.audience = 'public' order by c.created_at desc, c.id desc offset ${HOT_DEPTH - 1} limit 5000`;
  let at = -1;
  for (let i = 1; i + PAGE + 1 <= rows.length && at < 0; i++) {
    const window = rows.slice(i, i + PAGE + 1);
    if (window.every((r) => !r.has_donations) && rows[i].takes_donations && rows[i + 1].takes_donations) at = i;
  }
  if (at < 0) throw new Error('no place in the list for the hot campaign (22 rows in a row without donations)');
  const hot = rows[at].id;
  const t0 = Date.now();
  say(`  ${HOT_DONATIONS.toLocaleString('en-US')} donations to one campaign (row ${HOT_DEPTH + at} of the list)...`);
  await sql.begin(async (tx) => {
    await tx.unsafe('alter table ledger_entries disable trigger ledger_entries_campaign_totals');
    await tx.unsafe('alter table campaign_donors disable trigger campaign_donors_count');
    const [{ currency }] = await tx<{ currency: string }[]>`select currency from campaigns where id = ${hot}`;
    for (let from = 1; from <= HOT_DONATIONS; from += HOT_BATCH) {
      const to = Math.min(HOT_DONATIONS, from + HOT_BATCH - 1);
      await tx`
        with o as (select array_agg(id order by id) as ids from users),
        d as (
          insert into donations (campaign_id, donor_id, donor_email, amount, currency, status, provider, provider_ref,
                                 idempotency_key, request_hash, succeeded_at, created_at, updated_at)
          select ${hot}::uuid,
                 case when g % 5 <> 0 then o.ids[1 + floor(random() * array_length(o.ids, 1))::int] end,
                 case when g % 5 = 0 then 'guest' || floor(random() * 100000)::int || '@bench.example.com' end,
                 (round(exp(ln(5) + random() * ln(100))) * 100)::bigint, ${currency}::currency, 'succeeded', 'sandbox',
                 ${HOT_KEY} || g, ${HOT_KEY} || g, 'bench', ts, ts, ts
          from (select g, now() - interval '365 days' + (g::float8 / ${HOT_DONATIONS}) * interval '365 days' as ts
                from generate_series(${from}::int, ${to}::int) g) s, o
          returning id, amount, currency, created_at
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
                                   ('campaign'::ledger_account_type, ${hot}::text, d.amount)) x(account_type, account_id, amount)`;
      say(` ${Math.round((100 * to) / HOT_DONATIONS)}%`);
    }
    // what the service's upsert and the two triggers would have written, in bulk
    await tx`
      insert into campaign_donors (campaign_id, donor_key, user_id, currency, gifts, donated, last_gift_at)
      select campaign_id, case when donor_id is not null then 'u:' || donor_id else 'e:' || donor_email end, donor_id, currency,
             count(*), sum(amount), max(succeeded_at)
      from donations where campaign_id = ${hot} and status = 'succeeded'
      group by 1, 2, 3, 4`;
    // spread over the 16 shards, as many connections writing over time would have left them
    await tx`
      insert into campaign_totals (campaign_id, currency, shard, raised, refunded, paid_out, donors)
      select ${hot}::uuid, ${currency}::currency, s::smallint, coalesce(r.raised, 0), 0, 0, coalesce(n.donors, 0)
      from generate_series(0, 15) s
      left join (select hashtext(group_id::text) & 15 as s, sum(amount) as raised from ledger_entries
                 where account_type = 'campaign' and account_id = ${hot} and currency = ${currency}::currency group by 1) r using (s)
      left join (select hashtext(donor_key) & 15 as s, count(*) as donors from campaign_donors
                 where campaign_id = ${hot} and gifts > 0 group by 1) n using (s)`;
    // the ledger's balance checks now (they are deferred to the commit): ALTER TABLE refuses a table with pending trigger events
    say(' checking every ledger group...');
    await tx.unsafe('set constraints all immediate');
    await tx.unsafe('alter table ledger_entries enable trigger ledger_entries_campaign_totals');
    await tx.unsafe('alter table campaign_donors enable trigger campaign_donors_count');
    const problem = await totalsProblem(tx, hot);
    if (problem) throw new Error(`the hot campaign's seeded totals are wrong: ${problem}`);
  });
  say(` ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  await sql.unsafe('vacuum (analyze) donations, ledger_groups, ledger_entries, campaign_donors, campaign_totals');
  return true;
}

/** Why a campaign's totals do not match its ledger and its donors (null when they do). */
async function totalsProblem(sql: postgres.Sql | postgres.TransactionSql, campaignId: string): Promise<string | null> {
  const [r] = await sql<{ net: string; ledger: string; raised: string; donated: string; donors: string; donor_rows: string; shards: string }[]>`
    select (select coalesce(sum(raised - refunded - paid_out), 0) from campaign_totals t where t.campaign_id = c.id and t.currency = c.currency) as net,
           (select coalesce(sum(amount), 0) from ledger_entries e
             where e.account_type = 'campaign' and e.account_id = c.id::text and e.currency = c.currency) as ledger,
           (select coalesce(sum(raised), 0) from campaign_totals t where t.campaign_id = c.id and t.currency = c.currency) as raised,
           (select coalesce(sum(amount), 0) from donations d where d.campaign_id = c.id and d.status in ('succeeded', 'refunded')) as donated,
           (select coalesce(sum(donors), 0) from campaign_totals t where t.campaign_id = c.id) as donors,
           (select count(*) from campaign_donors d where d.campaign_id = c.id and d.gifts > 0) as donor_rows,
           (select count(*) from campaign_totals t where t.campaign_id = c.id) as shards
    from campaigns c where c.id = ${campaignId}`;
  if (!r) return 'no such campaign';
  if (r.net !== r.ledger) return `totals say ${r.net}, the ledger ${r.ledger}`;
  if (r.raised !== r.donated) return `raised ${r.raised}, donations ${r.donated}`;
  if (r.donors !== r.donor_rows) return `donors ${r.donors}, donor rows ${r.donor_rows}`;
  return null;
}

/** Campaigns among `ids` whose totals (net and donors) differ from their ledger sums and donor rows. */
async function campaignsOffTheLedger(sql: postgres.Sql, ids: string[]): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    with ids as (select unnest(${ids}::uuid[]) as id),
    t as (select campaign_id as id, sum(raised - refunded - paid_out) as net, sum(donors) as donors
          from campaign_totals where campaign_id in (select id from ids) group by 1),
    l as (select account_id::uuid as id, sum(amount) as net from ledger_entries
          where account_type = 'campaign' and account_id in (select id::text from ids) group by 1),
    d as (select campaign_id as id, count(*) as donors from campaign_donors
          where campaign_id in (select id from ids) and gifts > 0 group by 1)
    select ids.id from ids left join t using (id) left join l using (id) left join d using (id)
    where coalesce(t.net, 0) <> coalesce(l.net, 0) or coalesce(t.donors, 0) <> coalesce(d.donors, 0)`;
  return rows.map((r) => r.id);
}

// ---------------------------------------------------------------------------------------------
// what to ask for
// ---------------------------------------------------------------------------------------------

export interface DonationTargets {
  /** The campaign of HOT_DONATIONS donations, and the next one in the list (none). */
  hot: string;
  empty: string;
  /** Cursors: the page that starts with the hot campaign, and the one that starts one row later (with the empty one). */
  hotPage: string;
  emptyPage: string;
  hotDonations: number;
  hotDonors: number;
  hotShards: number;
  currency: string;
  /** Campaigns the writes go to (none of them on the two pages): spread and one, for the app and for the baseline. */
  appSpread: string[];
  appOne: string;
  rawSpread: string[];
  rawOne: string;
}

export async function findDonationTargets(probe: postgres.Sql): Promise<DonationTargets> {
  const [h] = await probe<{ id: string; created_at: Date; currency: string }[]>`
    select c.id, c.created_at, c.currency from campaigns c
    where c.id = (select campaign_id from donations where idempotency_key = ${`${HOT_KEY}1`})`;
  if (!h) throw new Error(`the bench database has no campaign of ${HOT_DONATIONS.toLocaleString('en-US')} donations`);
  const problem = await totalsProblem(probe, h.id);
  if (problem) throw new Error(`the hot campaign's totals do not match its ledger: ${problem}`);
  const [before] = await probe<{ id: string; created_at: Date }[]>`
    select id, created_at from campaigns where audience = 'public' and (created_at, id) > (${h.created_at}, ${h.id}::uuid)
    order by created_at, id limit 1`;
  const after = await probe<{ id: string; created_at: Date }[]>`
    select id, created_at from campaigns where audience = 'public' and (created_at, id) < (${h.created_at}, ${h.id}::uuid)
    order by created_at desc, id desc limit ${PAGE}`;
  const [{ n: emptyTotals }] = await probe<{ n: string }[]>`select count(*) as n from campaign_totals where campaign_id = ${after[0].id}`;
  if (Number(emptyTotals) > 0) throw new Error('the campaign after the hot one has donations');
  const [stats] = await probe<{ donations: string; donors: string; shards: string }[]>`
    select (select count(*) from donations where campaign_id = ${h.id} and status = 'succeeded') as donations,
           (select count(*) from campaign_donors where campaign_id = ${h.id} and gifts > 0) as donors,
           (select count(*) from campaign_totals where campaign_id = ${h.id}) as shards`;
  const keepOut = [before.id, h.id, ...after.map((r) => r.id)];
  const writable = (
    await probe<{ id: string }[]>`
      select id from campaigns where audience = 'public' and action_mode <> 'support' and id <> all(${keepOut}::uuid[])
      order by random() limit ${2 * WRITE_CAMPAIGNS + 2}`
  ).map((r) => r.id);
  if (writable.length < 2 * WRITE_CAMPAIGNS + 2) throw new Error('not enough campaigns that take donations');
  return {
    hot: h.id,
    empty: after[0].id,
    hotPage: encodeCursor({ createdAt: before.created_at, id: before.id }),
    emptyPage: encodeCursor({ createdAt: h.created_at, id: h.id }),
    hotDonations: Number(stats.donations),
    hotDonors: Number(stats.donors),
    hotShards: Number(stats.shards),
    currency: h.currency,
    appSpread: writable.slice(0, WRITE_CAMPAIGNS),
    appOne: writable[WRITE_CAMPAIGNS],
    rawSpread: writable.slice(WRITE_CAMPAIGNS + 1, 2 * WRITE_CAMPAIGNS + 1),
    rawOne: writable[2 * WRITE_CAMPAIGNS + 1],
  };
}

// ---------------------------------------------------------------------------------------------
// load
// ---------------------------------------------------------------------------------------------

/**
 * Each call the next donation request: a guest (a new email each time) gives a preset amount by
 * the test card that succeeds, to the next campaign of `campaignIds`, with a new Idempotency-Key.
 */
export function donationRequests(tag: string, campaignIds: string[], pathOf: (id: string) => string) {
  let n = 0;
  return () => {
    n++;
    const key = `bench-${tag}-${n}`;
    return {
      method: 'POST' as const,
      path: pathOf(campaignIds[n % campaignIds.length]),
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ amount: AMOUNTS[n % AMOUNTS.length], email: `${key}@donors.example.com`, card: TEST_CARDS.succeeds }),
    };
  };
}

type DonationRequest = ReturnType<ReturnType<typeof donationRequests>>;

/**
 * Sends one request (keep-alive agent) and answers its status, body and time in ms. A GET sent on
 * a kept-alive connection the server closed at that moment (ECONNRESET on a reused socket) is sent
 * again once, on a new connection, as browsers do: Node's documented pattern for that race.
 */
export function send(
  agent: http.Agent,
  base: string,
  r: { method?: string; path: string; headers?: Record<string, string>; body?: string },
  retried = false,
): Promise<{ status: number; body: string; ms: number }> {
  return new Promise<{ status: number; body: string; ms: number }>((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(`${base}${r.path}`, { agent, method: r.method ?? 'GET', headers: r.headers, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), ms: performance.now() - t0 }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within 10 s: ${r.path}`)));
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (!retried && req.reusedSocket && err.code === 'ECONNRESET' && (r.method ?? 'GET') === 'GET') send(agent, base, r, true).then(resolve, reject);
      else reject(err);
    });
    req.end(r.body);
  });
}

interface Alternated {
  samples: number[][];
  bad: number;
  seconds: number;
}

/** One keep-alive connection, each request sent when the last is answered, alternating between the paths: the same moments of the machine for each. */
async function alternate(base: string, paths: string[], seconds: number): Promise<Alternated> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[][] = paths.map(() => []);
  let bad = 0;
  const started = performance.now();
  try {
    for (let i = 0; performance.now() - started < seconds * 1000; i++) {
      const k = i % paths.length;
      const r = await send(agent, base, { path: paths[k] });
      if (r.status !== 200) bad++;
      samples[k].push(r.ms);
    }
  } finally {
    agent.destroy();
  }
  for (const s of samples) s.sort((a, b) => a - b);
  return { samples, bad, seconds: (performance.now() - started) / 1000 };
}

/**
 * Samples, every 100 ms until stopped, what the server's PostgreSQL backends are doing: how many
 * run a statement, and how many of those wait for a lock (a row another transaction holds): where
 * donations to one campaign would queue on one row.
 */
function lockSampler(probe: postgres.Sql, appName: string) {
  let active = 0;
  let waiting = 0;
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const [r] = await probe<{ active: number; waiting: number }[]>`
        select count(*) filter (where state = 'active')::int as active,
               count(*) filter (where state = 'active' and wait_event_type = 'Lock')::int as waiting
        from pg_stat_activity where datname = current_database() and application_name = ${appName}`;
      active += r.active;
      waiting += r.waiting;
      samples++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return { samples, active: active / Math.max(1, samples), waiting: waiting / Math.max(1, samples) };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// profile: a proxy that reads the PostgreSQL protocol
// ---------------------------------------------------------------------------------------------

interface RoundTrip {
  /** The statements the client sent before this Sync (empty: a Parse/Describe of a new prepared statement). */
  texts: string[];
  /** Parse messages among them: statements PostgreSQL parses and plans anew (unnamed ones each time, named ones once per connection). */
  parses: number;
  ms: number;
}

/**
 * A TCP proxy in front of PostgreSQL that reads what clients send (extended protocol: Parse keeps
 * a statement's text by name, Bind picks it, Execute runs it, Sync ends a round trip; simple
 * Query is one round trip) and times each round trip from the client's Sync (or Query) until the
 * server's ReadyForQuery. `trips()` are the round trips completed since `reset()`, in order.
 */
export async function startCountingProxy(databaseUrl: string) {
  const target = new URL(databaseUrl);
  const trips: RoundTrip[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const names = new Map<string, string>();
    let bound = '';
    let batch: string[] = [];
    let parses = 0;
    const waiting: { at: number; texts: string[]; parses: number }[] = [];
    let startup = true;
    let skipServerBytes = 0;
    let cbuf: Buffer = Buffer.alloc(0);
    let sbuf: Buffer = Buffer.alloc(0);
    const cstr = (b: Buffer, from: number) => {
      const end = b.indexOf(0, from);
      return { s: b.toString('utf8', from, end), next: end + 1 };
    };
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      cbuf = cbuf.length ? Buffer.concat([cbuf, chunk]) : chunk;
      for (;;) {
        if (startup) {
          if (cbuf.length < 8) break;
          const len = cbuf.readInt32BE(0);
          if (cbuf.length < len) break;
          const code = cbuf.readInt32BE(4);
          cbuf = cbuf.subarray(len);
          // SSLRequest / GSSENCRequest: the server answers one byte, and the startup message follows
          if (code === 80877103 || code === 80877104) skipServerBytes++;
          else startup = false;
          continue;
        }
        if (cbuf.length < 5) break;
        const type = String.fromCharCode(cbuf[0]);
        const len = cbuf.readInt32BE(1);
        if (cbuf.length < 1 + len) break;
        const body = cbuf.subarray(5, 1 + len);
        cbuf = cbuf.subarray(1 + len);
        if (type === 'P') {
          const name = cstr(body, 0);
          names.set(name.s, cstr(body, name.next).s);
          parses++;
        } else if (type === 'B') {
          const portal = cstr(body, 0);
          bound = names.get(cstr(body, portal.next).s) ?? '?';
        } else if (type === 'E') batch.push(bound);
        else if (type === 'S') {
          waiting.push({ at: performance.now(), texts: batch, parses });
          batch = [];
          parses = 0;
        } else if (type === 'Q') waiting.push({ at: performance.now(), texts: [cstr(body, 0).s], parses: 0 });
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      let b: Buffer = sbuf.length ? Buffer.concat([sbuf, chunk]) : chunk;
      while (skipServerBytes > 0 && b.length > 0) {
        b = b.subarray(1);
        skipServerBytes--;
      }
      for (;;) {
        if (b.length < 5) break;
        const len = b.readInt32BE(1);
        if (b.length < 1 + len) break;
        if (b[0] === 0x5a /* Z */) {
          const w = waiting.shift();
          if (w) trips.push({ texts: w.texts, parses: w.parses, ms: performance.now() - w.at });
        }
        b = b.subarray(1 + len);
      }
      sbuf = b;
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    reset: () => {
      trips.length = 0;
    },
    trips: () => [...trips],
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A statement's text in a few words: what it does, to which table, by which columns. */
export function statementLabel(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim().toLowerCase();
  if (!t) return '(prepare a new statement)';
  const first = t.split(' ')[0];
  if (['begin', 'commit', 'rollback'].includes(first)) return first;
  const where = (s: string) => {
    const cols = [...new Set([...s.replace(/.*? where /, '').matchAll(/"?(?:\w+"?\.)?"?(\w+)"? (?:=|<>|is|in)/g)].map((m) => m[1]))];
    return / where /.test(s) && cols.length ? ` by ${cols.join(', ')}` : '';
  };
  // a statement of data-modifying CTEs: what it writes, in order
  if (first === 'with') {
    const writes = [...t.matchAll(/(?<!do )\b(insert into|update|delete from) "?(\w+)"?/g)].map((w) => `${w[1].split(' ')[0]} ${w[2]}`);
    return writes.length ? `with: ${[...new Set(writes)].join(', ')}` : `with: ${t.replace(/^with .*?\) select /, 'select ').slice(0, 50)}`;
  }
  let m = t.match(/^insert into "?(\w+)"?/);
  if (m)
    return `insert ${m[1]}${/on conflict .* do update/.test(t) ? ' (upsert)' : /on conflict do nothing/.test(t) ? ' (on conflict do nothing)' : ''}${/\) values \(.*\), \(/.test(t) ? ', 2 rows' : ''}`;
  m = t.match(/^update "?(\w+)"? set (.*?) where (.*)$/);
  if (m) {
    const set = [...m[2].matchAll(/"(\w+)" =/g)].map((x) => x[1]);
    return `update ${m[1]} set ${set.slice(0, 3).join(', ')}${set.length > 3 ? ', ...' : ''}${where(` where ${m[3]}`)}`;
  }
  m = t.match(/^select .*? from "?(\w+)"?/);
  if (m) return `select ${m[1]}${where(t)}`;
  return t.slice(0, 60);
}

export interface Profile {
  requests: number;
  /** Per request: statements (Executes and simple Queries), round trips (Syncs and Queries), PostgreSQL's time (ms). */
  statements: number;
  roundTrips: number;
  dbMs: number;
  /** Whole request time seen by the client, mean (ms). */
  requestMs: number;
  /** Write transactions per request: explicit ones plus writes outside them (each a WAL flush at commit). */
  commits: number;
  /** Statements per request that PostgreSQL parsed and planned anew (extended-protocol Parse). */
  parses: number;
  /** One request's round trips in order (the median by PostgreSQL time), each with its statements and time. */
  sequence: { label: string; ms: number; inTx: boolean }[];
  /** Per statement label: count per request and mean ms of its round trip. */
  byLabel: { label: string; perRequest: number; ms: number }[];
}

/** Sends PROFILE_WARMUP then PROFILE_REQUESTS donations one after another through a server whose database connections go through `proxy`. */
async function profileDonations(base: string, next: () => DonationRequest, proxy: Awaited<ReturnType<typeof startCountingProxy>>): Promise<Profile> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const perRequest: RoundTrip[][] = [];
  let requestMs = 0;
  try {
    for (let i = 0; i < PROFILE_WARMUP; i++) {
      const r = await send(agent, base, next());
      if (r.status !== 201) throw new Error(`profile: a donation answered ${r.status}: ${r.body.slice(0, 300)}`);
    }
    for (let i = 0; i < PROFILE_REQUESTS; i++) {
      // the answer can come before a server's last statements end (email after the answer): settle first
      await new Promise((r) => setTimeout(r, 5));
      proxy.reset();
      const r = await send(agent, base, next());
      if (r.status !== 201) throw new Error(`profile: a donation answered ${r.status}: ${r.body.slice(0, 300)}`);
      requestMs += r.ms;
      await new Promise((r) => setTimeout(r, 5));
      perRequest.push(proxy.trips());
    }
  } finally {
    agent.destroy();
  }
  const n = perRequest.length;
  const dbOf = (trips: RoundTrip[]) => trips.reduce((s, t) => s + t.ms, 0);
  const byLabel = new Map<string, { count: number; ms: number }>();
  let statements = 0;
  let roundTrips = 0;
  let dbMs = 0;
  let commits = 0;
  let parses = 0;
  for (const trips of perRequest) {
    roundTrips += trips.length;
    parses += trips.reduce((s, t) => s + t.parses, 0);
    dbMs += dbOf(trips);
    let inTx = false;
    for (const t of trips) {
      const labels = t.texts.length ? t.texts.map(statementLabel) : [statementLabel('')];
      statements += t.texts.length;
      for (const l of labels) {
        const e = byLabel.get(l) ?? { count: 0, ms: 0 };
        e.count++;
        e.ms += t.ms / labels.length;
        byLabel.set(l, e);
        if (l === 'begin') inTx = true;
        else if (l === 'commit' || l === 'rollback') {
          inTx = false;
          if (l === 'commit') commits++;
        } else if (!inTx && /^(with: )?(insert|update|delete)/.test(l)) commits++;
      }
    }
  }
  const sorted = [...perRequest].sort((a, b) => dbOf(a) - dbOf(b));
  const median = sorted[Math.floor(sorted.length / 2)] ?? [];
  const sequence: Profile['sequence'] = [];
  let inTx = false;
  for (const t of median) {
    const labels = t.texts.length ? t.texts.map(statementLabel) : [statementLabel('')];
    for (const l of labels) {
      if (l === 'begin') inTx = true;
      sequence.push({ label: l, ms: t.ms / labels.length, inTx });
      if (l === 'commit' || l === 'rollback') inTx = false;
    }
  }
  return {
    requests: n,
    statements: statements / n,
    roundTrips: roundTrips / n,
    dbMs: dbMs / n,
    requestMs: requestMs / n,
    commits: commits / n,
    parses: parses / n,
    sequence,
    byLabel: [...byLabel.entries()].map(([label, e]) => ({ label, perRequest: e.count / n, ms: e.ms / e.count })),
  };
}

// ---------------------------------------------------------------------------------------------
// the part itself
// ---------------------------------------------------------------------------------------------

export interface DonationTools {
  measure(s: Scenario, meter: CpuMeter, run: { connections: number; duration: number; warmup: number }): Promise<Measured>;
  /** Load (closed loop, autocannon): every response's time, and the counts. */
  load(s: Scenario, duration: number, connections: number): Promise<LoadResult>;
  /** Cores other processes used between two snapshots, and the clock ticks per second of the CPU counters. */
  otherCores(a: CpuSnapshot, b: CpuSnapshot): number;
  ticksPerSecond: number;
  waitForQuiet(meter: CpuMeter): Promise<number>;
  /** The app as `npm start` runs it, with these settings over the bench's. */
  startApp(settings: NodeJS.ProcessEnv): Promise<{ child: Child; base: string; meter: CpuMeter }>;
  /** Another baseline server on this database URL. */
  startRaw(databaseUrl: string, appName: string): Promise<{ child: Child; base: string }>;
  stopChild(c: Child): Promise<void>;
}

const DONATIONS_HEADING = '## Donations: writes, and reads at 1,000,000 donations';

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] : NaN);
const thousands = (n: number) => n.toLocaleString('en-US');

export async function benchDonations(
  o: Options,
  ctx: {
    tools: DonationTools;
    probe: postgres.Sql;
    benchUrl: string;
    rawBase: string;
    dataDir: string;
    env: { pgVersion: string; sharedBuffers: string };
    docs: string;
    docsHeader: string;
  },
): Promise<void> {
  const { tools, probe, rawBase } = ctx;
  const t = await findDonationTargets(probe);
  // ten connections stand for ten donors, but come from one address: the per-address limit is
  // off (as for the lists), the write budgets too (a donor may try 10 an hour)
  const settings: NodeJS.ProcessEnv = {
    CLIENT_CONCURRENCY: '0',
    CLIENT_RATE: '0',
    WRITE_LIMITS: 'off',
    RATE_LIMIT_PER_MINUTE: '0',
    DATA_DIR: ctx.dataDir,
    // the built-in sandbox provider and the outbox, whatever the environment says
    SMTP_URL: undefined,
    STRIPE_SECRET_KEY: undefined,
    STRIPE_WEBHOOK_SECRET: undefined,
  };
  let app = await tools.startApp(settings);
  const run = randomBytes(4).toString('hex');
  const appPath = (id: string) => `/api/campaigns/${id}/donations`;
  const rawPath = (id: string) => `/raw/campaigns/${id}/donations`;
  const scenario = (key: string, label: string, server: 'app' | 'raw', ids: string[]): Scenario => {
    const base = server === 'app' ? app.base : rawBase;
    const pathOf = server === 'app' ? appPath : rawPath;
    return { key, label, url: `${base}${pathOf(ids[0])}`, server, request: donationRequests(`${run}-${key}`, ids, pathOf) };
  };
  const scenarios: Scenario[] = [
    scenario('app-spread', `app, ${thousands(WRITE_CAMPAIGNS)} campaigns in turn`, 'app', t.appSpread),
    scenario('raw-spread', `raw baseline, ${thousands(WRITE_CAMPAIGNS)} campaigns in turn`, 'raw', t.rawSpread),
    scenario('app-one', 'app, all to one campaign', 'app', [t.appOne]),
    scenario('raw-one', 'raw baseline, all to one campaign', 'raw', [t.rawOne]),
  ];
  // one request each first: the answers must be right before they are timed
  const agent = new http.Agent({ keepAlive: true });
  for (const s of scenarios) {
    const r = await send(agent, s.server === 'app' ? app.base : rawBase, s.request!());
    if (r.status !== 201) throw new Error(`${s.label}: answered ${r.status}: ${r.body.slice(0, 300)}`);
    const body = JSON.parse(r.body) as { status?: string };
    if (body.status !== 'succeeded') throw new Error(`${s.label}: the donation is ${body.status}, not succeeded`);
  }
  agent.destroy();

  const main = { connections: o.connections, duration: o.duration, warmup: o.warmup };
  process.stdout.write(`\nDonations: warming both servers up on every scenario (${o.warmup} s each)...`);
  for (const s of scenarios) await tools.load(s, o.warmup, o.connections);
  console.log(' done');
  // in WRITE_ROUNDS rounds, each scenario for a slice of the duration in turn: a change in what
  // else runs on the machine falls on every scenario alike (the ratios are what the targets judge)
  const slice = main.duration / WRITE_ROUNDS;
  console.log(`\nDonations, ${o.connections} connections, ${WRITE_ROUNDS} rounds of ${fmt(slice)} s per scenario:`);
  interface Acc {
    samples: number[];
    total: number;
    seconds: number;
    bad: number;
    timeouts: number;
    serverTicks: number;
    pgTicks: number;
    other: number[];
    active: number;
    waiting: number;
  }
  const acc = new Map<string, Acc>(
    scenarios.map((s) => [s.key, { samples: [], total: 0, seconds: 0, bad: 0, timeouts: 0, serverTicks: 0, pgTicks: 0, other: [], active: 0, waiting: 0 }]),
  );
  for (let round = 0; round < WRITE_ROUNDS; round++) {
    await tools.waitForQuiet(app.meter);
    for (const s of scenarios) {
      const a = acc.get(s.key)!;
      const sampler = lockSampler(probe, s.server === 'app' ? 'kindling-bench-app' : 'kindling-bench-raw');
      const before = await app.meter.snapshot();
      const r = await tools.load(s, slice, o.connections);
      const after = await app.meter.snapshot();
      const locked = await sampler.stop();
      a.samples.push(...r.samples);
      a.total += r.total;
      a.seconds += r.seconds;
      a.bad += r.bad;
      a.timeouts += r.timeouts;
      a.serverTicks += s.server === 'app' ? after.app - before.app : after.raw - before.raw;
      a.pgTicks += s.server === 'app' ? after.pgApp - before.pgApp : after.pgRaw - before.pgRaw;
      a.other.push(tools.otherCores(before, after));
      a.active += locked.active / WRITE_ROUNDS;
      a.waiting += locked.waiting / WRITE_ROUNDS;
      process.stdout.write(
        `  round ${round + 1}: ${s.label.padEnd(40)} ${(r.total / r.seconds).toFixed(0).padStart(6)} req/s  (others: ${tools.otherCores(before, after).toFixed(1)} cores)\n`,
      );
    }
  }
  const writes: Measured[] = scenarios.map((s) => {
    const a = acc.get(s.key)!;
    a.samples.sort((x, y) => x - y);
    const n = Math.max(1, a.total);
    const ms = (ticks: number) => ((ticks / tools.ticksPerSecond) * 1000) / n;
    return {
      key: s.key,
      label: s.label,
      rps: a.total / a.seconds,
      p50: pct(a.samples, 0.5),
      p95: pct(a.samples, 0.95),
      p99: pct(a.samples, 0.99),
      requests: a.total,
      bad: a.bad,
      timeouts: a.timeouts,
      serverCpu: ms(a.serverTicks),
      pgCpu: ms(a.pgTicks),
      otherLoad: Math.max(...a.other),
    };
  });
  const locks = Object.fromEntries([...acc].map(([k, a]) => [k, { active: a.active, waiting: a.waiting }]));
  // which shard of campaign_totals each server's connections write (pg_backend_pid() % 16)
  const shards = await probe<{ app: string; shards: number; connections: number }[]>`
    select application_name as app, count(distinct pid % 16)::int as shards, count(*)::int as connections
    from pg_stat_activity where datname = current_database() and application_name in ('kindling-bench-app', 'kindling-bench-raw')
    group by 1`;
  const single = { connections: 1, duration: Math.min(5, o.duration), warmup: 1 };
  console.log(`\nDonations, one connection (${single.warmup} s warm-up + ${single.duration} s each):`);
  const singles: Measured[] = [];
  for (const s of scenarios.filter((x) => x.key.endsWith('spread'))) singles.push(await tools.measure(s, app.meter, single));

  // every donation of this run succeeded, and the totals still equal the ledger where the app wrote
  const [states] = await probe<{ succeeded: string; other: string }[]>`
    select count(*) filter (where status = 'succeeded') as succeeded, count(*) filter (where status <> 'succeeded') as other
    from donations where idempotency_key like ${`bench-${run}-%`}`;
  const off = await campaignsOffTheLedger(probe, [...t.appSpread, t.appOne, ...t.rawSpread, t.rawOne]);
  if (off.length) throw new Error(`after the writes, ${off.length} campaigns' totals differ from their ledger (${off.slice(0, 3).join(', ')})`);
  if (Number(states.other) > 0) throw new Error(`${states.other} donations of this run are not succeeded`);
  const [{ n: oneCount }] = await probe<
    { n: string }[]
  >`select count(*) as n from donations where campaign_id = ${t.appOne} and idempotency_key like ${`bench-${run}-%`}`;

  // --- reads: the hot campaign next to one with none, alternating request by request
  const detail = [`/api/campaigns/${t.hot}`, `/api/campaigns/${t.empty}`];
  const pages = [`/api/campaigns?cursor=${t.hotPage}`, `/api/campaigns?cursor=${t.emptyPage}`];
  const firstOf = async (p: string) => {
    const res = await fetch(`${app.base}${p}`);
    if (!res.ok) throw new Error(`${p} answered ${res.status}`);
    return (await res.json()) as { _id?: string; items?: { _id: string; totalRaised?: number; donors?: number }[]; totalRaised?: number; donors?: number };
  };
  const [hotDetail, emptyDetail, hotPage, emptyPage] = await Promise.all([...detail, ...pages].map(firstOf));
  if (hotPage.items?.[0]?._id !== t.hot || emptyPage.items?.[0]?._id !== t.empty)
    throw new Error('the two list pages do not start with the hot campaign and the next one');
  if (!hotDetail.totalRaised || !hotDetail.donors || emptyDetail.totalRaised !== 0)
    throw new Error('the hot campaign shows no money, or the other one shows some');
  const readSeconds = Math.max(2, o.duration);
  console.log(`\nReads, one connection, alternating (${o.warmup} s warm-up + ${readSeconds} s each pair):`);
  const reads: { what: string; hot: number[]; empty: number[] }[] = [];
  for (const [what, paths] of [
    ['campaign detail', detail],
    ['list page (20 campaigns, by cursor)', pages],
  ] as const) {
    await tools.waitForQuiet(app.meter);
    await alternate(app.base, [...paths], o.warmup);
    const r = await alternate(app.base, [...paths], readSeconds);
    if (r.bad) throw new Error(`${what}: ${r.bad} requests failed`);
    reads.push({ what, hot: r.samples[0], empty: r.samples[1] });
    console.log(
      `  ${what.padEnd(40)} ${thousands(HOT_DONATIONS)} donations: p50 ${fmt(pct(r.samples[0], 0.5), 2)} p95 ${fmt(pct(r.samples[0], 0.95), 2)} ms;` +
        ` none: p50 ${fmt(pct(r.samples[1], 0.5), 2)} p95 ${fmt(pct(r.samples[1], 0.95), 2)} ms`,
    );
  }
  await tools.stopChild(app.child);

  // --- profile: statements and round trips per donation, through a proxy that reads the protocol
  console.log(`\nProfile: ${PROFILE_REQUESTS} donations one after another (after ${PROFILE_WARMUP}), through a proxy that counts statements...`);
  const proxy = await startCountingProxy(ctx.benchUrl);
  let profiles: { app: Profile; raw: Profile };
  try {
    app = await tools.startApp({ ...settings, DATABASE_URL: proxy.url, PGAPPNAME: 'kindling-bench-profile' });
    const appProfile = await profileDonations(app.base, donationRequests(`${run}-profile`, t.appSpread, appPath), proxy);
    await tools.stopChild(app.child);
    const raw = await tools.startRaw(proxy.url, 'kindling-bench-profile');
    const rawProfile = await profileDonations(raw.base, donationRequests(`${run}-raw-profile`, t.rawSpread, rawPath), proxy);
    await tools.stopChild(raw.child);
    profiles = { app: appProfile, raw: rawProfile };
  } finally {
    await proxy.close();
  }
  for (const [who, p] of Object.entries(profiles)) {
    console.log(
      `  ${who}: ${fmt(p.statements)} statements (${fmt(p.parses)} parsed and planned anew), ${fmt(p.roundTrips)} round trips, ${fmt(p.commits)} write commits per donation; ` +
        `PostgreSQL ${fmt(p.dbMs, 2)} ms of ${fmt(p.requestMs, 2)} ms per request`,
    );
    for (const s of p.sequence) console.log(`    ${s.inTx ? '  ' : ''}${s.label} (${fmt(s.ms, 2)} ms)`);
  }

  // --- report
  const by = (k: string) => writes.find((m) => m.key === k)!;
  const ratio = by('app-spread').rps / by('raw-spread').rps;
  const cpuOf = (m: Measured) => m.serverCpu + m.pgCpu;
  const ratioCpu = cpuOf(by('raw-spread')) / cpuOf(by('app-spread'));
  const hotRatio = by('app-one').rps / by('app-spread').rps;
  const rawHotRatio = by('raw-one').rps / by('raw-spread').rps;
  const readRatios = reads.map((r) => pct(r.hot, 0.95) / pct(r.empty, 0.95));
  const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
  const shardOf = (a: string) => shards.find((s) => s.app === a);
  const shardLine = (a: string, who: string) => {
    const s = shardOf(a);
    return s ? `${who}'s ${s.connections} connections on ${s.shards} of the 16 shards` : `${who}: no connections seen`;
  };
  const others = writes.concat(singles).map((m) => m.otherLoad);
  const writeRow = (m: Measured, ratioText: string) =>
    `| ${m.label} | ${m.rps.toFixed(0)} | ${fmt(m.p50)} | ${fmt(m.p95)} | ${fmt(m.p99)} | ${fmt(m.serverCpu, 2)} | ${fmt(m.pgCpu, 2)} | ${ratioText}` +
    `${m.timeouts ? ` (${m.timeouts} timed out)` : ''}${m.bad ? ` (${m.bad} failed)` : ''} |`;
  const profileTable = () => {
    const labels = [...new Set([...profiles.app.byLabel.map((b) => b.label), ...profiles.raw.byLabel.map((b) => b.label)])];
    const get = (p: Profile, l: string) => p.byLabel.find((b) => b.label === l);
    return [
      '| statement | app, per donation | app, ms each | raw, per donation | raw, ms each |',
      '|---|---:|---:|---:|---:|',
      ...labels.map((l) => {
        const a = get(profiles.app, l);
        const r = get(profiles.raw, l);
        return `| ${l} | ${a ? fmt(a.perRequest, 2) : '-'} | ${a ? fmt(a.ms, 2) : '-'} | ${r ? fmt(r.perRequest, 2) : '-'} | ${r ? fmt(r.ms, 2) : '-'} |`;
      }),
      `| **all: statements / round trips / write commits** | **${fmt(profiles.app.statements)} / ${fmt(profiles.app.roundTrips)} / ${fmt(profiles.app.commits)}** | | **${fmt(profiles.raw.statements)} / ${fmt(profiles.raw.roundTrips)} / ${fmt(profiles.raw.commits)}** | |`,
      `| **statements parsed and planned anew** | **${fmt(profiles.app.parses)}** | | **${fmt(profiles.raw.parses)}** | |`,
      `| **PostgreSQL's time / whole request (through the proxy), ms** | **${fmt(profiles.app.dbMs, 2)} / ${fmt(profiles.app.requestMs, 2)}** | | **${fmt(profiles.raw.dbMs, 2)} / ${fmt(profiles.raw.requestMs, 2)}** | |`,
    ].join('\n');
  };
  const body = [
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ` +
      `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory; Node ${process.version}; PostgreSQL ${ctx.env.pgVersion} (shared_buffers ${ctx.env.sharedBuffers}), same machine; ` +
      `${thousands(o.campaigns)} campaigns.`,
    `Other processes on the machine used ${Math.min(...others).toFixed(1)}-${Math.max(...others).toFixed(1)} cores during the writes` +
      `${Math.max(...others) >= 0.3 ? ' (the numbers are disturbed by that much)' : ''}.`,
    '',
    `**Writes.** Guests (a new email each request) give 10, 25, 50 or 100 (in the campaign's currency) by the test card that succeeds, each request with a new Idempotency-Key; ` +
      `the app answers 201 with the donation succeeded. ${o.connections} connections, pipelining 1, ${main.warmup} s warm-up each, then ${WRITE_ROUNDS} rounds of ${fmt(slice)} s per scenario in turn ` +
      '(CPU columns: milliseconds of CPU per donation of the answering server and of its PostgreSQL backends):',
    '',
    '| scenario | req/s | p50 ms | p95 ms | p99 ms | server CPU ms/req | PG CPU ms/req | ratio |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
    writeRow(by('app-spread'), `app/raw ${fmt(ratio, 2)}`),
    writeRow(by('raw-spread'), ''),
    writeRow(by('app-one'), `one/spread ${fmt(hotRatio, 2)}`),
    writeRow(by('raw-one'), `one/spread ${fmt(rawHotRatio, 2)}`),
    '',
    `One connection (${single.warmup} s warm-up + ${single.duration} s each): a donation's time without queueing.`,
    '',
    '| scenario | req/s | p50 ms | p95 ms | p99 ms |',
    '|---|---:|---:|---:|---:|',
    ...singles.map((m) => `| ${m.label} | ${m.rps.toFixed(0)} | ${fmt(m.p50)} | ${fmt(m.p95)} | ${fmt(m.p99)} |`),
    '',
    `Shards of campaign_totals in use (pg_backend_pid() % 16): ${shardLine('kindling-bench-app', 'the app')}, ${shardLine('kindling-bench-raw', 'the baseline')}. ` +
      `PostgreSQL backends running a statement, on average (every 100 ms, from pg_stat_activity), and of them waiting for a lock: ` +
      scenarios.map((s) => `${s.label} ${fmt(locks[s.key].active)} (${fmt(locks[s.key].waiting, 2)})`).join('; ') +
      '. ' +
      `Checked after the writes: all ${thousands(Number(states.succeeded))} donations of the run succeeded (${thousands(Number(oneCount))} of them to the one campaign), ` +
      `and for every campaign written to, campaign_totals equals the ledger's sum and its donor rows.`,
    '',
    `**Reads.** One campaign has ${thousands(t.hotDonations)} succeeded donations (${thousands(t.hotDonors)} donors; ${t.hotShards} rows of campaign_totals); ` +
      'the next campaign in the list has none. Detail: `GET /api/campaigns/{id}` of each. List: the page of 20 (`?cursor=`) that starts with the hot campaign, ' +
      'and the page that starts one row later (with the campaign of none): 19 rows are on both. Anonymous, one connection, the two requests alternating ' +
      `(${o.warmup} s warm-up + ${readSeconds} s for each pair):`,
    '',
    `| request | ${thousands(HOT_DONATIONS)} donations: p50 ms | p95 ms | p99 ms | none: p50 ms | p95 ms | p99 ms | p95 ratio |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...reads.map(
      (r, i) =>
        `| ${r.what} | ${fmt(pct(r.hot, 0.5), 2)} | ${fmt(pct(r.hot, 0.95), 2)} | ${fmt(pct(r.hot, 0.99), 2)} | ` +
        `${fmt(pct(r.empty, 0.5), 2)} | ${fmt(pct(r.empty, 0.95), 2)} | ${fmt(pct(r.empty, 0.99), 2)} | ${fmt(readRatios[i], 2)} |`,
    ),
    '',
    `**Profile.** ${PROFILE_REQUESTS} donations one after another (after ${PROFILE_WARMUP}) from a second instance of each server whose database connections go ` +
      'through a proxy that reads the PostgreSQL protocol: each statement (Execute, or a simple Query), each round trip (Sync) and the time from the round ' +
      'trip\'s Sync to PostgreSQL\'s ReadyForQuery. "Write commits": transactions that write (explicit ones, and writes outside them), each a WAL flush. ' +
      '"Parsed and planned anew": Parse messages, sent for an unnamed statement every time and for a named (prepared) one once per connection.',
    '',
    profileTable(),
    '',
    `The app's donation in order (the request of median PostgreSQL time; [ ]: a transaction): ` +
      profiles.app.sequence.map((s) => (s.label === 'begin' ? '[begin' : s.label === 'commit' || s.label === 'rollback' ? `${s.label}]` : s.label)).join('; ') +
      '.',
    '',
    `Targets: app / raw, ${o.connections} connections over ${thousands(WRITE_CAMPAIGNS)} campaigns: ${fmt(ratio, 2)} in req/s (>= 0.7: ${verdict(ratio >= 0.7)}), ` +
      `${fmt(ratioCpu, 2)} by CPU per donation. One campaign / spread, app: ${fmt(hotRatio, 2)} (>= 0.8: ${verdict(hotRatio >= 0.8)}; the baseline: ${fmt(rawHotRatio, 2)}). ` +
      `Reads at ${thousands(HOT_DONATIONS)} donations / none, p95 with one connection: detail ${fmt(readRatios[0], 2)} (<= 1.2: ${verdict(readRatios[0] <= 1.2)}), ` +
      `list page ${fmt(readRatios[1], 2)} (<= 1.2: ${verdict(readRatios[1] <= 1.2)}).`,
  ].join('\n');
  console.log(`\n${body}`);
  writeDocsSection(ctx.docs, ctx.docsHeader, { heading: DONATIONS_HEADING, name: 'donations' }, body);
  console.log(`\nWrote the donations results to ${ctx.docs.replace(/^.*\/docs\//, 'docs/')}.`);
  if (writes.concat(singles).some((m) => m.bad || m.timeouts)) process.exitCode = 1;
}

/** The generated part of the donations section (under its hand-written heading and reading); added at the end the first time. */
