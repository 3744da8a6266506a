import type postgres from 'postgres';
import { CAMPAIGN_SORTS, type CampaignSort } from '../src/shared/constants';
import { encodeSortCursor } from '../src/server/lib/listing';
import { CAMPAIGN_ORDERS } from '../src/server/modules/campaigns/list-queries';
import { writeDocsSection } from './docs-section';
import type { CpuMeter, Measured, Options, Scenario } from './run';

/**
 * The sorts part of `npm run bench` (`--only sorts`, used by bench/run.ts): the discover list
 * (`/api/campaigns?sort=...`) for each sort, over all categories and over one (`type=music`):
 * its first page and a page about 90 % deep by cursor, each with one connection and at a steady
 * `--rate`. The deep cursor is the app's own (lib/listing.ts `encodeSortCursor` over the sort's
 * order in list-queries.ts), made from the row at that depth of what an anonymous visitor sees
 * in that order, and checked: the app's page after it must start with the next row.
 */

/** The category of the filtered runs. */
export const SORT_CATEGORY = 'music';

interface Deep {
  /** Rows in that list, the row the cursor is made from, the cursor, and the row the page must start with. */
  rows: number;
  depth: number;
  cursor: string;
  nextId: string;
}

/** What each sort's list holds and its order for an anonymous visitor (list-queries.ts `conditions`, `CAMPAIGN_ORDERS`), in SQL. */
async function deepCursor(probe: postgres.Sql, sort: CampaignSort, type: string | null): Promise<Deep> {
  const typed = type ? probe`and c.type = ${type}::category` : probe``;
  const ending = sort === 'ending' ? probe`and c.execution_date >= now()` : probe``;
  const where = probe`where c.audience = 'public' ${typed} ${ending}`;
  const [{ n }] = await probe<{ n: string }[]>`select count(*) as n from campaigns c ${where}`;
  const rows = Number(n);
  const depth = Math.floor(rows * 0.9);
  const order = {
    newest: probe`order by c.created_at desc, c.id desc`,
    ending: probe`order by c.execution_date asc, c.id asc`,
    funded: probe`order by k.raised desc, k.campaign_id desc`,
    supported: probe`order by k.supporters desc, k.campaign_id desc`,
  }[sort];
  const found = await probe<{ id: string; created_at: Date; execution_date: Date | null; raised: string; supporters: number }[]>`
    select c.id, c.created_at, c.execution_date, k.raised, k.supporters
    from campaigns c join campaign_sort_keys k on k.campaign_id = c.id ${where} ${order} offset ${depth - 1} limit 2`;
  if (found.length < 2) throw new Error(`sort ${sort}${type ? `, type ${type}` : ''}: fewer than 2 rows at ${depth} of ${rows}`);
  const [at, next] = found;
  const key = { newest: at.created_at, ending: at.execution_date as Date, funded: Number(at.raised), supported: at.supporters }[sort];
  return { rows, depth, cursor: encodeSortCursor(CAMPAIGN_ORDERS[sort], key, at.id), nextId: next.id };
}

export interface SortsBench {
  base: string;
  meter: CpuMeter;
  probe: postgres.Sql;
  load: (s: Scenario, duration: number, connections: number) => Promise<unknown>;
  measure: (s: Scenario, meter: CpuMeter, run: { connections: number; duration: number; warmup: number; rate?: number }) => Promise<Measured>;
  env: { pgVersion: string; sharedBuffers: string };
  docs: string;
  docsHeader: string;
  machine: string;
}

