import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/helpers';
import { type Database, rowsOf } from './client';

let database: Database;

beforeAll(async () => {
  database = await openTestDatabase();
});

afterAll(async () => {
  await database.close();
});

/** Every GIN index of the migrated database with its storage settings. */
async function ginIndexes() {
  return rowsOf<{ name: string; options: string[] | null }>(
    await database.db.execute(sql`select c.relname as name, c.reloptions as options
      from pg_class c join pg_am a on a.oid = c.relam join pg_namespace n on n.oid = c.relnamespace
      where a.amname = 'gin' and n.nspname = 'public' order by c.relname`),
  );
}

describe('GIN indexes', () => {
  // a pending list is read whole by every search until a vacuum merges it (schema/columns.ts GIN_NO_PENDING)
  it('keep no pending list: each one is fastupdate off, so a new campaign does not slow every search down', async () => {
    const indexes = await ginIndexes();
    expect(indexes.map((i) => i.name)).toEqual(
      expect.arrayContaining(['campaigns_search_idx', 'campaigns_title_trgm_idx', 'projects_search_idx', 'tag_usage_tag_trgm_idx']),
    );
    // PostgreSQL keeps the setting as written: off, false, 0, no
    const off = (options: string[] | null) => (options ?? []).some((o) => /^fastupdate=(off|false|0|no)$/i.test(o));
    const pending = indexes.filter((i) => !off(i.options)).map((i) => i.name);
    expect(pending, `GIN indexes without .with(GIN_NO_PENDING): ${pending.join(', ')}`).toEqual([]);
  });
});
