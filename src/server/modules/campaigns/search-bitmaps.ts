import { arrayRunner } from '../../db/array-rows';
import type { Db } from '../../db/client';
import { SEARCH_BLOCK_BITS } from '../../db/schema/search';
import { textArrayLiteral } from '../../lib/listing';
import type { WordsTerms } from './search-intersections';

/**
 * The search's block bitmaps (migration 0019), ANDed in the server instead of in the database.
 *
 * A search of several words reads, for each block of 16,384 campaigns, each of its terms' bitmaps
 * (2 KB) and ANDs them. Done by PostgreSQL, a block cost 25 to 80 microseconds of executor work
 * (bit strings copied and allocated at each step), so a search whose words are rare together,
 * reading all 62 blocks of a million campaigns, took 2 to 7 ms of database CPU. Here the bitmaps
 * are held in memory, as they change seldom. Each block has a version (a new, greater number
 * whenever one of its bitmaps or its date range changes, in the same transaction: migration 0023); the server
 * reads the blocks' versions and, in the same statement, the bitmaps of the blocks whose version
 * it does not hold. A search whose terms are all held at the versions last read reads nothing
 * first: the statement that reads its campaigns also reads BLOCKS_AT, and when that is not what
 * it was, the bitmaps changed meanwhile and the search is answered again, from fresh ones. The
 * ANDs are a few hundred operations a block on sorted positions or 32-bit words. What stays in
 * the database: which campaigns the chosen slots are, in date order, and the title check of the
 * title half's candidates.
 *
 * Held per term and block: a sparse bitmap (up to SPARSE_MAX bits set) as the sorted positions of
 * its bits, a denser one as 512 words; the terms least recently used are dropped beyond
 * `maxBytes`.
 */

/** 32-bit words of a block's bitmap. */
const WORDS = SEARCH_BLOCK_BITS / 32;
/** A bitmap with at most this many bits set is held as their positions (2 bytes each, no more than the bitmap). */
const SPARSE_MAX = SEARCH_BLOCK_BITS / 16;
/** Bytes held besides the bits, per term and block (an estimate of the entry's own objects). */
const ENTRY_OVERHEAD = 80;
/** Default memory for the bitmaps held. */
const BITMAP_CACHE_BYTES = 64 * 1024 * 1024;

/** A term's bitmap in one block: positions of its bits (bit 0 the block's newest slot), or 512 words. */
type Bits = Uint16Array | Uint32Array;

/** A block as the search reads it: its number, date range (epoch ms) and version. */
interface Block {
  block: number;
  lo: number;
  hi: number;
  v: string;
}

/** A term's bitmap in each block, in the order of the blocks read (absent: no campaign of the block holds it). */
type Column = (Bits | undefined)[];

/** Bit i of a dense bitmap is bit (i & 31) of word i >>> 5; in PostgreSQL's bit string it is the i-th from the left. */
const REVERSED = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  let r = 0;
  for (let k = 0; k < 8; k++) if (b & (1 << k)) r |= 1 << (7 - k);
  REVERSED[b] = r;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
}

/** A bitmap as PostgreSQL sends it (varbit_send without its length: 2,048 bytes, leftmost bit first), held sparse or dense. */
function fromBytes(bytes: Uint8Array): Bits {
  const dense = new Uint32Array(WORDS);
  let n = 0;
  for (let w = 0; w < WORDS; w++) {
    const j = w * 4;
    const x = (REVERSED[bytes[j]] | (REVERSED[bytes[j + 1]] << 8) | (REVERSED[bytes[j + 2]] << 16) | (REVERSED[bytes[j + 3]] << 24)) >>> 0;
    dense[w] = x;
    if (x) n += popcount(x);
  }
  return n > SPARSE_MAX ? dense : positions(dense, n);
}

/** The positions of a dense bitmap's n bits, in order. */
function positions(dense: Uint32Array, n: number): Uint16Array {
  const out = new Uint16Array(n);
  let k = 0;
  for (let w = 0; w < WORDS; w++) {
    let x = dense[w];
    while (x) {
      const low = x & -x;
      out[k++] = w * 32 + 31 - Math.clz32(low);
      x ^= low;
    }
  }
  return out;
}

