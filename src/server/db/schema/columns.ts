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
