import { sql, type SQL } from 'drizzle-orm';
import { SEARCH_COUNT_CAP } from '../../../shared/constants';
import { arrayRunner } from '../../db/array-rows';
import type { Db } from '../../db/client';
import { textArrayLiteral } from '../../lib/listing';
import { BLOCKS_AT, type Chosen } from './search-bitmaps';
import { arrayParam, classified, inText, pastPrefix } from './search-postings';

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
 * Both halves are ANDs of ORs of terms, answered by the bitmaps the server holds
 * (search-bitmaps.ts): they pick the slots of the full-text matches and of the title half's
 * candidates in the blocks the page is drawn from, and the count's candidates; the statements
 * below read those slots' campaigns newest first, check the candidates' titles with `ILIKE`, and
 * count up to SEARCH_COUNT_CAP + 1. The title half can only add a campaign whose title is read
 * apart from its own words by the text search parser (the bit `o:`) or that holds a title word
 * whose own lexemes miss its run's query ("heart" for the text "art music"): when each full-text
 * word is one run's and one run at most has such title words, its candidates are only looked for
 * among those (`bx`), and in a block where no campaign is apart, only they are read.
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
 * for title runs when the title half can be limited, else empty). First, the row `-1`: the bitmap
 * blocks' BLOCKS_AT, read in the same snapshot (see WordsTerms.at).
 */
const TERMS_SQL = `select -1, ${BLOCKS_AT}, false
  union all
  select r.k, t.term, r.q <> '' and not (to_tsvector('english', substr(t.term, 3)) @@ r.q::tsquery)
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
  /**
   * The bitmap blocks' BLOCKS_AT when the terms were read. Terms are only ever added, each with a
   * campaign that holds it, whose block's bitmaps change in the same transaction: while BLOCKS_AT
   * reads the same, no term was added and these are still the words' terms.
   */
  at: string | null;
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
      let at: string | null = null;
      for (const [k, term, misses] of await exec({ sql: TERMS_SQL, params }, true)) {
        if (Number(k) < 0) {
          at = term as string;
          continue;
        }
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
      return { a: terms.slice(0, w.ranges.length), b, bx, at };
    },
  };
}

/** The values of a search's parameters, from what the bitmaps chose (search-bitmaps.ts). */
export function chosenValues(c: Chosen): {
  pageSlots: string;
  pageTitleSlots: string;
  countTitleSlots: string;
  fullText: number;
  countLimit: number;
} {
  return {
    pageSlots: `{${c.pageSlots.join(',')}}`,
    pageTitleSlots: `{${c.pageTitleSlots.join(',')}}`,
    countTitleSlots: `{${c.countTitleSlots.join(',')}}`,
    fullText: c.fullText,
    countLimit: Math.max(0, SEARCH_COUNT_CAP + 1 - c.fullText),
  };
}

/** Values or placeholders of a several-word search (see Chosen). */
export interface IntersectArgs {
  /** The page's full-text matches and title candidates (int[] of slots). */
  pageSlots: unknown;
  pageTitleSlots: unknown;
  /** The count's title candidates (int[]), how many full-text matches there are, and how many title matches the count still needs. */
  countTitleSlots: unknown;
  fullText: unknown;
  countLimit: unknown;
  /** The title pattern (`%text%`, LIKE-escaped). */
  like: unknown;
  cursor?: { t: unknown; id: unknown };
  /** Matches the page needs: its offset plus its rows. */
  perHalf: unknown;
  limit: unknown;
  offset: unknown;
}

/** The page's matches, `(created_at, campaign_id)`: the full-text ones, and the title candidates whose titles hold the text. */
function pageMatches(a: IntersectArgs): SQL {
  const after = a.cursor ? sql` where (m.created_at, m.campaign_id) < (${a.cursor.t}::timestamptz, ${a.cursor.id}::uuid)` : sql``;
  return sql`(select m.created_at, m.campaign_id from (
      select s.created_at, s.campaign_id from campaign_search_slots s where s.slot = any (${arrayParam(a.pageSlots, 'int[]')}::int[])
      union all
      select s.created_at, s.campaign_id from campaign_search_slots s join campaigns c on c.id = s.campaign_id
      where s.slot = any (${arrayParam(a.pageTitleSlots, 'int[]')}::int[]) and c.title ilike ${a.like}) m${after})`;
}

/** How many campaigns match, up to SEARCH_COUNT_CAP + 1: the full-text matches and the title candidates whose titles hold the text. */
function totalOf(a: IntersectArgs): SQL {
  const cap = sql.raw(String(SEARCH_COUNT_CAP + 1));
  return sql`least(${cap}, ${a.fullText}::int + (select count(*)::int from (select 1 from campaign_search_slots s join campaigns c on c.id = s.campaign_id
    where s.slot = any (${arrayParam(a.countTitleSlots, 'int[]')}::int[]) and c.title ilike ${a.like} limit ${a.countLimit}::int) x))`;
}

/** The page's campaign ids, newest first. */
export function intersectPageIds(a: IntersectArgs): SQL {
  return sql`(select m.campaign_id from ${pageMatches(a)} m
    order by m.created_at desc, m.campaign_id desc limit ${inText(a.limit)} offset ${inText(a.offset)})`;
}

/** The page's newest `perHalf` matches with the total (up to SEARCH_COUNT_CAP + 1) on each; no match: one row without a campaign (no cursor: a first page and its total). */
export function intersectCounted(a: IntersectArgs): SQL {
  return sql`select p.campaign_id, p.created_at, t.total from (select ${totalOf(a)} as total) t
    left join lateral (select m.campaign_id, m.created_at from ${pageMatches(a)} m order by m.created_at desc, m.campaign_id desc limit ${inText(a.perHalf)}) p on true`;
}

/** The matches counted up to SEARCH_COUNT_CAP + 1, as a subquery with one row per match. */
export function intersectMatches(a: IntersectArgs): SQL {
  return sql`(select 1 from generate_series(1, ${totalOf(a)})) matches`;
}
