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
    /**
     * Goes up (on both rows of the entity) whenever a change can move rows that are already in
     * the list to another position counted from its oldest end: a delete, a change of `type`
     * across adult or of `created_at`, or an insert dated earlier than a few minutes ago
     * (migration 0010). New items, dated now, join at the newest end and leave it alone. The
     * campaign list's page marks (modules/campaigns/page-marks.ts) hold while it stays the same.
     */
    generation: bigint('generation', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ name: 'list_counts_pkey', columns: [t.entity, t.adult] })],
);
