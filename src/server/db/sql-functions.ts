import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from './client';

/**
 * The SQL functions and triggers the migrations leave in the database, one file each, checked in
 * under drizzle/functions/ and drizzle/triggers/ so that a function is read there, not by
 * replaying migrations. `npm run db:functions` writes them from a migrated database
 * (cli/sql-functions.ts); sql-functions.test.ts holds them equal to what the migrated test
 * database has.
 */
export const functionsDir = fileURLToPath(new URL('../../../drizzle/functions', import.meta.url));
export const triggersDir = fileURLToPath(new URL('../../../drizzle/triggers', import.meta.url));

export interface SqlObject {
  /** The file's name: `<function>.sql`, or `<table>.<trigger>.sql`. */
  file: string;
  /** What the file holds: pg_get_functiondef or pg_get_triggerdef, ending in one newline. */
  body: string;
}

export interface SqlObjects {
  functions: SqlObject[];
  triggers: SqlObject[];
}

/**
 * The app's own functions and triggers: schema public, no function that belongs to an extension
 * (pg_trgm's live in public too) and no internal trigger (those of foreign keys). Aggregates and
 * window functions are left out (pg_get_functiondef refuses them; the app defines none). An
 * overloaded name gets its argument types in the file name, so each file is one function.
 */
export async function readSqlObjects(db: DbOrTx): Promise<SqlObjects> {
  const functions = rowsOf<{ name: string; args: string; overloads: number; def: string }>(
    await db.execute(sql`
      select p.proname as name,
             pg_get_function_identity_arguments(p.oid) as args,
             count(*) over (partition by p.proname)::int as overloads,
             pg_get_functiondef(p.oid) as def
        from pg_proc p
        join pg_namespace n on n.oid = p.pronamespace
       where n.nspname = 'public'
         and p.prokind in ('f', 'p')
         and not exists (
           select 1 from pg_depend d
            where d.classid = 'pg_proc'::regclass and d.objid = p.oid
              and d.refclassid = 'pg_extension'::regclass and d.deptype = 'e'
         )
       order by p.proname, args`),
  );
  const triggers = rowsOf<{ tbl: string; name: string; def: string }>(
    await db.execute(sql`
      select c.relname as tbl, t.tgname as name, pg_get_triggerdef(t.oid, true) as def
        from pg_trigger t
        join pg_class c on c.oid = t.tgrelid
        join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'public'
         and not t.tgisinternal
         and not exists (
           select 1 from pg_depend d
            where d.classid = 'pg_class'::regclass and d.objid = c.oid
              and d.refclassid = 'pg_extension'::regclass and d.deptype = 'e'
         )
       order by c.relname, t.tgname`),
  );
  return {
    functions: functions.map((f) => ({
      file: `${f.overloads > 1 ? `${f.name}(${f.args.replace(/[^A-Za-z0-9_,]+/g, '_')})` : f.name}.sql`,
      body: `${f.def.trimEnd()}\n`,
    })),
    triggers: triggers.map((t) => ({ file: `${t.tbl}.${t.name}.sql`, body: `${t.def.trimEnd()};\n` })),
  };
}

/** The checked-in files of one directory (none when it does not exist yet). */
export function readCheckedIn(dir: string): SqlObject[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .filter((n) => n.endsWith('.sql'))
    .sort()
    .map((file) => ({ file, body: readFileSync(path.join(dir, file), 'utf8') }));
}

/**
 * A body as compared. pg_get_functiondef and pg_get_triggerdef print the same text, byte for
 * byte, on PostgreSQL 15 (CI) and PGlite (PostgreSQL 18): a function's body is stored as the
 * migration wrote it. Only line ends are made one (a checkout that turns them into CRLF).
 */
export function normalizeBody(body: string): string {
  return body.replace(/\r\n?/g, '\n');
}

export interface Difference {
  kind: 'missing file' | 'extra file' | 'changed body';
  /** drizzle/functions/x.sql or drizzle/triggers/t.x.sql */
  file: string;
}

/** What differs between the database's objects and the checked-in files of one directory. */
export function compareObjects(inDatabase: SqlObject[], checkedIn: SqlObject[], dirLabel: string): Difference[] {
  const files = new Map(checkedIn.map((o) => [o.file, o.body]));
  const out: Difference[] = [];
  for (const o of inDatabase) {
    const body = files.get(o.file);
    if (body === undefined) out.push({ kind: 'missing file', file: `${dirLabel}/${o.file}` });
    else if (normalizeBody(body) !== normalizeBody(o.body)) out.push({ kind: 'changed body', file: `${dirLabel}/${o.file}` });
    files.delete(o.file);
  }
  for (const file of files.keys()) out.push({ kind: 'extra file', file: `${dirLabel}/${file}` });
  return out;
}
