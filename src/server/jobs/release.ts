import { and, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { campaigns, projects } from '../db/schema';
import { recordChange } from '../lib/history';
import type { ReleaseNotices } from '../modules/previews/notices';

/** The most drafts one pass releases per table (a long downtime catches up over a few passes). */
export const RELEASE_BATCH = 500;

/**
 * Releases every scheduled draft whose time has come (`release_at <= now`), campaigns and
 * projects, and records each in the change history as an update of `releasedAt` and `releaseAt`
 * by the system (no actor). One conditional UPDATE per table: a row already released by another
 * process (or by its owner meanwhile) no longer matches `released_at IS NULL` once its lock is
 * let go, so each draft is released exactly once however many processes run this at once, and a
 * time missed while no process ran is caught up by the next pass. With `notices`, each release's
 * circle is emailed in the same transaction (so exactly once). Returns how many were released.
 */
export async function releaseDue(db: Db, now = new Date(), notices?: ReleaseNotices): Promise<number> {
  let released = 0;
  for (const [table, model, kind] of [
    [campaigns, 'Campaign', 'campaign'],
    [projects, 'Project', 'project'],
  ] as const) {
    for (;;) {
      let deliver = () => {};
      const rows = await db.transaction(async (tx) => {
        const due = tx
          .select({ id: table.id })
          .from(table)
          .where(and(isNull(table.releasedAt), isNotNull(table.releaseAt), lte(table.releaseAt, now)))
          .orderBy(table.releaseAt)
          .limit(RELEASE_BATCH);
        const done = await tx
          .update(table)
          .set({ releasedAt: sql`now()`, releaseAt: null, updatedAt: new Date() })
          .where(and(sql`${table.id} in (${due})`, isNull(table.releasedAt), isNotNull(table.releaseAt), lte(table.releaseAt, now)))
          .returning({ id: table.id, ownerId: table.ownerId, title: table.title });
        for (const r of done) {
          await recordChange(tx, {
            modelName: model,
            action: 'update',
            key: r.id,
            fields: ['releasedAt', 'releaseAt'],
            actorId: null,
            subjectUserId: r.ownerId,
          });
        }
        // the circle hears at once, in this transaction; the followers after the owner's delay (notices.ts)
        if (notices) deliver = await notices.released(tx, kind, done);
        return done.length;
      });
      deliver();
      released += rows;
      if (rows < RELEASE_BATCH) break;
    }
  }
  return released;
}
