import { sql, type SQL } from 'drizzle-orm';
import { SEARCH_COUNT_CAP } from '../../../shared/constants';
import { arrayRunner } from '../../db/array-rows';
import type { Db } from '../../db/client';
import { textArrayLiteral } from '../../lib/listing';
import { classified, inText, pastPrefix } from './search-postings';

/**
 * A search of several words (or of one word with punctuation), answered from the search's block
 * bitmaps (migration 0019, db/schema/search.ts).
 *
 * The search matches a campaign when every typed word is the start of one of its lexemes (the
 * full-text half: for each word, the campaign holds one of the `w:` terms in the range of its
 * stem) or when the typed text is inside its title (the title half: each run of letters and
 * digits of the text is then inside one of the title's words, so the candidates hold, for each
 * run, a `t:` term containing it, and each candidate's title is checked with `ILIKE`).
 *
 * Both halves are ANDs of ORs of terms: the database function `campaign_search_many` (migrations
 * 0020 to 0022) reads the blocks of 16,384 campaigns latest first from one cursor, and in each
 * ANDs the words' bitmaps (each the OR of its terms'), takes out the adult campaigns for who may
 * not see them, and checks the titles of the title half's candidates that the full-text half does
 * not hold; the matches wait until there are enough to fill the page, then their campaigns are
 * read and merged into it in one statement. It stops when no older block can change the page and
 * the count has reached its cap. The title half can only add a campaign whose title is read
 * apart from its own words by the text search parser (the bit `o:`) or that holds a title word
 * whose own lexemes miss its run's query ("heart" for the text "art music"): when each full-text
 * word is one run's and one run at most has such title words, its candidates are only looked for
 * among those (`bx`), and in a block where no campaign is apart, only they are read.
 * The cost grows with the blocks read and the terms, not with how many campaigns hold each word
 * nor how rarely they meet: a block is 2 KB of bitmap per term, ANDed as a whole.
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
  /**
   * For each of `subs`, its run's own prefix query (`'stem':*`, empty for a stop word), when the
   * full-text half's words are the runs' own and each run with a word has title terms (the title
   * half can then be limited, see WordsTerms.bx); else null.
   */
  subQueries: string[] | null;
}

/** Shortest run of letters and digits that draws title candidates (a trigram search needs three). */
const MIN_PART = 3;
/** Most terms one word may match: each is a stream of its own in the statement. */
const MAX_TERMS = 16;
/** How many classified searches are kept (the most recently used). */
const KEPT = 1000;

/**
 * Every word's terms in one statement: `k` numbers the word (or run); ranges of the btree (a
 * stem's lexemes, a whole title word, a title word's start) and LIKE patterns of the trigram
 * index (a title word's end, or a piece of one). The arrays behind subqueries: see arrayParam.
 * With each term, whether it is a title word whose own lexemes miss its run's query `q` (given
 * for title runs when the title half can be limited, else empty).
 */
const TERMS_SQL = `select r.k, t.term, r.q <> '' and not (to_tsvector('english', substr(t.term, 3)) @@ r.q::tsquery)
  from unnest((select $1::int[]), (select $2::text[]), (select $3::text[]), (select $6::text[])) r(k, lo, hi, q)
    cross join lateral (select c.term from campaign_search_terms c where c.term >= r.lo and c.term < r.hi) t
  union all
  select l.k, t.term, l.q <> '' and not (to_tsvector('english', substr(t.term, 3)) @@ l.q::tsquery)
  from unnest((select $4::int[]), (select $5::text[]), (select $7::text[])) l(k, pattern, q)
    cross join lateral (select c.term from campaign_search_terms c where c.term like l.pattern and substr(c.term, 1, 2) = 't:') t`;

/**
 * The search's prefix query, and the typed text's runs of letters and digits (empty before a
 * leading or after a trailing separator) with each one's own prefix query (a run holds nothing a
 * query parses as an operator).
 */
const CLASSIFY_SQL = `select to_tsquery('english', $1)::text, p.parts,
    array(select case when u.r = '' then '' else to_tsquery('english', u.r || ':*')::text end from unnest(p.parts) with ordinality u(r, o) order by u.o)
  from (select regexp_split_to_array(lower($2), '[^[:alnum:]]+') as parts) p`;

