import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/helpers';
import { type Database, rowsOf } from './client';
import { compareObjects, type Difference, functionsDir, readCheckedIn, readSqlObjects, type SqlObjects, triggersDir } from './sql-functions';

let database: Database;
let objects: SqlObjects;

beforeAll(async () => {
  database = await openTestDatabase();
  objects = await readSqlObjects(database.db);
});

afterAll(async () => {
  await database.close();
});

function report(differences: Difference[]): string {
  return [
    'The checked-in SQL functions and triggers differ from the migrated database. Run `npm run db:functions` and commit drizzle/functions/ and drizzle/triggers/:',
    ...differences.map((d) =>
      d.kind === 'missing file'
        ? `  missing file: ${d.file} (in the database, not checked in)`
        : d.kind === 'extra file'
          ? `  extra file: ${d.file} (checked in, not in the database)`
          : `  changed body: ${d.file} (the database holds another body)`,
    ),
  ].join('\n');
}

describe('checked-in SQL functions and triggers', () => {
  it('are the ones the migrated database holds, each with the same body', () => {
    const differences = [
      ...compareObjects(objects.functions, readCheckedIn(functionsDir), 'drizzle/functions'),
      ...compareObjects(objects.triggers, readCheckedIn(triggersDir), 'drizzle/triggers'),
    ];
    if (differences.length > 0) expect.fail(report(differences));
    expect(objects.functions.length).toBeGreaterThan(0);
    expect(objects.triggers.length).toBeGreaterThan(0);
  });

  it("leave out pg_trgm's functions (in schema public too) and the foreign keys' internal triggers", async () => {
    const [trgm] = rowsOf<{ n: number }>(
      await database.db.execute(sql`select count(*)::int as n from pg_proc p join pg_namespace s on s.oid = p.pronamespace
        where s.nspname = 'public' and p.proname = 'similarity'`),
    );
    expect(trgm.n).toBe(1);
    expect(objects.functions.map((f) => f.file)).not.toContain('similarity.sql');
    const [internal] = rowsOf<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from pg_trigger where tgisinternal`));
    expect(internal.n).toBeGreaterThan(0);
    expect(objects.triggers.every((t) => !t.body.includes('RI_FKey'))).toBe(true);
  });

  it('name what differs: a missing file, an extra file, a changed body', () => {
    const inDatabase = [
      { file: 'a.sql', body: 'CREATE OR REPLACE FUNCTION public.a()\n' },
      { file: 'b.sql', body: 'CREATE OR REPLACE FUNCTION public.b()\n' },
    ];
    const checkedIn = [
      { file: 'b.sql', body: 'CREATE OR REPLACE FUNCTION public.b(x int)\n' },
      { file: 'c.sql', body: 'CREATE OR REPLACE FUNCTION public.c()\n' },
    ];
    const differences = compareObjects(inDatabase, checkedIn, 'drizzle/functions');
    expect(differences).toEqual([
      { kind: 'missing file', file: 'drizzle/functions/a.sql' },
      { kind: 'changed body', file: 'drizzle/functions/b.sql' },
      { kind: 'extra file', file: 'drizzle/functions/c.sql' },
    ]);
    const message = report(differences);
    expect(message).toContain('npm run db:functions');
    expect(message).toContain('missing file: drizzle/functions/a.sql');
    // a checkout with CRLF line ends is the same body
    expect(compareObjects(inDatabase, [{ file: 'a.sql', body: inDatabase[0].body.replace('\n', '\r\n') }, inDatabase[1]], 'x')).toEqual([]);
  });
});
