import { customType, timestamp, uuid } from 'drizzle-orm/pg-core';

/** Primary keys are random UUIDs: they reveal nothing about counts or order. */
export const id = () => uuid('id').primaryKey().defaultRandom();

/**
 * Millisecond precision on purpose: these columns are keyset-paging cursors and a JS Date has
 * milliseconds only (a microsecond timestamp would make a Date cursor skip rows on real Postgres).
 */
export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow();
export const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow();
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 });

/** A generated full-text column; the expression is given per table. */
export const tsvector = customType<{ data: string }>({
  dataType() {
    return 'tsvector';
  },
});

/**
 * Storage settings of every GIN index (searches, trigrams, tags, an image's updates): no pending
 * list. With PostgreSQL's default (`fastupdate = on`) a new or changed row's entries wait in an
 * unsorted list that every search reads whole until a vacuum or analyze merges it (up to 4 MB):
 * 3,000 new campaigns among 100,000 made the bench's searches 1.5x slower on average (p95 15.7 ->
 * 25.2 ms, `npm run bench -- --only pending`). Without it each write puts its entries in place
 * (inserting a campaign 0.46 ms instead of 0.22).
 */
export const GIN_NO_PENDING = { fastupdate: false } as const;
