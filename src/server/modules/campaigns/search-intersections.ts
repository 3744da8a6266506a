import { SQL, sql } from 'drizzle-orm';
import { SEARCH_COUNT_CAP } from '../../../shared/constants';
import { arrayRunner } from '../../db/array-rows';
import type { Db } from '../../db/client';
import { classified, pastPrefix } from './search-postings';

/**
 * A search of several words (or of one word with punctuation), answered from the search postings
 * (migration 0017).
 *
 * The search matches a campaign when every typed word is the start of one of its lexemes (the
 * full-text half: for each word, the campaign holds one of the `w:` terms in the range of its
 * stem) or when the typed text is inside its title (the title half: each run of letters and
 * digits of the text is then inside one of the title's words, so the candidates hold, for each
 * run, a `t:` term containing it, and each candidate's title is checked with `ILIKE`).
 *
 * Each half is read one of two ways, chosen by how many postings its words have (counted up to
 * `commonAt` and kept a while: the count steers the plan, never the answer):
 * - `probe`: the smallest word's postings newest first, each campaign looked up in the other
 *   words' postings (one index lookup per term). When the other words are common, a page is
 *   found after a few dozen campaigns, however far back the words go.
 * - `index`: when the words are rare together, a walk would read the smallest word's whole list;
 *   the campaigns' GIN index with the words' exact lexemes (`('class' | 'classic') & 'scarlet'`:
 *   no prefix, so GIN skips through the longer list) finds their few campaigns, then sorted.
 * The title half is always walked, and only back to the date of the full-text half's last match
 * on the page (when it has a full page): older title matches cannot be on it. Each half has its
 * own LIMIT, and the page is the newest of their union.
 *
 * Searches whose words hold no run of 3 letters and digits (no title candidates to draw from), or
 * whose words match more than MAX_TERMS terms, keep the campaigns' own indexes.
 */

/** The terms of a search of several words, by word. */
export interface WordsSearch {
  /** For each typed word that is not a stop word: its stem's lexeme range [lo, hi). */
  ranges: { lo: string; hi: string }[];
  /**
   * For each run of 3 or more letters and digits of the typed text: the LIKE pattern of the title
   * words (`t:` terms) it can be part of: the whole word between two separators, its start after
   * one, its end before one.
   */
  subs: string[];
}

/** Shortest run of letters and digits that draws title candidates (a trigram search needs three). */
const MIN_PART = 3;
/** Most terms one word may match: each is a stream of its own in the statement. */
const MAX_TERMS = 16;
/** How many classified searches are kept (the most recently used). */
const KEPT = 1000;

const RANGE_SQL = 'select term from campaign_search_terms where term >= $1 and term < $2';
const TITLE_WORDS_SQL = `select term from campaign_search_terms where term like $1 and substr(term, 1, 2) = 't:'`;

/**
 * How a half of the search is read: `stream`, one word's postings; `probe`, the smallest word's
 * postings newest first, each campaign looked up in the other words' postings (when the other
 * words are common, the page is found after few of them); `index`, the campaigns' own GIN index
 * (exact lexemes) or trigram index (the title), its few matches sorted (when the words are rare
 * together: a walk would read the smallest word's whole list).
 */
export type HalfPlan = 'stream' | 'probe' | 'index';

/** The terms, by word: `a` the full-text half's (one list per word), `b` the title half's (one list per run), smallest word first. */
export interface WordsTerms {
  a: string[][];
  b: string[][];
  planA: HalfPlan;
  planB: HalfPlan;
}

/** How long a term's postings count is kept: it only steers the plan, never the answer. */
const SIZE_KEPT_MS = 10 * 60_000;
const SIZE_SQL = 'select count(*) from (select 1 from campaign_search_postings where term = $1 limit $2) x';

/**
 * `commonAt`: a word with at least this many postings (its terms' together) is common: another
 * word's campaigns hold it often enough that probing them finds a page soon.
 */
