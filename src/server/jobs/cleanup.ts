import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import type { Storage } from '../storage/storage';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Rows of a raw statement's answer (postgres.js answers an array, PGlite `{ rows }`). */
const rowsOf = <T>(r: unknown) => (Array.isArray(r) ? r : (r as { rows: T[] }).rows) as T[];

/**
 * Deletes uploaded images that nothing references (no account's avatar, no campaign's, project's
 * or team's cover or gallery, no comment, no campaign update) and that are older than a day (a form may still be
 * about to use a fresh one), at most `limit` a run, then their files. The row goes first: a
 * file left behind by a crash is harmless, a row pointing at no file is not.
 *
 * The references are gathered once per run (a pass over each table that holds image URLs), so a
 * run costs the same whatever the number of uploads.
 */
export async function deleteUnreferencedUploads(deps: { db: Db; storage: Storage; log: FastifyBaseLogger }, now = new Date(), limit = 500): Promise<number> {
  const cutoff = new Date(now.getTime() - DAY_MS).toISOString();
  const deleted = rowsOf<{ storage_key: string }>(
    await deps.db.execute(sql`
      with used as (
        select image_url as url from users where image_url is not null
        union select image_url from campaigns where image_url is not null
        union select e->>'url' from campaigns, jsonb_array_elements(images) e
        union select image_url from projects where image_url is not null
        union select e->>'url' from projects, jsonb_array_elements(images) e
        union select image_url from teams where image_url is not null
        union select image_url from comments where image_url is not null
        union select e->>'url' from campaign_updates, jsonb_array_elements(images) e
      )
      delete from images where id in (
        select i.id from images i
        where i.created_at < ${cutoff}::timestamptz
          and not exists (select 1 from used u where u.url = i.url)
        order by i.created_at
        limit ${limit}
      )
      returning storage_key`),
  );
  for (const { storage_key } of deleted) {
    try {
      await deps.storage.delete(storage_key);
    } catch (err) {
      deps.log.warn({ err, key: storage_key }, 'could not remove an unreferenced upload');
    }
  }
  return deleted.length;
}
