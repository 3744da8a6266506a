import { eq } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import type { TeamMembersDto, TeamMembersQuery } from '../../../shared/schemas/teams';
import { teams } from '../../db/schema';
import type { Actor } from '../../deps';
import { notFound } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { readerFor } from '../../db/replica';
import type { Out, TeamsContext } from './context';
import { readMemberCursor } from './dto';

/** One team, and a page of its members. */
export function teamReads(ctx: TeamsContext) {
  const { deps, memberPage, seesAllMembers, load, rowOf } = ctx;
  return {
    /** An anonymous caller's team and its members may come from the replica (db/replica.ts). */
    get: (actor: Actor, id: string) => load(actor, id, readerFor(deps, actor)),

    /** A page of the members the viewer may see (order and visibility as `get`). */
    async members(actor: Actor, id: string, query: Out<typeof TeamMembersQuery>): Promise<TeamMembersDto> {
      if (!isUuid(id)) throw notFound(M.teamNotFound);
      const cursor = readMemberCursor(query.cursor);
      const viewerId = actor.user?.id ?? null;
      const reader = readerFor(deps, actor);
      const [team] = await reader.select({ id: teams.id, ownerId: teams.ownerId }).from(teams).where(eq(teams.id, id));
      if (!team) throw notFound(M.teamNotFound);
      const mine = viewerId && viewerId !== team.ownerId ? await rowOf(reader, team.id, viewerId) : undefined;
      const seesAll = seesAllMembers(viewerId, team.ownerId, mine?.status ?? null, mine?.role ?? null);
      return memberPage(reader, team, { id: viewerId, seesAll }, query.limit, cursor);
    },
  };
}