function bytesOf(b: Bits): number {
  return b.byteLength + ENTRY_OVERHEAD;
}

/** Whether a set holds position p. */
function holds(b: Bits, p: number): boolean {
  if (b instanceof Uint32Array) return (b[p >>> 5] & (1 << (p & 31))) !== 0;
  let lo = 0;
  let hi = b.length - 1;
  while (lo <= hi) {
    const m = (lo + hi) >>> 1;
    const x = b[m];
    if (x === p) return true;
    if (x < p) lo = m + 1;
    else hi = m - 1;
  }
  return false;
}

/**
 * The positions of `a` that one of `sets` holds, or with `not`, that none holds (a new set). A
 * sparse set much larger than `a` is searched by bisection, any other walked along with `a`.
 */
function filter(a: Uint16Array, sets: readonly Bits[], not: boolean): Uint16Array {
  const keep = new Uint8Array(a.length);
  for (const x of sets) {
    if (x instanceof Uint32Array) {
      for (let k = 0; k < a.length; k++) if ((x[a[k] >>> 5] & (1 << (a[k] & 31))) !== 0) keep[k] = 1;
    } else if (a.length * 16 < x.length) {
      for (let k = 0; k < a.length; k++) if (!keep[k] && holds(x, a[k])) keep[k] = 1;
    } else {
      let i = 0;
      for (let k = 0; k < a.length; k++) {
        const p = a[k];
        while (i < x.length && x[i] < p) i++;
        if (i < x.length && x[i] === p) keep[k] = 1;
      }
    }
  }
  const out = new Uint16Array(a.length);
  let n = 0;
  const want = not ? 0 : 1;
  for (let k = 0; k < a.length; k++) if (keep[k] === want) out[n++] = a[k];
  return out.subarray(0, n);
}

/** The union of two sorted position sets. */
function merge(a: Uint16Array, b: Uint16Array): Uint16Array {
  const out = new Uint16Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    if (a[i] < b[j]) out[n++] = a[i++];
    else if (a[i] > b[j]) out[n++] = b[j++];
    else {
      out[n++] = a[i++];
      j++;
    }
  }
  while (i < a.length) out[n++] = a[i++];
  while (j < b.length) out[n++] = b[j++];
  return out.subarray(0, n);
}

/** The union of sets (the sets are not changed): one set as it is, sorted positions while every one is, else a dense bitmap. */
function union(sets: readonly Bits[]): Bits {
  if (sets.length === 1) return sets[0];
  if (sets.every((x) => x instanceof Uint16Array)) {
    let out = sets[0] as Uint16Array;
    for (let k = 1; k < sets.length; k++) out = merge(out, sets[k] as Uint16Array);
    if (out.length <= SPARSE_MAX) return out;
  }
  const out = new Uint32Array(WORDS);
  for (const x of sets) {
    if (x instanceof Uint32Array) for (let w = 0; w < WORDS; w++) out[w] |= x[w];
    else for (let k = 0; k < x.length; k++) out[x[k] >>> 5] |= 1 << (x[k] & 31);
  }
  return out;
}

/** a AND b, or with `not`, a AND NOT b (new sets; a and b are not changed). */
function both(a: Bits, b: Bits, not = false): Bits {
  if (a instanceof Uint16Array) return filter(a, [b], not);
  if (b instanceof Uint16Array && !not) return filter(b, [a], false);
  const out = a.slice();
  if (b instanceof Uint32Array) {
    if (not) for (let w = 0; w < WORDS; w++) out[w] &= ~b[w];
    else for (let w = 0; w < WORDS; w++) out[w] &= b[w];
  } else {
    for (let k = 0; k < b.length; k++) out[b[k] >>> 5] &= ~(1 << (b[k] & 31));
  }
  return out;
}

/** How many positions a set may hold, at most (a dense one: all). */
function size(sets: readonly Bits[]): number {
  let n = 0;
  for (const x of sets) n += x instanceof Uint16Array ? x.length : SEARCH_BLOCK_BITS;
  return n;
}

