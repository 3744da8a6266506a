import { and, eq, isNull, lte, ne, sql } from 'drizzle-orm';
import type { PreviewKind } from '../../../shared/schemas/previews';

import { favorites, previewMembers, previewSettings, projectFollows, users } from '../../db/schema';
import type { Deps } from '../../deps';
import { rowsOf, type Tx } from '../../db/client';
import { previewMail } from '../../mail/preview-templates';
import { itemColumn, itemTable } from './grant';

/** The most items one pass of the followers' notices takes (a long downtime catches up over a few passes). */
const FOLLOWERS_BATCH = 50;

/**
 * What a draft's release tells people (issue #30): its circle at once ("it is live, thanks for
 * your feedback"), then, after the delay its owner chose (none by default), the people who
 * favorited it or follow the project. Each notice is sent once: the circle's is recorded in the
 * release's own transaction, guarded by `circle_notified_at`; the followers' by a conditional
 * update of `followers_notified_at` that one process wins, whatever number of them run the pass.
 */
export function createReleaseNotices(deps: Pick<Deps, 'db' | 'mailer' | 'config'>) {
  const { db, mailer, config } = deps;
  const address = (kind: PreviewKind, id: string) => `${config.appUrl}/${kind}s/${id}`;

  /** The addresses of the item's circle (members not revoked: their account's, else the invite's). */
  async function circleAddresses(runner: Tx, kind: PreviewKind, id: string): Promise<string[]> {
    const rows = await runner
      .select({ email: sql<string>`coalesce(${users.email}, ${previewMembers.email})` })
      .from(previewMembers)
      .leftJoin(users, eq(users.id, previewMembers.userId))
      .where(and(eq(itemColumn(previewMembers, kind), id), ne(previewMembers.state, 'revoked')));
    return [...new Set(rows.map((r) => r.email.toLowerCase()))];
  }

  return {
    /**
     * In the transaction that releases these items: the circle's emails recorded and the
     * followers' notice made due after the owner's delay. Returns the deliveries to start after the commit.
     */
    async released(tx: Tx, kind: PreviewKind, items: readonly { id: string; title: string }[]): Promise<() => void> {
      const deliveries: Array<() => void> = [];
      const col = kind === 'campaign' ? 'campaign_id' : 'project_id';
      for (const item of items) {
        const first = rowsOf<{ id: string }>(
          await tx.execute(sql`
            insert into preview_settings (${sql.raw(col)}, circle_notified_at, followers_due_at) values (${item.id}::uuid, now(), now())
            on conflict (${sql.raw(col)}) do update set circle_notified_at = now(),
              followers_due_at = now() + make_interval(mins => preview_settings.followers_delay_minutes)
            where preview_settings.circle_notified_at is null
            returning id`),
        );
        if (!first.length) continue;
        for (const to of await circleAddresses(tx, kind, item.id)) {
          deliveries.push(await mailer.record(tx, previewMail.releasedToCircle(to, item.title, address(kind, item.id))));
        }
      }
      return () => {
        for (const d of deliveries) d();
      };
    },

    /** Emails the people who favorited or follow each released item whose followers' notice is due. Returns how many items. */
    async followersDue(now = new Date()): Promise<number> {
      let done = 0;
      for (;;) {
        let deliveries: Array<() => void> = [];
        const n = await db.transaction(async (tx) => {
          deliveries = [];
          const due = tx
            .select({ id: previewSettings.id })
            .from(previewSettings)
            .where(and(isNull(previewSettings.followersNotifiedAt), lte(previewSettings.followersDueAt, now)))
            .limit(FOLLOWERS_BATCH)
            .for('update', { skipLocked: true });
          const rows = await tx
            .update(previewSettings)
            .set({ followersNotifiedAt: sql`now()` })
            .where(and(sql`${previewSettings.id} in (${due})`, isNull(previewSettings.followersNotifiedAt)))
            .returning({ campaignId: previewSettings.campaignId, projectId: previewSettings.projectId });
          for (const r of rows) {
            const kind: PreviewKind = r.campaignId ? 'campaign' : 'project';
            const id = (r.campaignId ?? r.projectId) as string;
            const t = itemTable(kind);
            const [item] = await tx.select({ title: t.title, ownerId: t.ownerId }).from(t).where(eq(t.id, id));
            if (!item) continue;
            const fans = await tx
              .select({ email: users.email })
              .from(favorites)
              .innerJoin(users, eq(users.id, favorites.userId))
              .where(and(eq(favorites.targetType, kind), eq(favorites.targetId, id)));
            const followers =
              kind === 'project'
                ? await tx
                    .select({ email: users.email })
                    .from(projectFollows)
                    .innerJoin(users, eq(users.id, projectFollows.userId))
                    .where(eq(projectFollows.projectId, id))
                : [];
            const [owner] = await tx.select({ email: users.email }).from(users).where(eq(users.id, item.ownerId));
            // the circle heard at release: nobody gets both notices
            const told = new Set([...(await circleAddresses(tx, kind, id)), owner?.email.toLowerCase()]);
            const to = [...new Set([...fans, ...followers].map((f) => f.email.toLowerCase()))].filter((e) => !told.has(e));
            for (const e of to) deliveries.push(await mailer.record(tx, previewMail.releasedToFollowers(e, item.title, address(kind, id))));
          }
          return rows.length;
        });
        for (const d of deliveries) d();
        done += n;
        if (n < FOLLOWERS_BATCH) return done;
      }
    },
  };
}

export type ReleaseNotices = ReturnType<typeof createReleaseNotices>;