/** How a title run's terms are looked up: its pattern as a btree range when it has no leading `%`. */
function titleLookup(pattern: string): { lo: string; hi: string } | { like: string } {
  if (pattern.startsWith('t:%')) return { like: pattern };
  if (pattern.endsWith('%')) {
    const lo = pattern.slice(0, -1);
    const hi = pastPrefix(lo);
    return hi === null ? { like: pattern } : { lo, hi };
  }
  // a whole title word: the range holding only itself (no text holds a NUL)
  return { lo: pattern, hi: `${pattern}\u0001` };
}

/**
 * The terms, by word: `a` the full-text half's (one list per word), `b` the title half's (one
 * list per run); `bx`, when the title half is limited (migration 0021 says why): its candidates
 * are the campaigns apart (the bit `o:`) among b's, and bx's: b with the one run that has title
 * words whose own lexemes miss its query cut down to those words (empty when no run has any).
 * Null: no limit (more than one run has such words, or the full-text words are not the runs').
 */
export interface WordsTerms {
  a: string[][];
  b: string[][];
  bx: string[][] | null;
}

export function createWordsSearches(db: Db) {
  const exec = arrayRunner(db);

  async function classify(text: string, ts: string): Promise<WordsSearch | null> {
    const [row] = await exec({ sql: CLASSIFY_SQL, params: [ts, text] }, false);
    const [query, parts, partQueries] = row as [string, string[], string[]];
    // where the title holds the text, a run with punctuation or a space before it starts a title
    // word, one with punctuation or a space after it ends one (the first and last parts are empty
    // when the text starts or ends with punctuation)
    const patterns = parts.map((p, i) => (Array.from(p).length < MIN_PART ? null : `t:${i > 0 ? '' : '%'}${p}${i < parts.length - 1 ? '' : '%'}`));
    const subs = [...new Set(patterns.filter((p): p is string => p !== null))];
    if (!subs.length) return null;
    // the full-text half's words are the runs' own (each run's query, stop words left out, in
    // order), and each run with a word has title terms: the title half can be limited
    const ownWords = partQueries.filter((q) => q !== '').join(' & ');
    const limitable = query !== '' && ownWords === query && partQueries.every((q, i) => q === '' || patterns[i] !== null);
    const subQueries = limitable ? subs.map((pattern) => partQueries[patterns.indexOf(pattern)]) : null;
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
    return { ranges, subs, subQueries };
  }

  return {
    /** How this search's words are answered from the bitmaps, or null. `ts` is its prefix query. */
    of: classified(KEPT, classify),

    /** The words' terms as they are now (one prepared statement); null when a word matches more than MAX_TERMS. */
    async terms(w: WordsSearch): Promise<WordsTerms | null> {
      const ranges: { k: number; lo: string; hi: string; q: string }[] = w.ranges.map((r, k) => ({ k, ...r, q: '' }));
      const likes: { k: number; like: string; q: string }[] = [];
      w.subs.forEach((pattern, i) => {
        const k = w.ranges.length + i;
        const q = w.subQueries?.[i] ?? '';
        const lookup = titleLookup(pattern);
        if ('like' in lookup) likes.push({ k, like: lookup.like, q });
        else ranges.push({ k, ...lookup, q });
      });
      const params = [
        `{${ranges.map((r) => r.k).join(',')}}`,
        textArrayLiteral(ranges.map((r) => r.lo)),
        textArrayLiteral(ranges.map((r) => r.hi)),
        `{${likes.map((l) => l.k).join(',')}}`,
        textArrayLiteral(likes.map((l) => l.like)),
        textArrayLiteral(ranges.map((r) => r.q)),
        textArrayLiteral(likes.map((l) => l.q)),
      ];
      const terms: string[][] = Array.from({ length: w.ranges.length + w.subs.length }, () => []);
      const missing: string[][] = Array.from({ length: w.ranges.length + w.subs.length }, () => []);
      for (const [k, term, misses] of await exec({ sql: TERMS_SQL, params }, true)) {
        terms[Number(k)].push(term as string);
        if (misses === true) missing[Number(k)].push(term as string);
      }
      if (terms.some((t) => t.length > MAX_TERMS)) return null;
      const b = terms.slice(w.ranges.length);
      const runs = missing.slice(w.ranges.length).flatMap((m, i) => (m.length ? [i] : []));
      // no limit, or the runs with the one run that has such words cut down to them, or none
      let bx: string[][] | null = null;
      if (w.subQueries && runs.length === 0) bx = [];
      else if (w.subQueries && runs.length === 1) bx = b.map((t, i) => (i === runs[0] ? missing[w.ranges.length + i] : t));
      return { a: terms.slice(0, w.ranges.length), b, bx };
    },
  };
}