/**
 * The AND over words of each word's OR of terms in block i (null: some word has no campaign
 * there): from the smallest word, the positions that some term of each other word holds.
 */
function allOf(i: number, words: readonly (readonly Column[])[]): Bits | null {
  const present: Bits[][] = [];
  for (const terms of words) {
    const sets: Bits[] = [];
    for (const col of terms) {
      const x = col[i];
      if (x) sets.push(x);
    }
    if (!sets.length) return null;
    present.push(sets);
  }
  present.sort((x, y) => size(x) - size(y));
  let out = union(present[0]);
  for (let k = 1; k < present.length; k++) {
    out = out instanceof Uint16Array ? filter(out, present[k], false) : both(out, union(present[k]));
    if (out.length === 0) return out;
  }
  return out;
}

function count(b: Bits): number {
  if (b instanceof Uint16Array) return b.length;
  let n = 0;
  for (let w = 0; w < WORDS; w++) if (b[w]) n += popcount(b[w]);
  return n;
}

/** The campaigns' slots of a block's set (slot s is bit 16383 - (s & 16383) of block s >> 14), appended. */
function slotsInto(out: number[], blk: number, b: Bits): void {
  const base = blk * SEARCH_BLOCK_BITS + SEARCH_BLOCK_BITS - 1;
  if (b instanceof Uint16Array) {
    for (let k = 0; k < b.length; k++) out.push(base - b[k]);
    return;
  }
  for (let w = 0; w < WORDS; w++) {
    let x = b[w];
    while (x) {
      const low = x & -x;
      out.push(base - (w * 32 + 31 - Math.clz32(low)));
      x ^= low;
    }
  }
}

/** What a search of several words needs from the database, found from the bitmaps. */
export interface Chosen {
  /** Slots of the full-text matches of the blocks the page is drawn from. */
  pageSlots: number[];
  /** Slots of the title half's candidates in those blocks (matches when their titles hold the text). */
  pageTitleSlots: number[];
  /** How many campaigns the full-text half matches in all. */
  fullText: number;
  /** Slots of the title half's candidates of every block read for the count (unless the full-text half alone reaches the cap). */
  countTitleSlots: number[];
  /**
   * What BLOCKS_AT read when these bitmaps were read from the database; the answer holds when the
   * statements that use it read the same (else the bitmaps changed meanwhile: see `stale`). Null
   * when nothing was read (no term).
   */
  at: string | null;
}

/**
 * A value of the blocks that changes whenever one of their bitmaps changes: the sum of their
 * versions (each change gives its block a version greater than the one it had) and their number.
 * The statements that read a search's campaigns read it too, in the same snapshot.
 */
export const BLOCKS_AT = `(select coalesce(sum(v), 0)::text || ':' || count(*) from campaign_search_blocks)`;

/**
 * The blocks' versions and, where the server does not hold them, bitmaps, in one statement (one
 * snapshot): a row for each block (its number, date range in epoch ms, version, whether its
 * bitmaps come with it), then a row for each term of the fresh blocks that holds campaigns there.
 * `$2`, `$3`: the blocks and versions held for every term asked.
 */
const BLOCKS_SQL = `with k as materialized (
    select k.block, (extract(epoch from k.lo_at) * 1000)::bigint as lo, (extract(epoch from k.hi_at) * 1000)::bigint as hi, k.v, c.block is null as fresh
    from campaign_search_blocks k left join unnest((select $2::int[]), (select $3::bigint[])) c(block, v) on c.block = k.block and c.v = k.v)
  select k.block, k.lo, k.hi, k.v, k.fresh, null::text, null::bytea from k
  union all
  select b.block, null, null, null, null, b.term, substring(varbit_send(b.bits) from 5) from campaign_search_bits b
  where b.term = any ((select $1::text[])::text[]) and b.block = any (array(select k.block from k where k.fresh))`;

/**
 * The bitmaps held by this server, and the search over them. `maxBytes`: the memory they may take
 * (the terms least recently used are dropped beyond it).
 */
