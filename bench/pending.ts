import http from 'node:http';
import type postgres from 'postgres';
import { writeDocsSection } from './docs-section';
import type { Options } from './run';
import { VOCABULARY } from './vocabulary';

/**
 * The pending part of `npm run bench` (`--only pending`): searches while new campaigns wait to be
 * merged into the search indexes.
 *
 * A GIN index with PostgreSQL's default `fastupdate = on` keeps a new row's entries in an unsorted
 * pending list, which every search reads whole until a vacuum or analyze merges it (or the list
 * passes gin_pending_list_limit, 4 MB). Migration 0033 turns it off for every GIN index
 * (src/server/db/schema/columns.ts GIN_NO_PENDING). This part measures the same searches through
 * the app before and after new campaigns are written (before any vacuum merges them), with the
 * search indexes as migrated (off) and, for comparison, switched back to on. The new campaigns are
 * copies of random existing ones, dated now, inserted in 100-row statements; afterwards they are
 * deleted, the setting put back, the pending list merged (gin_clean_pending_list), the table's and
 * its sort keys' indexes rebuilt and the table vacuumed, so the database is as it was (but for the
 * pgstattuple extension, created when the bench's role may, to count what is pending).
 */

/** New campaigns written before the second measurement: about 3 % of the bench's 100,000. */
const NEW_CAMPAIGNS = 3000;
/** Each search this many times per measurement. */
const REPEATS = 3;
/** The two settings take turns this many times: a change in the machine's other load falls on both alike. */
const ROUNDS = 3;
const INDEXES = ['campaigns_search_idx', 'campaigns_title_trgm_idx'];

export interface PendingBench {
  base: string;
  probe: postgres.Sql;
  env: { pgVersion: string; sharedBuffers: string };
  docs: string;
  docsHeader: string;
  machine: string;
}

interface Measured {
  mean: number;
  median: number;
  p95: number;
}

