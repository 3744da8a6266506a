import { bigint, index, pgTable, text } from 'drizzle-orm/pg-core';
import { GIN_NO_PENDING } from './columns';

/**
 * Every tag in use and how many campaigns, projects, teams and people carry it, kept by
 * statement-level triggers (migration 0008) in the same transaction as the change. Tag
 * suggestions read this small table instead of unnesting every row's tags.
 */
export const tagUsage = pgTable(
  'tag_usage',
  {
    tag: text('tag').primaryKey(),
    uses: bigint('uses', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    index('tag_usage_tag_trgm_idx').using('gin', t.tag.op('gin_trgm_ops')).with(GIN_NO_PENDING),
    index('tag_usage_uses_idx').on(t.uses.desc().nullsFirst()),
  ],
);
