import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { SEARCH_BLOCK_BITS } from '../../db/schema/search';

/** Test fixtures of the search's bitmap blocks (search-bitmaps.ts, migration 0019). */

/** An hour of 1 January 2026. */
export const at = (hours: number) => new Date(Date.UTC(2026, 0, 1) + hours * 3_600_000);

/** The next campaign goes into a bitmap block of its own. */
export const nextBlock = (db: Db) =>
  db.execute(
    sql`select setval('campaign_search_slot_seq', ((select last_value from campaign_search_slot_seq) / ${SEARCH_BLOCK_BITS}::int + 1) * ${SEARCH_BLOCK_BITS}::int - 1)`,
  );
