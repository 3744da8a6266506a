import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import postgres from 'postgres';
import { setConfig } from '../src/server/db/array-rows';
import { APP_CONNECTION_SETTINGS } from '../src/server/db/client';
import { SEARCH_COUNT_CAP } from '../src/shared/constants';

/**
 * The benchmark's baseline (started by bench/run.ts as a child process, never part of the app):
 * a bare Fastify server whose GET /raw/:name runs, through postgres.js exactly as the app calls
 * it, the SQL that the REST list runs for the same request (taken from the service's query
 * builders by run.ts), plus the same total query, and answers the rows as JSON without DTO
 * mapping or zod. Every request runs both statements as the app does (since migration 0026
 * there is no cache of search totals: a search counts its matches, at most SEARCH_COUNT_CAP + 1).
 *
 * POST /raw/campaigns/:id/donations is the donations part's baseline (bench/donations.ts): a
 * guest's donation by test card written the way a bare server would, already succeeded: in one
 * transaction the donation (its campaign's currency, visibility and action mode read by the same
 * INSERT ... SELECT), its ledger group, and the group's two entries (provider -x, campaign +x) in
 * one statement. The ledger's triggers fire as for the app: campaign_totals is kept from the
 * entries, and the group's balance is checked at commit. No payment event, no donor row, no email.
 *
 * Environment: RAW_DATABASE_URL, RAW_PORT, RAW_QUERIES (a JSON file: name -> {rows, total},
 * each {sql, params}).
 */
interface Captured {
  sql: string;
  params: unknown[];
}
const queries = JSON.parse(readFileSync(process.env.RAW_QUERIES!, 'utf8')) as Record<
  string,
  {
    rows: Captured;
    pageIds?: Captured | null;
    wordsTotal?: Captured | null;
    total: Captured | null;
    capped: boolean;
    prepared: boolean;
    totalFrom: 'count' | 'counter' | 'rows';
    idsTotal?: boolean;
    totalSettings?: Record<string, string> | null;
    pageIdsSettings?: Record<string, string>;
  }
>;

// the app's pool and session settings (openPostgres() in src/server/db/client.ts)
const sql = postgres(process.env.RAW_DATABASE_URL!, { max: 10, onnotice: () => {}, connection: APP_CONNECTION_SETTINGS });
const app = Fastify({ logger: false });

/** postgres.js options for the extended protocol (its types leave out `simple`, which it reads). */
const extended = (prepare: boolean) => ({ prepare, simple: false }) as { prepare: boolean };

/**
 * An unprepared statement with planner settings for its transaction alone, as the app runs its
 * search's page statements (src/server/db/array-rows.ts): BEGIN, set_config, the statement, COMMIT.
 */
async function withSettings(q: Captured, settings: Record<string, string> | null): Promise<unknown[][]> {
  if (!settings) return sql.unsafe(q.sql, q.params as never[], extended(false)).values();
  const set = setConfig(settings);
  const [, rows] = await sql.begin((tx) => [
    tx.unsafe(set.sql, set.params as never[], extended(false)),
    tx.unsafe(q.sql, q.params as never[], extended(false)).values(),
  ]);
  return rows as unknown[][];
}