export function createSearchBitmaps(db: Db, opts: { maxBytes?: number } = {}) {
  const exec = arrayRunner(db);
  const maxBytes = opts.maxBytes ?? BITMAP_CACHE_BYTES;
  /**
   * term -> each block's version and bitmap (null: none in the block), and the column of the blocks
   * last read, when built; a Map's order is its use, oldest first.
   */
  const held = new Map<string, { blocks: Map<number, { v: string; bits: Bits | null }>; col: { at: string; bits: Column } | null }>();
  let bytes = 0;
  /** Blocks whose bitmaps were read from the database, in all. */
  let reads = 0;
  /** The blocks as last read (latest date first), and their BLOCKS_AT then. */
  let snapshot: { at: string; blocks: Block[] } | null = null;

  /** The blocks last read with these terms' columns, when every term is held at their versions. */
  function fromHeld(terms: string[]): { at: string; blocks: Block[]; cols: Map<string, Column> } | null {
    if (!snapshot) return null;
    const cols = new Map<string, Column>();
    for (const term of terms) {
      const e = held.get(term);
      if (!e) return null;
      if (e.col?.at !== snapshot.at) {
        const col: Column = new Array(snapshot.blocks.length);
        for (let i = 0; i < snapshot.blocks.length; i++) {
          const k = snapshot.blocks[i];
          const o = e.blocks.get(k.block);
          if (!o || o.v !== k.v) return null;
          col[i] = o.bits ?? undefined;
        }
        e.col = { at: snapshot.at, bits: col };
      }
      cols.set(term, e.col.bits);
    }
    // used last
    for (const term of terms) {
      const e = held.get(term)!;
      held.delete(term);
      held.set(term, e);
    }
    return { at: snapshot.at, blocks: snapshot.blocks, cols };
  }

  function drop(term: string): void {
    const e = held.get(term);
    if (!e) return;
    for (const o of e.blocks.values()) if (o.bits) bytes -= bytesOf(o.bits);
    held.delete(term);
  }

  /** Every block with the bitmaps of these terms, as of now (`at`: the blocks' BLOCKS_AT). */
  async function read(terms: string[]): Promise<{ at: string; blocks: Block[]; cols: Map<string, Column> }> {
    // the blocks held at one version for every term (entries are replaced, never changed)
    const known = new Map<number, string>();
    for (const [block, e] of held.get(terms[0])?.blocks ?? []) {
      if (terms.every((term) => held.get(term)?.blocks.get(block)?.v === e.v)) known.set(block, e.v);
    }
    const rows = await exec(
      { sql: BLOCKS_SQL, params: [textArrayLiteral(terms), `{${[...known.keys()].join(',')}}`, `{${[...known.values()].join(',')}}`] },
      true,
    );
    const blocks: Block[] = [];
    const fetched = new Map<number, Map<string, Bits>>();
    let sum = 0n;
    for (const [block, lo, hi, v, fresh, term, raw] of rows) {
      const n = Number(block);
      if (term === null) {
        sum += BigInt(v as string);
        if (!fresh && known.get(n) !== String(v)) throw new Error(`search bitmaps: block ${n} answered as held but not held`);
        if (fresh) fetched.set(n, new Map());
        blocks.push({ block: n, lo: Number(lo), hi: Number(hi), v: String(v) });
      } else {
        fetched.get(n)?.set(term as string, fromBytes(raw as Uint8Array));
      }
    }
    // latest date first
    blocks.sort((x, y) => y.hi - x.hi || y.block - x.block);
    reads += fetched.size;
    const versions = new Map(blocks.map((b) => [b.block, b.v]));
    // the fetched blocks held for each term
    for (const term of terms) {
      let e = held.get(term);
      if (!e) {
        e = { blocks: new Map(), col: null };
        held.set(term, e);
      }
      for (const [n, bitsOf] of fetched) {
        const old = e.blocks.get(n);
        if (old?.bits) bytes -= bytesOf(old.bits);
        const bits = bitsOf.get(term) ?? null;
        if (bits) bytes += bytesOf(bits);
        e.blocks.set(n, { v: versions.get(n)!, bits });
      }
      // blocks gone (the bitmaps rebuilt)
      for (const [n, o] of e.blocks) {
        if (versions.has(n)) continue;
        if (o.bits) bytes -= bytesOf(o.bits);
        e.blocks.delete(n);
      }
    }
    snapshot = { at: `${sum}:${blocks.length}`, blocks };
    const out = fromHeld(terms);
    if (!out) throw new Error('search bitmaps: the blocks just read are not held');
    // beyond the memory allowed, the terms used least recently go (never this search's)
    while (bytes > maxBytes && held.size > terms.length) drop(held.keys().next().value!);
    return out;
  }

  return {
    /**
     * What the database needs to answer a search of several words: the newest `need` matches
     * (after the cursor, `cursorAt` in epoch ms), and the count up to `cap`. The page's blocks
     * are read latest date first until no older block can change the page: its `need` newest
     * sure matches (full-text, after the cursor) are all newer than anything in the next block.
     */
    async choose(t: WordsTerms, o: { seeAdult: boolean; cursorAt: number | null; need: number; cap: number }): Promise<Chosen> {
      const terms = new Set([...t.a.flat(), ...t.b.flat(), ...(t.bx ?? []).flat()]);
      if (!o.seeAdult) terms.add('a:');
      if (t.bx && t.b.length > 0) terms.add('o:');
      const chosen: Chosen = { pageSlots: [], pageTitleSlots: [], fullText: 0, countTitleSlots: [], at: null };
      if (terms.size === 0) return chosen;
      let pageDone = o.need === 0;
      let sure = 0;
      let sureLo = Infinity;
      const { at, blocks, cols } = fromHeld([...terms]) ?? (await read([...terms]));
      chosen.at = at;
      const columns = (words: string[][]) => words.map((w) => w.map((term) => cols.get(term)!));
      const a = columns(t.a);
      const b = columns(t.b);
      const bx = t.bx ? columns(t.bx) : null;
      const adults = o.seeAdult ? null : cols.get('a:')!;
      const apart = bx ? cols.get('o:') : undefined;
      for (let i = 0; i < blocks.length; i++) {
        const blk = blocks[i];
        if (!pageDone && sure >= o.need && blk.hi < sureLo) pageDone = true;
        if (pageDone && chosen.fullText >= o.cap) break;
        const adult = adults?.[i];
        // the full-text half: every word's terms, the adult campaigns out for who may not see them
        let f = a.length ? allOf(i, a) : null;
        if (f && adult) f = both(f, adult, true);
        const fc = f ? count(f) : 0;
        // the title half: candidates, or when limited, those apart (o:) and bx's
        let c: Bits | null = null;
        if (b.length) {
          if (!bx) c = allOf(i, b);
          else {
            const away = apart?.[i];
            const whole = away ? allOf(i, b) : null;
            const x = bx.length ? allOf(i, bx) : null;
            const kept = whole && away ? both(whole, away) : null;
            c = kept && x ? union([kept, x]) : (kept ?? x);
          }
          if (c && adult) c = both(c, adult, true);
          if (c && f && fc) c = both(c, f, true);
        }
        const titleSlots: number[] = [];
        if (c) slotsInto(titleSlots, blk.block, c);
        const open = !pageDone && (o.cursorAt === null || blk.lo <= o.cursorAt);
        if (open) {
          if (f && fc) slotsInto(chosen.pageSlots, blk.block, f);
          for (const s of titleSlots) chosen.pageTitleSlots.push(s);
          // a block straddling the cursor: how many of its matches come after it is not known here
          if (fc && (o.cursorAt === null || blk.hi < o.cursorAt)) {
            sure += fc;
            sureLo = Math.min(sureLo, blk.lo);
          }
        }
        chosen.fullText += fc;
        if (chosen.fullText < o.cap) for (const s of titleSlots) chosen.countTitleSlots.push(s);
      }
      if (chosen.fullText >= o.cap) chosen.countTitleSlots = [];
      return chosen;
    },

    /**
     * The blocks read at `at` have changed since: the next search reads their versions again
     * (and the bitmaps that changed).
     */
    stale(at: string): void {
      if (snapshot?.at === at) snapshot = null;
    },

    /** Bytes held (an estimate), terms held, and how many blocks' bitmaps were read in all. */
    held: () => ({ bytes, terms: held.size, reads }),
  };
}