export function createWordsSearches(db: Db, opts: { commonAt?: number } = {}) {
  const exec = arrayRunner(db);
  const commonAt = opts.commonAt ?? 50_000;
  const sizes = new Map<string, { n: number; at: number }>();

  /** A term's postings, counted up to commonAt (kept a while). */
  async function size(term: string): Promise<number> {
    const now = Date.now();
    const kept = sizes.get(term);
    if (kept && now - kept.at < SIZE_KEPT_MS) return kept.n;
    const [[n]] = await exec({ sql: SIZE_SQL, params: [term, commonAt] }, true);
    sizes.set(term, { n: Number(n), at: now });
    if (sizes.size > 10 * KEPT) sizes.delete(sizes.keys().next().value!);
    return Number(n);
  }

  /** The words of a half, smallest first, and how to read it. */
  async function planHalf(groups: string[][]): Promise<{ groups: string[][]; plan: HalfPlan }> {
    if (groups.length <= 1) return { groups, plan: 'stream' };
    const measured = await Promise.all(groups.map(async (g) => ({ g, n: (await Promise.all(g.map(size))).reduce((x, y) => x + y, 0) })));
    measured.sort((x, y) => x.n - y.n);
    return { groups: measured.map((m) => m.g), plan: measured[1].n >= commonAt ? 'probe' : 'index' };
  }

  async function classify(text: string, ts: string): Promise<WordsSearch | null> {
    const [row] = await exec({ sql: `select to_tsquery('english', $1)::text, regexp_split_to_array(lower($2), '[^[:alnum:]]+')`, params: [ts, text] }, false);
    const [query, parts] = row as [string, string[]];
    // where the title holds the text, a run with punctuation or a space before it starts a title
    // word, one with punctuation or a space after it ends one (the first and last parts are empty
    // when the text starts or ends with punctuation)
    const subs = [
      ...new Set(parts.flatMap((p, i) => (Array.from(p).length < MIN_PART ? [] : [`t:${i > 0 ? '' : '%'}${p}${i < parts.length - 1 ? '' : '%'}`]))),
    ];
    if (!subs.length) return null;
    const ranges: WordsSearch['ranges'] = [];
    // every stop word left out: the full-text half matches nothing
    if (query !== '') {
      for (const operand of query.split(' & ')) {
        const m = /^'([^'\\]+)':\*$/.exec(operand);
        if (!m) return null;
        const lo = `w:${m[1]}`;
        const hi = pastPrefix(lo);
        if (hi === null) return null;
        if (!ranges.some((r) => r.lo === lo)) ranges.push({ lo, hi });
      }
    }
    return { ranges, subs };
  }

  return {
    /** How this search's words are answered from the postings, or null. `ts` is its prefix query. */
    of: classified(KEPT, classify),

    /** The words' terms as they are now (prepared lookups, in parallel); null when a word matches more than MAX_TERMS. */
    async terms(w: WordsSearch): Promise<WordsTerms | null> {
      const lists = await Promise.all([
        ...w.ranges.map((r) => exec({ sql: RANGE_SQL, params: [r.lo, r.hi] }, true)),
        ...w.subs.map((s) => exec({ sql: TITLE_WORDS_SQL, params: [s] }, true)),
      ]);
      const terms = lists.map((rows) => rows.map((r) => r[0] as string));
      if (terms.some((t) => t.length > MAX_TERMS)) return null;
      const a = terms.slice(0, w.ranges.length);
      const b = terms.slice(w.ranges.length);
      // a word without terms: that half matches nothing
      const [halfA, halfB] = await Promise.all([planHalf(a.some((g) => !g.length) ? [] : a), planHalf(b.some((g) => !g.length) ? [] : b)]);
      // the title half is always walked (smallest word first): it is read only back to the date of
      // the full-text half's last match on the page, and its words are title words, a few times rarer
      return { a: halfA.groups, b: halfB.groups, planA: halfA.plan, planB: halfB.plan === 'index' ? 'probe' : halfB.plan };
    },
  };
}