app.get<{ Params: { name: string } }>('/raw/:name', async (req, reply) => {
  const q = queries[req.params.name];
  if (!q) return reply.code(404).send({ error: 'unknown query' });
  // as the app's list runs them (db/array-rows.ts `arrayRunner`): unsafe(sql, params, { prepare,
  // simple: false }), the extended protocol, rows as arrays. The page's rows are a named statement
  // per connection; `prepared` is what statements() says of the total: named for a list without a
  // search, unnamed for a search. A search with many matches finds its page's ids first
  // (`pageIds`, unnamed), and its rows statement reads them (captured with them).
  const prepare = q.prepared;
  const pageIds = q.pageIds;
  const page = async () => {
    if (pageIds) await withSettings(pageIds, q.pageIdsSettings ?? null);
    return sql.unsafe(q.rows.sql, q.rows.params as never[], extended(true)).values();
  };
  // (a shape whose total came on its rows: kept for statements() answering no total query)
  if (!q.total && !q.wordsTotal) {
    const rows = await page();
    const counted = rows.length ? Number(rows[0][rows[0].length - 2]) : 0;
    return { items: rows, total: Math.min(counted, SEARCH_COUNT_CAP), totalCapped: counted > SEARCH_COUNT_CAP };
  }
  const count = async (): Promise<unknown[][]> => {
    // a search of words counts its words alone first: with more matches than the cap that was its
    // total, and the app ran no other (statements() then gives no `total`)
    if (q.wordsTotal) {
      const words = await sql.unsafe(q.wordsTotal.sql, q.wordsTotal.params as never[], extended(false)).values();
      if (!q.total) return words;
    }
    const total = q.total as Captured;
    return q.totalSettings
      ? withSettings(total, q.totalSettings)
      : sql.unsafe(total.sql, total.params as never[], extended(prepare || q.totalFrom === 'counter')).values();
  };
  const [rows, totals] = await Promise.all([page(), count()]);
  if (q.totalFrom === 'counter') return { items: rows, total: null, totalCapped: null };
  // the total query answers one row: (n, generation) from list_counts by audience
  // (lib/listing.ts visibleTotalSql), (n, null) of a count, or for a search (its matches' ids, null)
  const counted = q.idsTotal
    ? String(totals[0]?.[0] ?? '')
        .split(',')
        .filter(Boolean).length
    : (totals as unknown[][]).reduce<number>((sum, r) => (typeof r[0] === 'boolean' ? (r[0] ? sum : sum + Number(r[1])) : sum + Number(r[0])), 0);
  // a search counts at most SEARCH_COUNT_CAP + 1 matches, as the service does
  const totalCapped = q.capped && counted > SEARCH_COUNT_CAP;
  return { items: rows, total: totalCapped ? SEARCH_COUNT_CAP : counted, totalCapped };
});

app.post<{ Params: { id: string }; Body: { amount?: unknown; email?: unknown; card?: unknown } }>('/raw/campaigns/:id/donations', async (req, reply) => {
  const key = req.headers['idempotency-key'];
  const { amount: major, email, card } = req.body ?? {};
  if (typeof key !== 'string' || typeof email !== 'string' || typeof major !== 'number' || typeof card !== 'string') {
    return reply.code(400).send({ error: 'amount, email, card and an Idempotency-Key are needed' });
  }
  const campaignId = req.params.id;
  const amount = Math.round(major * 100);
  const donorEmail = email.toLowerCase();
  const requestHash = createHash('sha256')
    .update(JSON.stringify([`e:${donorEmail}`, campaignId, amount, false, card]))
    .digest('hex');
  const providerRef = `raw_pay_${randomBytes(12).toString('hex')}`;
  const d = await sql.begin(async (tx) => {
    const [row] = await tx<{ id: string; campaign_id: string; amount: string; currency: string; status: string; created_at: Date }[]>`
      insert into donations (campaign_id, donor_email, amount, currency, status, provider, provider_ref, idempotency_key, request_hash, succeeded_at)
      select id, ${donorEmail}, ${amount}, currency, 'succeeded', 'sandbox', ${providerRef}, ${key}, ${requestHash}, now()
      from campaigns where id = ${campaignId} and audience = 'public' and action_mode <> 'support'
      returning id, campaign_id, amount, currency, status, created_at`;
    if (!row) return null;
    const [g] = await tx<{ id: string }[]>`insert into ledger_groups (kind, donation_id) values ('donation', ${row.id}) returning id`;
    await tx`
      insert into ledger_entries (group_id, account_type, account_id, amount, currency)
      values (${g.id}, 'provider', 'sandbox', ${-amount}, ${row.currency}), (${g.id}, 'campaign', ${campaignId}, ${amount}, ${row.currency})`;
    return row;
  });
  if (!d) return reply.code(404).send({ error: 'Campaign not found' });
  return reply.code(201).send({
    _id: d.id,
    campaignId: d.campaign_id,
    amount: Number(d.amount) / 100,
    currency: d.currency,
    status: d.status,
    monthly: false,
    createdAt: d.created_at,
  });
});

const shutdown = async () => {
  await app.close();
  await sql.end({ timeout: 2 });
  process.exit(0);
};
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());

await app.listen({ port: Number(process.env.RAW_PORT), host: '127.0.0.1' });
console.log(`raw server listening on ${process.env.RAW_PORT}`);
