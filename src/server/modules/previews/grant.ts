import { and, eq, gt, inArray, isNull, ne, or, sql } from 'drizzle-orm';
import type { PreviewKind } from '../../../shared/schemas/previews';
import type { DbOrTx } from '../../db/client';
import { campaigns, type previewFeedback, previewLinks, previewMembers, type previewSettings, projects } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import type { CircleGrant } from '../../lib/access';
import { hashToken } from './tokens';

const MINUTE = 60_000;

/**
 * Token lookups per address: generous for a person opening a preview and its images, useless for
 * guessing (a token is 256 random bits); past it the answer is 429.
 */
export const PREVIEW_LOOKUP_BUDGETS = [{ limit: 300, windowMs: MINUTE }] as const;

/** The most tokens one request has looked up (the header's and the item's own from the cookie). */
const MAX_TOKENS = 4;

/** The circle's tables' column naming the item of a kind. */
export function itemColumn<T extends typeof previewMembers | typeof previewLinks | typeof previewSettings | typeof previewFeedback>(t: T, kind: PreviewKind) {
  return kind === 'campaign' ? t.campaignId : t.projectId;
}

export function itemTable(kind: PreviewKind) {
  return kind === 'campaign' ? campaigns : projects;
}

/**
 * Whether the caller is in the circle of the draft `itemId`, and as what (lib/access.ts decides
 * what that lets them do): a member by their account, a member by an email invite's token, or the
 * holder of a link that is neither revoked nor expired. A token presented that matches none of
 * these (unknown, expired, revoked, or another item's) is counted for the owner to see. Tokens
 * are looked up by their hash only.
 */
export async function circleGrant(deps: Pick<Deps, 'db' | 'limiter'>, actor: Actor, kind: PreviewKind, itemId: string): Promise<CircleGrant | null> {
  const hashes = (actor.previews ?? [])
    .filter((p) => p.itemId === null || p.itemId === itemId)
    .slice(0, MAX_TOKENS)
    .map((p) => hashToken(p.token));
  if (!actor.user && !hashes.length) return null;
  if (hashes.length) await deps.limiter.spend(`preview:ip:${actor.ip}`, PREVIEW_LOOKUP_BUDGETS);
  const { db } = deps;
  const byAccount = actor.user ? eq(previewMembers.userId, actor.user.id) : undefined;
  const byToken = hashes.length ? inArray(previewMembers.tokenHash, hashes) : undefined;
  const [member] = await db
    .select({ id: previewMembers.id, role: previewMembers.role })
    .from(previewMembers)
    .where(and(eq(itemColumn(previewMembers, kind), itemId), ne(previewMembers.state, 'revoked'), or(byAccount, byToken)))
    .limit(1);
  if (member) return { role: member.role, memberId: member.id, linkId: null };
  if (!hashes.length) return null;
  const [link] = await db
    .select({ id: previewLinks.id })
    .from(previewLinks)
    .where(
      and(
        eq(itemColumn(previewLinks, kind), itemId),
        inArray(previewLinks.tokenHash, hashes),
        isNull(previewLinks.revokedAt),
        gt(previewLinks.expiresAt, sql`now()`),
      ),
    )
    .limit(1);
  if (link) return { role: 'viewer', memberId: null, linkId: link.id };
  await countFailedLookup(db, kind, itemId);
  return null;
}

/** One more failed token lookup on the item's preview address (nothing for an item that does not exist). */
export async function countFailedLookup(db: DbOrTx, kind: PreviewKind, itemId: string): Promise<void> {
  const col = kind === 'campaign' ? 'campaign_id' : 'project_id';
  const table = kind === 'campaign' ? 'campaigns' : 'projects';
  await db.execute(
    sql`insert into preview_settings (${sql.raw(col)}, failed_lookups, last_failed_at)
        select id, 1, now() from ${sql.raw(table)} where id = ${itemId}::uuid
        on conflict (${sql.raw(col)}) do update set failed_lookups = preview_settings.failed_lookups + 1, last_failed_at = now()`,
  );
}

/**
 * A view of the draft by a member or a link holder: counted (a member's first and last view; a
 * link's count without names). A member invited by username has joined once they looked.
 */
export async function recordView(db: DbOrTx, grant: CircleGrant): Promise<void> {
  if (grant.memberId) {
    await db
      .update(previewMembers)
      .set({
        views: sql`${previewMembers.views} + 1`,
        lastViewAt: sql`now()`,
        firstViewAt: sql`coalesce(${previewMembers.firstViewAt}, now())`,
        state: sql`case when ${previewMembers.state} = 'invited' and ${previewMembers.userId} is not null then 'joined'::preview_member_state else ${previewMembers.state} end`,
        joinedAt: sql`case when ${previewMembers.joinedAt} is null and ${previewMembers.userId} is not null then now() else ${previewMembers.joinedAt} end`,
      })
      .where(eq(previewMembers.id, grant.memberId));
  } else if (grant.linkId) {
    await db
      .update(previewLinks)
      .set({ views: sql`${previewLinks.views} + 1`, lastViewAt: sql`now()` })
      .where(eq(previewLinks.id, grant.linkId));
  }
}