/** The parts of an intersection statement that change its text: how many terms each word has. */
export function termsShape(t: WordsTerms): string {
  return `${t.planA}:${t.a.map((g) => g.length).join('.')}|${t.planB}:${t.b.map((g) => g.length).join('.')}`;
}

/** The full-text half's exact lexemes as a tsquery: `('l1' | 'l2') & 'l3'` (no prefix: GIN skips through long lists). */
export function exactQuery(groups: string[][]): string {
  const quote = (term: string) => `'${term.slice(2).replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  return groups.map((g) => `(${g.map(quote).join(' | ')})`).join(' & ');
}

/** Values or placeholders of an intersection statement. */
export interface IntersectArgs {
  /** Terms (placeholders) of the full-text half, by word; empty when every word is a stop word. */
  a: unknown[][];
  /** Terms (placeholders) of the title half's candidates, by run of letters and digits. */
  b: unknown[][];
  planA: HalfPlan;
  planB: HalfPlan;
  /** The full-text half's exact lexemes (exactQuery), for its `index` plan. */
  exact: unknown;
  /** The title pattern (`%text%`, LIKE-escaped). */
  like: unknown;
  seeAdult: boolean;
  cursor?: { t: unknown; id: unknown };
  /** Rows taken from each half: the page's offset plus its rows. */
  perHalf: unknown;
  limit: unknown;
  offset: unknown;
}

/** One term's postings, newest first. */
function termStream(a: IntersectArgs, term: unknown, withCursor: boolean): SQL {
  const adult = a.seeAdult ? sql`` : sql` and not p.adult`;
  const after = withCursor && a.cursor ? sql` and (p.created_at, p.campaign_id) < (${a.cursor.t}::timestamptz, ${a.cursor.id}::uuid)` : sql``;
  return sql`(select p.created_at, p.campaign_id from campaign_search_postings p where p.term = ${term}${adult}${after} order by p.created_at desc, p.campaign_id desc)`;
}

/** A word's postings (the union of its terms'), newest first, each campaign once. */
function wordStream(a: IntersectArgs, terms: unknown[], withCursor: boolean): SQL {
  if (terms.length === 1) return termStream(a, terms[0], withCursor);
  const branches = sql.join(
    terms.map((t) => termStream(a, t, withCursor)),
    sql` union all `,
  );
  return sql`(select distinct on (u.created_at, u.campaign_id) u.created_at, u.campaign_id from (${branches}) u order by u.created_at desc, u.campaign_id desc)`;
}

/**
 * Each of these words' postings holds the campaign `d` (one index lookup per term), then `check`
 * holds: one condition, tested in this order (the rarest word first, the check last) and stopping
 * at the first that fails. As separate conditions PostgreSQL would order them by its cost
 * estimates, which rank a heap visit of the campaign about as cheap as an index lookup, and it
 * then read the title of every candidate before asking the rarer word's postings.
 */
function heldByAll(words: unknown[][], check: SQL | null): SQL {
  const tests = words.map((terms) => {
    const list = sql.join(
      terms.map((t) => sql`${t}`),
      sql`, `,
    );
    // a scalar subquery, not EXISTS: PostgreSQL never turns it into a join that reads the other
    // word's whole list, so each campaign costs one index lookup per term
    return sql`(select true from campaign_search_postings q where q.term in (${list}) and q.created_at = d.created_at and q.campaign_id = d.campaign_id limit 1) is not null`;
  });
  if (check) tests.push(check);
  if (!tests.length) return sql``;
  const last = tests.pop()!;
  if (!tests.length) return sql` and ${last}`;
  // CASE evaluates its branches in order; AND-ed conditions would be reordered
  return sql` and case${sql.join(tests.map((t) => sql` when not (${t}) then false`))} else ${last} end`;
}

/** The campaigns' own rows matching `where`, the few of them sorted newest first (`offset 0` keeps the planner off the date index). */
function byIndex(a: IntersectArgs, where: SQL, n: unknown, withCursor: boolean): SQL {
  const adult = a.seeAdult ? sql`` : sql` and c.type <> 'adult'`;
  const after = withCursor && a.cursor ? sql` and (c.created_at, c.id) < (${a.cursor.t}::timestamptz, ${a.cursor.id}::uuid)` : sql``;
  return sql`(select s.created_at, s.campaign_id from (select c.created_at, c.id as campaign_id from campaigns c where ${where}${adult}${after} offset 0) s
    order by s.created_at desc, s.campaign_id desc limit ${n})`;
}

/**
 * One half: the smallest word's postings newest first (back to `bound`, a condition on the date
 * the scan stops at), probed in the others' and then `check`ed, or the index.
 */
function half(a: IntersectArgs, words: unknown[][], plan: HalfPlan, index: SQL, bound: SQL, check: SQL | null, n: unknown, withCursor: boolean): SQL {
  if (plan === 'index') return byIndex(a, index, n, withCursor);
  const [first, ...rest] = words;
  return sql`(select d.created_at, d.campaign_id from ${wordStream(a, first, withCursor)} d where true${bound}${heldByAll(rest, check)}
    order by d.created_at desc, d.campaign_id desc limit ${n})`;
}

/** `n` as SQL (a placeholder or a literal). */
const count = (n: unknown) => (n instanceof SQL ? n : sql`${n}`);

/**
 * The newest `n` matches of each half (the full-text half, and the title candidates whose title
 * holds the text), newest first, each once: the newest `n` of the union are among them. Each
 * half has its own LIMIT right on top of its stream, so the stream stops there.
 */
function matches(a: IntersectArgs, n: unknown, withCursor: boolean): SQL {
  const fullText = a.a.length ? half(a, a.a, a.planA, sql`c.search_vector @@ ${a.exact}::tsquery`, sql``, null, n, withCursor) : null;
  let title: SQL | null = null;
  if (a.b.length) {
    // only the title matches newer than the full-text half's n-th (when it has n) can be on the
    // page: the title half's walk stops at that date
    const since = fullText
      ? sql` and d.created_at >= coalesce((select case when count(*) >= ${count(n)} then min(f.created_at) end from f), '-infinity'::timestamptz)`
      : sql``;
    const inTitle = sql`(select true from campaigns t where t.id = d.campaign_id and t.title ilike ${a.like}) is not null`;
    title = half(a, a.b, a.planB, sql`c.title ilike ${a.like}`, since, inTitle, n, withCursor);
  }
  const halves: SQL[] = [];
  if (fullText) halves.push(sql`(select * from f)`);
  if (title) halves.push(title);
  // neither half can match
  if (!halves.length) halves.push(sql`(select null::timestamptz as created_at, null::uuid as campaign_id where false)`);
  return sql`${fullText ? sql`with f as materialized ${fullText} ` : sql``}select distinct on (m.created_at, m.campaign_id) m.created_at, m.campaign_id
    from (${sql.join(halves, sql` union all `)}) m order by m.created_at desc, m.campaign_id desc`;
}

/** The page's campaign ids, newest first. */
export function intersectPageIds(a: IntersectArgs): SQL {
  return sql`(select x.campaign_id from (${matches(a, a.perHalf, true)} limit ${a.limit} offset ${a.offset}) x)`;
}

/** The newest `n` matches of each half, newest first, each once (no cursor: a first page and its total). */
export function intersectMatchesSql(a: IntersectArgs, n: unknown): SQL {
  return matches(a, n, false);
}

/** The matches counted up to SEARCH_COUNT_CAP + 1, as a subquery with one row per match. */
export function intersectMatches(a: IntersectArgs): SQL {
  const cap = sql.raw(String(SEARCH_COUNT_CAP + 1));
  return sql`(${matches(a, cap, false)} limit ${cap}) matches`;
}
