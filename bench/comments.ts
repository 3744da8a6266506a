import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { APP_CONNECTION_SETTINGS, type Db } from '../src/server/db/client';
import * as schema from '../src/server/db/schema';
import type { Actor, Deps } from '../src/server/deps';
import { encodeCursor } from '../src/server/lib/listing';
import type { CampaignsService } from '../src/server/modules/campaigns/service';
import { createCommentsService } from '../src/server/modules/comments/service';
import { CommentPageQuery } from '../src/shared/schemas/community';

/**
 * The comments part of `npm run bench` (used by bench/run.ts): seeding a campaign with 100,000
 * comments and one with 10, finding them again in a kept database, and EXPLAIN of the statements
 * the comments service runs for a page.
 *
 * The big campaign: BIG_THREADS threads (top-level comments, 80 s apart over about 83 days, 1 %
 * deleted) and BIG_COMMENTS - BIG_THREADS replies: one reply on every 18th thread and
 * LONG_REPLIES on thread LONG_THREAD_AT (the middle), so a page of threads holds a few replies
 * and one thread is long. The small one: 8 threads, 2 replies on the first. Around them, 1-3
 * comments on about 10 % of the other campaigns. Many blocks: one owner blocks VIEWER_BLOCKS
 * others (the signed-in viewer of the EXPLAIN), every other owner about OTHER_BLOCKS at random.
 */
export const BIG_COMMENTS = 100_000;
export const BIG_THREADS = 90_000;
export const LONG_THREAD_AT = 45_000;
export const LONG_REPLIES = 5_001;
export const SMALL_COMMENTS = 10;
/** People the signed-in viewer of the EXPLAIN blocked (of 1000), and about how many each other owner did. */
export const VIEWER_BLOCKS = 300;
export const OTHER_BLOCKS = 100;