/** The values of a search's term parameters: each half's terms with the number of their word (1, 2, ...). */
export function termValues(t: WordsTerms): {
  aTerms: string;
  aWords: string;
  aN: number;
  bTerms: string;
  bWords: string;
  bN: number;
  bxTerms: string | null;
  bxWords: string | null;
} {
  const flat = (groups: string[][]) => ({
    terms: textArrayLiteral(groups.flat()),
    words: `{${groups.flatMap((g, i) => g.map(() => i + 1)).join(',')}}`,
  });
  const a = flat(t.a);
  const b = flat(t.b);
  const bx = t.bx && flat(t.bx);
  return {
    aTerms: a.terms,
    aWords: a.words,
    aN: t.a.length,
    bTerms: b.terms,
    bWords: b.words,
    bN: t.b.length,
    bxTerms: bx?.terms ?? null,
    bxWords: bx?.words ?? null,
  };
}

/** Values or placeholders of a several-word search. */
export interface IntersectArgs {
  /** The full-text half's terms (text[]), their words' numbers (int[]) and how many words (0: no full-text half). */
  aTerms: unknown;
  aWords: unknown;
  aN: unknown;
  /** The title half's candidates' terms, their runs' numbers and how many runs. */
  bTerms: unknown;
  bWords: unknown;
  bN: unknown;
  /** The limited title half's other candidates (text[], int[]; see WordsTerms.bx), or null: no limit. */
  bxTerms: unknown;
  bxWords: unknown;
  /** The title pattern (`%text%`, LIKE-escaped). */
  like: unknown;
  seeAdult: boolean;
  cursor?: { t: unknown; id: unknown };
  /** Matches the page needs: its offset plus its rows. */
  perHalf: unknown;
  limit: unknown;
  offset: unknown;
}

/** `campaign_search_many(...)`: the newest `need` matches and the count up to `cap`, as rows `(created_at, campaign_id, total)`. */
function many(a: IntersectArgs, need: unknown, cap: number): SQL {
  const cursor = a.cursor ? sql`${a.cursor.t}::timestamptz, ${a.cursor.id}::uuid` : sql`null, null`;
  return sql`campaign_search_many(${a.aTerms}::text[], ${a.aWords}::int[], ${a.aN}::int, ${a.bTerms}::text[], ${a.bWords}::int[], ${a.bN}::int,
    ${a.bxTerms}::text[], ${a.bxWords}::int[], ${a.like}::text, ${sql.raw(a.seeAdult ? 'true' : 'false')}, ${cursor}, ${inText(need)}::int, ${sql.raw(String(cap))})`;
}

/** The page's campaign ids, newest first. */
export function intersectPageIds(a: IntersectArgs): SQL {
  return sql`(select s.campaign_id from ${many(a, a.perHalf, 0)} s where s.campaign_id is not null
    order by s.created_at desc, s.campaign_id desc limit ${inText(a.limit)} offset ${inText(a.offset)})`;
}

/** The page's newest `need` matches with the total (up to SEARCH_COUNT_CAP + 1) on each (no cursor: a first page and its total). */
export function intersectCounted(a: IntersectArgs): SQL {
  return sql`select s.campaign_id, s.created_at, s.total from ${many(a, a.perHalf, SEARCH_COUNT_CAP + 1)} s`;
}

/** The matches counted up to SEARCH_COUNT_CAP + 1, as a subquery with one row per match. */
export function intersectMatches(a: IntersectArgs): SQL {
  return sql`(select 1 from ${many(a, 0, SEARCH_COUNT_CAP + 1)} s cross join generate_series(1, s.total)) matches`;
}
