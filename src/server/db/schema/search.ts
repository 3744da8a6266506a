import { sql } from 'drizzle-orm';
import { bigint, boolean, customType, index, integer, pgTable, primaryKey, timestamp, unique, uuid } from 'drizzle-orm/pg-core';

/**
 * Text compared byte by byte (COLLATE "C"): a term's prefix is then one contiguous range of the
 * btree, whatever the database's collation.
 */
const cText = customType<{ data: string }>({
  dataType() {
    return 'text COLLATE "C"';
  },
});

/** A bit string (`bit varying`), read and written as PostgreSQL's text of it. */
const varbit = customType<{ data: string }>({
  dataType() {
    return 'bit varying';
  },
});

/**
 * The campaign search's postings: for every campaign, one row per search term it holds, in
 * created_at order within the term, so the newest campaigns holding a term are the first entries
 * of one index range (an index-only scan read backwards), however many campaigns hold it. Kept by
 * statement-level triggers on campaigns (migration 0017) in the same transaction as the change.
 *
 * Terms: `w:` + each lexeme of the campaign's `search_vector` (title, tags and description,
 * stemmed: what the full-text half of a search matches by prefix), and `t:` + each word of its
 * title in lower case, a word being a run of letters and digits (what the title-substring half
 * matches: a search for one word is inside the title exactly when it is inside one of its words).
 */
export const campaignSearchPostings = pgTable(
  'campaign_search_postings',
  {
    term: cText('term').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    campaignId: uuid('campaign_id').notNull(),
    /** The campaign's type is adult: hidden from who may not see adult items. */
    adult: boolean('adult').notNull(),
  },
  (t) => [primaryKey({ name: 'campaign_search_postings_pkey', columns: [t.term, t.createdAt, t.campaignId] })],
);

/**
 * Every term that has been in the postings (a term whose campaigns are all gone stays, with no
 * postings): a prefix of a lexeme is a range of its btree, a substring of a title word a trigram
 * search of it.
 */
export const campaignSearchTerms = pgTable(
  'campaign_search_terms',
  {
    term: cText('term').primaryKey(),
  },
  (t) => [index('campaign_search_terms_trgm_idx').using('gin', t.term.op('gin_trgm_ops'))],
);

/** Campaigns in a block of the search's bitmaps (migration 0019). */
export const SEARCH_BLOCK_BITS = 16_384;

/**
 * Where each campaign is in the search's block bitmaps (migration 0019): its slot, numbered in the
 * order campaigns arrive (and, when the bitmaps are rebuilt, in created_at order). Slot `s` is bit
 * `16383 - (s & 16383)` of block `s >> 14`: a block's newest campaign is its leftmost bit.
 */
export const campaignSearchSlots = pgTable(
  'campaign_search_slots',
  {
    slot: integer('slot').notNull(),
    campaignId: uuid('campaign_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  },
  (t) => [primaryKey({ name: 'campaign_search_slots_pkey', columns: [t.slot] }), unique('campaign_search_slots_campaign_key').on(t.campaignId)],
);

/**
 * Each block's date range (widened, never narrowed): a search reads blocks latest first. `v`, its
 * version: a new number (campaign_search_block_version_seq) whenever a bitmap of the block changes,
 * in the same transaction (migration 0023), so a copy of the block's bitmaps held by the server
 * (search-bitmaps.ts) is known to be current when its version is the block's.
 */
export const campaignSearchBlocks = pgTable(
  'campaign_search_blocks',
  {
    block: integer('block').primaryKey(),
    loAt: timestamp('lo_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    hiAt: timestamp('hi_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    v: bigint('v', { mode: 'number' }).notNull().default(sql`nextval('campaign_search_block_version_seq')`),
  },
  (t) => [index('campaign_search_blocks_hi_idx').on(t.hiAt.desc(), t.block.desc())],
);

/**
 * For each search term and block, the bitmap (bit(16384), SEARCH_BLOCK_BITS) of the block's
 * campaigns holding it, and for the term `a:` the adult ones: a search of several words ANDs its
 * words' bitmaps (each the OR of its terms'), 16,384 campaigns at a time. Kept by triggers on
 * campaigns in the same transaction as the change (migration 0019).
 */
export const campaignSearchBits = pgTable(
  'campaign_search_bits',
  {
    term: cText('term').notNull(),
    block: integer('block').notNull(),
    bits: varbit('bits').notNull(),
  },
  (t) => [primaryKey({ name: 'campaign_search_bits_pkey', columns: [t.term, t.block] })],
);