export async function benchPending(o: Options, b: PendingBench): Promise<void> {
  // one word in four of the vocabulary (common to rare) and 40 pairs of them
  const words = VOCABULARY.filter((_, i) => i % 4 === 0);
  const queries = [...words, ...words.slice(0, 40).map((w, i) => `${w} ${words[(i * 7 + 3) % words.length]}`)];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (q: string) =>
    new Promise<void>((resolve, reject) => {
      http
        .get(`${b.base}/api/campaigns?q=${encodeURIComponent(q)}`, { agent }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`search "${q}" answered ${res.statusCode}`))));
        })
        .on('error', reject);
    });
  /** Every search REPEATS times, one at a time, after one round unmeasured: the times in ms. */
  const measure = async (): Promise<number[]> => {
    for (const q of queries) await get(q);
    const times: number[] = [];
    for (let r = 0; r < REPEATS; r++)
      for (const q of queries) {
        const t = performance.now();
        await get(q);
        times.push(performance.now() - t);
      }
    return times;
  };
  const summary = (times: number[]): Measured => {
    const sorted = [...times].sort((x, y) => x - y);
    return {
      mean: sorted.reduce((s, x) => s + x, 0) / sorted.length,
      median: sorted[sorted.length >> 1],
      p95: sorted[Math.floor(sorted.length * 0.95)],
    };
  };
  /** Entries waiting in the full-text index's pending list (pgstattuple, when it can be had). */
  const hasStattuple = await b.probe`create extension if not exists pgstattuple`.then(
    () => true,
    () => false,
  );
  const pendingTuples = async (): Promise<number | null> => {
    if (!hasStattuple) return null;
    const [r] = await b.probe<{ n: string }[]>`select pending_tuples::text as n from pgstatginindex('campaigns_search_idx')`;
    return Number(r.n);
  };
  const setFastupdate = async (on: boolean) => {
    for (const name of INDEXES) await b.probe.unsafe(`alter index ${name} set (fastupdate = ${on ? 'on' : 'off'})`);
  };
  const merge = async () => {
    for (const name of INDEXES) await b.probe`select gin_clean_pending_list(${name}::regclass)`;
    await b.probe`vacuum analyze campaigns`;
  };

  /** The searches before and after NEW_CAMPAIGNS new campaigns are written (then deleted again). */
  const run = async (on: boolean) => {
    const before = await measure();
    const ids: string[] = [];
    let insertMs = 0;
    let after: number[] | undefined;
    let waiting: number | null = null;
    try {
      const t = performance.now();
      for (let i = 0; ids.length < NEW_CAMPAIGNS && i < NEW_CAMPAIGNS; i++) {
        const r = await b.probe<
          { id: string }[]
        >`insert into campaigns (owner_id, title, description, tags, type, target_type, goal_amount, currency, action_mode, execution_date, released_at)
          select owner_id, title, description, tags, type, target_type, goal_amount, currency, action_mode, execution_date, released_at
          from campaigns tablesample bernoulli (1) repeatable (${i}) limit ${Math.min(100, NEW_CAMPAIGNS - ids.length)}
          returning id`;
        ids.push(...r.map((row) => row.id));
      }
      insertMs = (performance.now() - t) / Math.max(1, ids.length);
      after = await measure();
      waiting = await pendingTuples();
    } finally {
      await b.probe`delete from campaigns where id = any(${ids}::uuid[])`;
      await merge();
    }
    return { on, before, after, insertMs, inserted: ids.length, waiting };
  };

  console.log(
    `\nPending: ${queries.length} searches x${REPEATS}, one at a time through the app, before and after ${NEW_CAMPAIGNS.toLocaleString('en-US')} new campaigns, ${ROUNDS} rounds:`,
  );
  await merge();
  const runs: Awaited<ReturnType<typeof run>>[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const on of [false, true]) {
        await setFastupdate(on);
        const r = await run(on);
        runs.push(r);
        console.log(
          `  round ${round + 1}, fastupdate ${on ? 'on ' : 'off'}: mean ${summary(r.before).mean.toFixed(2)} -> ${summary(r.after).mean.toFixed(2)} ms (${r.inserted.toLocaleString('en-US')} new${r.waiting === null ? '' : `, ${r.waiting.toLocaleString('en-US')} entries pending`})`,
        );
      }
    }
  } finally {
    agent.destroy();
    await setFastupdate(false);
    await merge();
    // the rounds wrote and deleted thousands of campaigns: VACUUM frees the rows but leaves the
    // indexes larger (the search indexes by about 40 %), which would slow and swell what is
    // measured next on this database
    await b.probe`reindex table campaigns`;
    await b.probe`reindex table campaign_sort_keys`;
    await b.probe`vacuum analyze campaigns`;
  }
  const rows = [false, true].map((on) => {
    const mine = runs.filter((r) => r.on === on);
    return {
      label: on ? "fastupdate on (PostgreSQL's default)" : 'fastupdate off (as migrated)',
      before: summary(mine.flatMap((r) => r.before)),
      after: summary(mine.flatMap((r) => r.after)),
      insertMs: mine.reduce((s, r) => s + r.insertMs, 0) / mine.length,
      inserted: mine[0].inserted,
      waiting: mine[0].waiting,
    };
  });

  const f = (n: number, d = 2) => n.toFixed(d);
  const [off, on] = rows;
  const body = [
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${b.machine}; PostgreSQL ${b.env.pgVersion} (shared_buffers ${b.env.sharedBuffers}), same machine; ${o.campaigns.toLocaleString('en-US')} campaigns.`,
    '',
    `${queries.length} searches (one vocabulary word in four, and 40 pairs), each ${REPEATS} times, one at a time through \`GET /api/campaigns?q=\`, ` +
      `first with nothing new, then after ${off.inserted.toLocaleString('en-US')} new campaigns (copies of random ones dated now, written in 100-row statements) ` +
      'before any vacuum or analyze (deleted again afterwards). The campaign search indexes (`campaigns_search_idx`, ' +
      "`campaigns_title_trgm_idx`) as migrated (no pending list, migration 0033) and with PostgreSQL's default pending list. Times in ms from request to the end of the answer.",
    '',
    '| search indexes | nothing new: mean | median | p95 | with the new campaigns: mean | median | p95 | mean after / before | p95 after / before | entries pending | insert, ms per campaign |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.label} | ${f(r.before.mean)} | ${f(r.before.median)} | ${f(r.before.p95)} | ${f(r.after.mean)} | ${f(r.after.median)} | ${f(r.after.p95)} | ${f(r.after.mean / r.before.mean)} | ${f(r.after.p95 / r.before.p95)} | ${r.waiting === null ? '-' : r.waiting.toLocaleString('en-US')} | ${f(r.insertMs, 3)} |`,
    ),
    '',
    `After the new campaigns, searches took ${f(on.after.mean / off.after.mean)}x as long with the pending list as without it (p95 ${f(on.after.p95 / off.after.p95)}x); ` +
      `writing a campaign without it costs ${f(off.insertMs / on.insertMs)}x (the insert statement alone).`,
  ].join('\n');
  console.log(`\n${body}\n`);
  writeDocsSection(b.docs, b.docsHeader, { heading: '## Searches while new campaigns wait to be merged', name: `pending N=${o.campaigns}` }, body);
  console.log('Wrote the pending results to docs/benchmarks.md.');
}
