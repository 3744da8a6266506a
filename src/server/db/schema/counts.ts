import { bigint, boolean, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/**
 * Row counts of the browsable lists (campaigns, projects), split by adult or not, kept by
 * statement-level triggers (migration 0006) in the same transaction as the change. An
 * unfiltered list's `total` reads these instead of counting a million rows.
 */
export const listCounts = pgTable(
  'list_counts',
  {
    entity: text('entity').notNull(),
    adult: boolean('adult').notNull(),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ name: 'list_counts_pkey', columns: [t.entity, t.adult] })],
);

/**
 * Change counters of the browsable lists, one row per entity, raised by the same statement-level
 * triggers (migration 0010), always after list_counts so that every writer takes the locks in
 * one order.
 */
export const listVersions = pgTable('list_versions', {
  entity: text('entity').primaryKey(),
  /**
   * Goes up whenever a change can move rows already in the list to another position counted
   * from its oldest end: a delete, a change of `type` across adult or of `created_at`, or an
   * insert dated earlier than list_recent_margin() (5 minutes) ago. New items, dated now, join
   * at the newest end and leave it alone. The campaign list's page marks
   * (modules/campaigns/page-marks.ts) hold while it stays the same.
   */
  generation: bigint('generation', { mode: 'number' }).notNull().default(0),
  /**
   * Goes up with every statement that inserts, updates or deletes rows of the entity: a search's
   * total counted at one value of it is still right while it stays the same.
   */
  changes: bigint('changes', { mode: 'number' }).notNull().default(0),
});
