import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Database, DatabaseUnavailableError, openCheckedDatabase, openPglite, redactUrl } from '../db/client';
import { compareObjects, functionsDir, readCheckedIn, readSqlObjects, type SqlObject, triggersDir } from '../db/sql-functions';

/**
 * `npm run db:functions` writes the body of every SQL function and trigger the migrations leave
 * in the database to drizzle/functions/<name>.sql and drizzle/triggers/<table>.<trigger>.sql
 * (db/sql-functions.ts), removing the files of objects that are gone. Run it after adding a
 * migration that creates, replaces or drops a function or trigger, and commit the files with it;
 * sql-functions.test.ts fails until then.
 *
 * It migrates a fresh embedded database in memory; with DATABASE_URL set it migrates and reads
 * that PostgreSQL server's database instead (the app migrates it at start in the same way).
 */
function writeDir(dir: string, objects: SqlObject[]): void {
  mkdirSync(dir, { recursive: true });
  const keep = new Set(objects.map((o) => o.file));
  for (const old of readCheckedIn(dir)) if (!keep.has(old.file)) rmSync(path.join(dir, old.file));
  for (const o of objects) writeFileSync(path.join(dir, o.file), o.body);
}

async function main() {
  const url = process.env.DATABASE_URL;
  let database: Database;
  try {
    database = url ? await openCheckedDatabase({ databaseUrl: url, dataDir: '' }) : await openPglite(undefined);
  } catch (err) {
    console.error(err instanceof DatabaseUnavailableError ? err.message : err);
    process.exit(1);
  }
  try {
    await database.migrate();
    const objects = await readSqlObjects(database.db);
    const before = [
      ...compareObjects(objects.functions, readCheckedIn(functionsDir), 'drizzle/functions'),
      ...compareObjects(objects.triggers, readCheckedIn(triggersDir), 'drizzle/triggers'),
    ];
    writeDir(functionsDir, objects.functions);
    writeDir(triggersDir, objects.triggers);
    const from = url ? `PostgreSQL at ${redactUrl(url)}` : 'a fresh embedded database';
    console.log(`${objects.functions.length} functions and ${objects.triggers.length} triggers from ${from}, migrated.`);
    const verb = { 'missing file': 'new', 'extra file': 'removed', 'changed body': 'changed' } as const;
    for (const d of before) console.log(`  ${verb[d.kind]}: ${d.file}`);
    if (before.length === 0) console.log('  no change');
  } finally {
    await database.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
