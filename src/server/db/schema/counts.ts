import { bigint, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/**
 * Row counts of the browsable lists (campaigns, projects) per audience (lib/access.ts: the
 * generated column `audience`), kept by statement-level triggers (migration 0026) in the same
 * transaction as the change. An unfiltered list's `total` adds the audiences its viewer sees
 * instead of counting a million rows.
 */
export const listCounts = pgTable(
  'list_counts',
  {
    entity: text('entity').notNull(),
    audience: text('audience').notNull(),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ name: 'list_counts_pkey', columns: [t.entity, t.audience] })],
);

/**
 * One row per browsable list, raised by the same statement-level triggers (migration 0026), always
 * after list_counts so that every writer takes the locks in one order.
 */
export const listVersions = pgTable('list_versions', {
  entity: text('entity').primaryKey(),
  /**
   * Goes up whenever a change can move rows already in the list to another position counted
   * from its oldest end: a delete, a change of audience or of `created_at`, or an insert dated
   * earlier than list_recent_margin() (5 minutes) ago. New items, dated now, join at the newest
   * end and leave it alone. The campaign list's page marks (modules/campaigns/page-marks.ts)
   * hold while it stays the same.
   */
  generation: bigint('generation', { mode: 'number' }).notNull().default(0),
});
