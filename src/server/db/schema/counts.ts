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