/** Seeds the comments when the database has none (a kept database from before them gets them too); false when they were there. */
export async function seedComments(sql: postgres.Sql, vocab: readonly string[]): Promise<boolean> {
  const [{ n }] = await sql<{ n: string }[]>`select count(*) as n from comments`;
  if (Number(n) > 0) return false;
  await sql.unsafe(`
    create function bench_comment_words(w text[], n int) returns text language sql volatile as $$
      select string_agg(w[least(array_length(w, 1), floor(exp(random() * ln(array_length(w, 1) + 1)))::int)], ' ')
      from generate_series(1, n)
    $$`);
  try {
    const [big, small] = await sql<{ id: string }[]>`select id from campaigns where audience = 'public' order by id limit 2`;
    const words = [...vocab];
    // the big campaign's threads
    await sql`
      with o as (select array_agg(id order by id) as ids from users)
      insert into comments (campaign_id, user_id, text, created_at, deleted_at)
      select ${big.id}, o.ids[1 + floor(random() * array_length(o.ids, 1))::int],
             case when g % 100 = 0 then '' else initcap(bench_comment_words(${words}, 8 + floor(random() * 20)::int)) || '.' end,
             now() - interval '90 days' + g * interval '80 seconds',
             case when g % 100 = 0 then now() - interval '90 days' + g * interval '80 seconds' + interval '1 hour' end
      from generate_series(1, ${BIG_THREADS}::int) g, o`;
    // its replies: one on every 18th thread, LONG_REPLIES on the thread in the middle
    await sql`
      with o as (select array_agg(id order by id) as ids from users),
      t as (select id, created_at, row_number() over (order by created_at, id) as n
            from comments where campaign_id = ${big.id} and parent_id is null)
      insert into comments (campaign_id, user_id, parent_id, text, created_at)
      select ${big.id}, o.ids[1 + floor(random() * array_length(o.ids, 1))::int], t.id,
             initcap(bench_comment_words(${words}, 4 + floor(random() * 16)::int)) || '.',
             t.created_at + j * interval '1 second'
      from t cross join lateral generate_series(1, case when t.n = ${LONG_THREAD_AT} then ${LONG_REPLIES}::int when t.n % 18 = 0 then 1 else 0 end) j, o`;
    // the small campaign: 8 threads, 2 replies on the first
    await sql`
      with o as (select array_agg(id order by id) as ids from users)
      insert into comments (campaign_id, user_id, text, created_at)
      select ${small.id}, o.ids[1 + g * 7], initcap(bench_comment_words(${words}, 8 + floor(random() * 20)::int)) || '.',
             now() - interval '10 days' + g * interval '1 hour'
      from generate_series(1, ${SMALL_COMMENTS - 2}::int) g, o`;
    await sql`
      with o as (select array_agg(id order by id) as ids from users),
      t as (select id, created_at from comments where campaign_id = ${small.id} order by created_at, id limit 1)
      insert into comments (campaign_id, user_id, parent_id, text, created_at)
      select ${small.id}, o.ids[100 + g], t.id, initcap(bench_comment_words(${words}, 4 + floor(random() * 16)::int)) || '.',
             t.created_at + g * interval '1 minute'
      from t, generate_series(1, 2) g, o`;
    // 1-3 comments on about 10 % of the other campaigns
    await sql`
      with o as (select array_agg(id order by id) as ids from users)
      insert into comments (campaign_id, user_id, text, created_at)
      select c.id, o.ids[1 + floor(random() * array_length(o.ids, 1))::int],
             initcap(bench_comment_words(${words}, 8 + floor(random() * 20)::int)) || '.', c.created_at + j * interval '1 hour'
      from (select id, created_at from campaigns where id not in (${big.id}, ${small.id}) and random() < 0.1) c
      cross join lateral generate_series(1, 1 + floor(random() * 3)::int + 0 * length(c.id::text)) j, o`;
    // many blocks: one owner blocks VIEWER_BLOCKS others, every other owner about OTHER_BLOCKS at random
    await sql`
      with o as (select array_agg(id order by id) as ids from users)
      insert into blocks (blocker_id, blocked_id) select o.ids[1], o.ids[1 + g * 3] from generate_series(1, ${VIEWER_BLOCKS}::int) g, o`;
    await sql`
      with o as (select array_agg(id order by id) as ids from users)
      insert into blocks (blocker_id, blocked_id)
      select blocker, blocked from (
        select u, o.ids[u] as blocker, o.ids[1 + floor(random() * array_length(o.ids, 1))::int] as blocked
        from o, generate_series(2, array_length(o.ids, 1)) u, generate_series(1, ${OTHER_BLOCKS}::int) j) x
      where blocker <> blocked
      on conflict (blocker_id, blocked_id) do nothing`;
  } finally {
    await sql.unsafe(`drop function bench_comment_words(text[], int)`);
  }
  return true;
}

export interface CommentTargets {
  /** The campaign of BIG_COMMENTS comments and the one of SMALL_COMMENTS. */
  big: string;
  small: string;
  /** The thread with LONG_REPLIES replies. */
  longThread: string;
  /** A cursor to the thread at 90 % of the big campaign's threads, and to the reply at 90 % of the long thread. */
  deepThreads: string;
  deepReplies: string;
  /** The owner who blocked the most others, and how many. */
  blocker: string;
  blocks: number;
  /** Blocks in all. */
  allBlocks: number;
  threads: number;
  comments: number;
  allComments: number;
}

