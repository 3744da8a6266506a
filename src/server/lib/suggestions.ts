import { and, ne, sql } from 'drizzle-orm';
import type { PublicUserDto } from '../../shared/schemas/user';
import type { DbOrTx } from '../db/client';
import { users } from '../db/schema';
import { toPublicUserDto } from '../modules/users/dto';
import { profileVisibleSql, type Viewer } from './access';
import { notBlockedEitherWay } from './blocks';
import { textArray } from './listing';

/** How many suggested people one call answers. */
export const SUGGESTIONS = 12;

export type SuggestedUser = PublicUserDto & { sharedTags: string[] };

/**
 * People to invite (a project's panel, a team's manage page): everyone whose tags overlap
 * `tags`, most shared tags first (then oldest account), with the tags they share; never the
 * owner, nobody blocked either way with the owner or the caller (the blocks rule: neither can
 * invite the other), and, for a team, nobody with a row in it already; only people whose
 * profile the caller may see (lib/access.ts).
 */
export async function suggestPeople(
  db: DbOrTx,
  opts: { viewer: Viewer; tags: readonly string[]; ownerId: string; callerId: string; teamId?: string },
): Promise<SuggestedUser[]> {
  if (!opts.tags.length) return [];
  const wanted = textArray(opts.tags);
  const shared = sql<string[]>`array(select t from unnest(${users.tags}) t where t = any(${wanted}) order by t)`;
  const rows = await db
    .select({
      u: { id: users.id, username: users.username, name: users.name, tags: users.tags, imageUrl: users.imageUrl, createdAt: users.createdAt },
      shared,
    })
    .from(users)
    .where(
      and(
        profileVisibleSql(opts.viewer),
        sql`${users.tags} && ${wanted}`,
        ne(users.id, opts.ownerId),
        opts.teamId ? sql`not exists (select 1 from team_members m where m.team_id = ${opts.teamId}::uuid and m.user_id = ${users.id})` : undefined,
        notBlockedEitherWay(users.id, [...new Set([opts.ownerId, opts.callerId])]),
      ),
    )
    .orderBy(sql`cardinality(${shared}) desc`, users.createdAt, users.id)
    .limit(SUGGESTIONS);
  return rows.map((r) => ({ ...toPublicUserDto(r.u), sharedTags: r.shared }));
}