export async function benchSorts(o: Options, b: SortsBench): Promise<void> {
  const scenarios: (Scenario & { sort: CampaignSort; type: string | null; deep: boolean; rows: number; depth: number })[] = [];
  for (const sort of CAMPAIGN_SORTS) {
    for (const type of [null, SORT_CATEGORY]) {
      const qs = `sort=${sort}${type ? `&type=${type}` : ''}`;
      const d = await deepCursor(b.probe, sort, type);
      const what = `${sort}${type ? `, type=${type}` : ''}`;
      scenarios.push({
        key: `${sort}-${type ?? 'all'}-first`,
        label: `${what}: first page`,
        url: `${b.base}/api/campaigns?${qs}`,
        server: 'app',
        sort,
        type,
        deep: false,
        rows: d.rows,
        depth: d.depth,
      });
      scenarios.push({
        key: `${sort}-${type ?? 'all'}-deep`,
        label: `${what}: cursor at 90 %`,
        url: `${b.base}/api/campaigns?${qs}&cursor=${d.cursor}`,
        server: 'app',
        sort,
        type,
        deep: true,
        rows: d.rows,
        depth: d.depth,
      });
      // the app's page after the cursor starts with the row after it: the cursor is the app's own
      const res = await fetch(`${b.base}/api/campaigns?${qs}&cursor=${d.cursor}`);
      const body = (await res.json()) as { items?: { _id: string }[] };
      if (!res.ok || body.items?.[0]?._id !== d.nextId)
        throw new Error(`sort ${what}: the page after the cursor at ${d.depth} starts with ${body.items?.[0]?._id ?? res.status}, not ${d.nextId}`);
    }
  }
  process.stdout.write(`\nSorts: warming up on every scenario (${o.warmup} s each)...`);
  for (const s of scenarios) await b.load(s, o.warmup, 1);
  console.log(' done');
  const single = { connections: 1, duration: Math.min(5, o.duration), warmup: 1 };
  const steady = { connections: o.connections, duration: Math.min(5, o.duration), warmup: 1, rate: o.rate };
  console.log(`\nSorts, one connection (${single.warmup} s warm-up + ${single.duration} s each):`);
  const singles: Measured[] = [];
  for (const s of scenarios) singles.push(await b.measure(s, b.meter, single));
  console.log(`\nSorts, a steady ${o.rate} requests a second (${steady.warmup} s warm-up + ${steady.duration} s each):`);
  const steadies: Measured[] = [];
  for (const s of scenarios) steadies.push(await b.measure(s, b.meter, steady));

  const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');
  const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
  const worstOf = (list: Measured[]) => list.reduce((w, m) => (m.p95 > w.p95 ? m : w));
  const one = worstOf(singles);
  const atRate = worstOf(steadies);
  const others = [...singles, ...steadies].map((m) => m.otherLoad);
  const body = [
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${b.machine}; PostgreSQL ${b.env.pgVersion} (shared_buffers ${b.env.sharedBuffers}); ${o.campaigns.toLocaleString('en-US')} campaigns.`,
    '',
    `\`GET /api/campaigns?sort=...\` anonymous, default page size (20), over all categories and \`type=${SORT_CATEGORY}\`; the deep page by the app's cursor made from the row at 90 % of that list ` +
      `(\`ending\` holds only campaigns with an execution date still to come). One connection (${single.duration} s each) and a steady ${o.rate} requests a second, evenly spaced (${steady.duration} s each); ` +
      `CPU columns: milliseconds per request of the app's processes and its PostgreSQL backends at the steady rate. Other processes used ${f(Math.min(...others))}-${f(Math.max(...others))} cores.`,
    '',
    '| list | page | rows in the list | p50 ms, one conn. | p95 ms, one conn. | p95 ms, steady | server CPU ms/req | PG CPU ms/req |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...scenarios.map((s, i) => {
      const one = singles[i];
      const st = steadies[i];
      const failed = one.bad + one.timeouts + st.bad + st.timeouts;
      return (
        `| ${s.sort}${s.type ? `, type=${s.type}` : ''} | ${s.deep ? `cursor at row ${s.depth.toLocaleString('en-US')}` : 'first'} | ${s.rows.toLocaleString('en-US')} | ` +
        `${f(one.p50)} | ${f(one.p95)} | ${f(st.p95)} | ${f(st.serverCpu, 2)} | ${f(st.pgCpu, 2)} |${failed ? ` (${failed} failed)` : ''}`
      );
    }),
    '',
    `Target${o.campaigns < 1_000_000 ? ' (for 1,000,000 campaigns)' : ''}: each sort's first page and 90 % page p95 < 20 ms, with and without a category (the issue names no rate): ` +
      `worst with one connection ${f(one.p95)} ms (${one.label}): ${verdict(one.p95 < 20)}; at a steady ${o.rate}/s ${f(atRate.p95)} ms (${atRate.label}): ${verdict(atRate.p95 < 20)}.`,
  ].join('\n');
  console.log(`\n${body}\n`);
  writeDocsSection(b.docs, b.docsHeader, { heading: '## Sorts: the discover list', name: `sorts N=${o.campaigns}` }, body);
  console.log('Wrote the sorts results to docs/benchmarks.md.');
  if ([...singles, ...steadies].some((m) => m.bad || m.timeouts)) process.exitCode = 1;
}