export async function findCommentTargets(probe: postgres.Sql): Promise<CommentTargets> {
  const counted = await probe<{ campaign_id: string; n: string }[]>`
    select campaign_id, count(*) as n from comments group by campaign_id having count(*) in (${BIG_COMMENTS}, ${SMALL_COMMENTS})`;
  const big = counted.find((c) => Number(c.n) === BIG_COMMENTS)?.campaign_id;
  const small = counted.find((c) => Number(c.n) === SMALL_COMMENTS)?.campaign_id;
  if (!big || !small) throw new Error('the bench database has no campaign of 100,000 comments or none of 10 (seeded before the comments scenario? drop it)');
  const [{ threads }] = await probe<{ threads: string }[]>`select count(*) as threads from comments where campaign_id = ${big} and parent_id is null`;
  const [long] = await probe<{ parent_id: string; n: string }[]>`
    select parent_id, count(*) as n from comments where campaign_id = ${big} and parent_id is not null group by parent_id order by count(*) desc limit 1`;
  const [deepThread] = await probe<{ created_at: Date; id: string }[]>`
    select created_at, id from comments where campaign_id = ${big} and parent_id is null
    order by created_at, id offset ${Math.floor(Number(threads) * 0.9)} limit 1`;
  const [deepReply] = await probe<{ created_at: Date; id: string }[]>`
    select created_at, id from comments where parent_id = ${long.parent_id}
    order by created_at, id offset ${Math.floor(Number(long.n) * 0.9)} limit 1`;
  const [blocker] = await probe<
    { blocker_id: string; n: string }[]
  >`select blocker_id, count(*) as n from blocks group by blocker_id order by count(*) desc limit 1`;
  const [{ n: allBlocks }] = await probe<{ n: string }[]>`select count(*) as n from blocks`;
  const [{ n_all: all }] = await probe<{ n_all: string }[]>`select count(*) as n_all from comments`;
  return {
    big,
    small,
    longThread: long.parent_id,
    deepThreads: encodeCursor({ createdAt: deepThread.created_at, id: deepThread.id }),
    deepReplies: encodeCursor({ createdAt: deepReply.created_at, id: deepReply.id }),
    blocker: blocker?.blocker_id ?? '',
    blocks: Number(blocker?.n ?? 0),
    allBlocks: Number(allBlocks),
    threads: Number(threads),
    comments: BIG_COMMENTS,
    allComments: Number(all),
  };
}

/**
 * `EXPLAIN (ANALYZE, BUFFERS)` of every statement the comments service runs for a first page, a
 * page at 90 % and a page of the long thread's replies, anonymous and as the viewer who blocked the
 * most people (VIEWER_BLOCKS, among many blocks), in the app's session settings. The statements are the service's own (captured from its
 * Drizzle logger; the campaign check is left out, it is the campaign detail's query).
 */
export async function explainComments(benchUrl: string, t: CommentTargets): Promise<string> {
  const client = postgres(benchUrl, { max: 1, onnotice: () => {}, connection: APP_CONNECTION_SETTINGS });
  const captured: { sql: string; params: unknown[] }[] = [];
  const db = drizzle(client, { schema, logger: { logQuery: (sql, params) => captured.push({ sql, params }) } }) as unknown as Db;
  const noCampaignCheck = { get: async () => undefined } as unknown as CampaignsService;
  const service = createCommentsService({ db } as unknown as Deps, { campaigns: noCampaignCheck });
  const anonymous: Actor = { user: null, session: null, ip: '127.0.0.1' };
  const viewer = { user: { id: t.blocker }, session: null, ip: '127.0.0.1' } as unknown as Actor;
  const out: string[] = [];
  try {
    const cases: [string, () => Promise<unknown>][] = [
      ['first page of threads, anonymous', () => service.list(anonymous, t.big, CommentPageQuery.parse({}))],
      ['page of threads at 90 %, anonymous', () => service.list(anonymous, t.big, CommentPageQuery.parse({ cursor: t.deepThreads }))],
      [
        `first page of threads, a viewer who blocked ${t.blocks} people (${t.allBlocks} blocks in all)`,
        () => service.list(viewer, t.big, CommentPageQuery.parse({})),
      ],
      ['page of threads at 90 %, the same viewer', () => service.list(viewer, t.big, CommentPageQuery.parse({ cursor: t.deepThreads }))],
      ['first page of replies of the long thread, the same viewer', () => service.replies(viewer, t.big, t.longThread, CommentPageQuery.parse({}))],
      [
        'replies of the long thread at 90 %, the same viewer',
        () => service.replies(viewer, t.big, t.longThread, CommentPageQuery.parse({ cursor: t.deepReplies })),
      ],
    ];
    for (const [name, run] of cases) {
      captured.length = 0;
      await run();
      for (const [i, q] of captured.entries()) {
        const plan = await client.unsafe(`explain (analyze, buffers) ${q.sql}`, q.params as never[]);
        out.push(`--- ${name} (statement ${i + 1} of ${captured.length})\n${q.sql}\n${plan.map((r) => r['QUERY PLAN']).join('\n')}`);
      }
    }
  } finally {
    await client.end({ timeout: 2 });
  }
  return out.join('\n\n');
}
