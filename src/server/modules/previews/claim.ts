import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';

/**
 * A person who proved they own `email` (verified it) takes over the preview invites sent to that
 * address without an account: their seat in each circle and the feedback written under it are
 * now their account's. An item where the account already has a seat keeps that one.
 */
export async function claimPreviewInvites(db: DbOrTx, userId: string, email: string): Promise<void> {
  await db.execute(sql`
    with claimed as (
      update preview_members m set user_id = ${userId}::uuid
       where m.user_id is null and lower(m.email) = lower(${email})
         and not exists (
           select 1 from preview_members o
            where o.user_id = ${userId}::uuid
              and (o.campaign_id = m.campaign_id or o.project_id = m.project_id))
      returning m.id)
    update preview_feedback f set author_id = ${userId}::uuid
     where f.member_id in (select id from claimed) and f.author_id is null`);
}
