import { sql, type SQL } from 'drizzle-orm';
import { SEARCH_COUNT_CAP } from '../../../shared/constants';
import { arrayRunner } from '../../db/array-rows';
import type { Db } from '../../db/client';
import { textArrayLiteral } from '../../lib/listing';

/**
 * A search for one word, answered from the search postings (migration 0017,
 * db/schema/search.ts) instead of from the campaigns themselves.
 *
 * A search matches a campaign when every typed word is the start of one of its lexemes (title,
 * tags and description, stemmed: `search_vector @@ to_tsquery('english', 'word:*')`) or when
 * the typed text is inside its title (`title ILIKE '%text%'`). For a single word of letters and
 * digits both halves are sets of terms: the lexemes starting with the word's stem (a range of
 * `campaign_search_terms`), and the title words containing the word (a trigram search of it:
 * the typed word is inside the title exactly when it is inside one of the title's words, since
 * it holds no character that ends a word). A campaign matches when it holds one of those terms,
 * and each term's postings are in created_at order: the page is the newest rows of the union of
 * each term's newest rows after the cursor, read backwards from one index range per term (an
 * index-only scan), and the total (capped) is the number of distinct campaigns among each term's
 * first SEARCH_COUNT_CAP + 1. The cost grows with the number of terms a word matches, not with
 * how many campaigns hold them nor how far back the first of them is.
 *
 * Everything else (several words, punctuation, words under 3 characters, an owner's own list,
 * deep `page=` offsets) stays on the campaigns' own indexes.
 */

/** The terms of a one-word search: the stem's lexeme range (null for a stop word) and the title words' pattern. */
export interface WordSearch {
  /** `w:` + the stem: lexemes from here (inclusive)... */
  lo: string | null;
  /** ...to here (exclusive): every string that starts with the stem. */
  hi: string | null;
  /** LIKE pattern of the title words containing the word (among `t:` terms). */
  sub: string;
}

const TERMS_SQL = `select term from campaign_search_terms where term like $1 and substr(term, 1, 2) = 't:'
  union select term from campaign_search_terms where term >= $2 and term < $3`;

/**
 * A search text's classification, kept for the last `kept` texts: other spellings of an ASCII
 * text are the same search (lower case is the same here and in the database); anything else is
 * kept as typed.
 */
export function classified<T>(kept: number, classify: (text: string, ts: string) => Promise<T>): (text: string, ts: string) => Promise<T> {
  const known = new Map<string, T>();
  return async (text, ts) => {
    const key = /^[\x20-\x7e]*$/.test(text) ? text.toLowerCase() : `${ts}\u0000${text}`;
    if (known.has(key)) {
      const v = known.get(key) as T;
      known.delete(key);
      known.set(key, v);
      return v;
    }
    const v = await classify(text, ts);
    known.set(key, v);
    if (known.size > kept) known.delete(known.keys().next().value!);
    return v;
  };
}

/** Shortest word answered from the postings: a trigram search needs three characters. */
const MIN_WORD = 3;
/** Deepest `page=` offset answered from the postings (each term then reads offset + limit rows). */
export const POSTINGS_MAX_OFFSET = 1000;
/** How many classified words are kept (the most recently used). */
const WORDS_KEPT = 1000;

/** The string just past every string starting with `prefix` in code point (C collation) order, or null. */
export function pastPrefix(prefix: string): string | null {
  const points = Array.from(prefix);
  const last = points.pop();
  if (last === undefined) return null;
  const next = (last.codePointAt(0) ?? 0) + 1;
  // skip the surrogate range, which no string holds
  if (next > 0x10ffff) return null;
  return points.join('') + String.fromCodePoint(next >= 0xd800 && next <= 0xdfff ? 0xe000 : next);
}

/**
 * Tells whether a search is one word the postings answer, and its terms. The database itself
 * decides (its stemmer, its notion of letters and digits, its lower case), once per distinct
 * search text while the text is among the last WORDS_KEPT.
 */
export function createWordSearches(db: Db) {
  const exec = arrayRunner(db);

  async function classify(text: string, ts: string): Promise<WordSearch | null> {
    const [row] = await exec(
      {
        sql: `select to_tsquery('english', $1)::text, lower($2), lower($2) ~ '^[[:alnum:]]+$'`,
        params: [ts, text],
      },
      false,
    );
    const [query, word, alnum] = row as [string, string, boolean];
    if (!alnum || Array.from(word).length < MIN_WORD) return null;
    // no prefix in the pattern: the trigram index finds the title words, not a range of all of them
    const sub = `%${word}%`;
    // a stop word: the full-text half matches nothing
    if (query === '') return { lo: null, hi: null, sub };
    const m = /^'([^'\\]+)':\*$/.exec(query);
    if (!m) return null;
    const lo = `w:${m[1]}`;
    const hi = pastPrefix(lo);
    return hi === null ? null : { lo, hi, sub };
  }

  return {
    /**
     * The search's terms as they are now, as a text[] literal: the lexemes in the stem's range and
     * the title words containing the word (a prepared statement: its plan, the lexicon's btree for
     * the range and its trigram index for the pattern, suits every word). The page and the total,
     * prepared too, take the terms as one parameter.
     */
    async terms(w: WordSearch): Promise<string> {
      // a stop word's range is empty ('' to '')
      const rows = await exec({ sql: TERMS_SQL, params: [w.sub, w.lo ?? '', w.hi ?? ''] }, true);
      return textArrayLiteral(rows.map((r) => r[0] as string));
    },

    /** The terms of this search when the postings answer it, else null. `ts` is the search's prefix query. */
    of: classified(WORDS_KEPT, classify),
  };
}

/** Values or placeholders of a postings query. */
export interface PostingsArgs {
  /** The search's terms, a text[] literal (WordSearches.terms). */
  terms: unknown;
  seeAdult: boolean;
  cursor?: { t: unknown; id: unknown };
  /** Rows read per term: the page's offset plus its rows. */
  perTerm: unknown;
  limit: unknown;
  offset: unknown;
}

/** Each term's newest `n` postings (after the cursor), as `h(campaign_id, created_at)`. */
function hitsSql(a: PostingsArgs, n: unknown, withCursor: boolean): SQL {
  const adult = a.seeAdult ? sql`` : sql` and not p.adult`;
  const after = withCursor && a.cursor ? sql` and (p.created_at, p.campaign_id) < (${a.cursor.t}::timestamptz, ${a.cursor.id}::uuid)` : sql``;
  return sql`unnest(${arrayParam(a.terms, 'text[]')}) t(term) cross join lateral (
    select p.campaign_id, p.created_at from campaign_search_postings p
    where p.term = t.term${adult}${after}
    order by p.created_at desc, p.campaign_id desc limit ${inText(n)}) h`;
}

/**
 * A value of a prepared statement: a number known when the statement is built (a first page's
 * size) goes into its text, anything else stays a parameter. PostgreSQL keeps a prepared
 * statement's generic plan only when it costs no more than the plans made for each request's
 * values: with `limit $1` it has to guess the limit, and with an array parameter its length,
 * so it planned a search's statements anew for every request (0.7-0.9 ms of PostgreSQL CPU each).
 */
export function inText(v: unknown): unknown {
  return typeof v === 'number' ? sql.raw(String(v)) : v;
}

/**
 * An array parameter as `unnest` sees it: behind a subquery, so that the plan made for a
 * request's values estimates its length as the generic plan does (otherwise the generic plan,
 * guessing, always looks costlier, and is never kept).
 */
export function arrayParam(v: unknown, type: string): SQL {
  return sql`(select ${v}::${sql.raw(type)})`;
}

/** The page's campaign ids, newest first. */
export function postingsPageIds(a: PostingsArgs): SQL {
  return sql`(select h.campaign_id from ${hitsSql(a, a.perTerm, true)}
    group by h.created_at, h.campaign_id
    order by h.created_at desc, h.campaign_id desc
    limit ${inText(a.limit)} offset ${inText(a.offset)})`;
}

/** Each term's newest `n` postings, as `h(campaign_id, created_at)` (no cursor: a first page and its total). */
export function postingsHits(a: PostingsArgs, n: unknown): SQL {
  return hitsSql(a, n, false);
}

/** The matches counted up to SEARCH_COUNT_CAP + 1, as a subquery with one row per match. */
export function postingsMatches(a: PostingsArgs): SQL {
  const cap = sql.raw(String(SEARCH_COUNT_CAP + 1));
  return sql`(select distinct h.campaign_id from ${hitsSql(a, cap, false)} limit ${cap}) matches`;
}
