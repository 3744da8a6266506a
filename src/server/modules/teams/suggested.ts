import { eq } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import type { TeamSuggestedQuery, TeamSuggestedUsersDto } from '../../../shared/schemas/teams';
import { projects, teams } from '../../db/schema';
import type { Actor } from '../../deps';
import { forbidden, notFound } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { canSeeItem, isOwner, requireUser, viewerOf } from '../../lib/access';
import { suggestPeople } from '../../lib/suggestions';
import type { Out, TeamsContext } from './context';
import { teamColumns } from './dto';

/** People to invite into a team. */
export function teamSuggestions(ctx: TeamsContext) {
  const { db, rowOf } = ctx;
  return {
    /**
     * People whose tags overlap the team's looking-for tags (or, when it has none, the given or
     * attached project's tags), most shared first; never anyone with a row in the team, the
     * owner, or anyone blocked either way with the owner or the caller. Owner and managers only.
     */
    async suggested(actor: Actor, id: string, query: Out<typeof TeamSuggestedQuery>): Promise<TeamSuggestedUsersDto> {
      const { user } = requireUser(actor);
      if (!isUuid(id)) throw notFound(M.teamNotFound);
      const [team] = await db.select(teamColumns).from(teams).where(eq(teams.id, id));
      if (!team) throw notFound(M.teamNotFound);
      if (!isOwner(user, team.ownerId)) {
        const mine = await rowOf(db, team.id, user.id);
        if (mine?.status !== 'active' || mine.role !== 'manager') throw forbidden(M.teamSuggestNotAllowed);
      }
      let tags = team.tags;
      const projectId = query.projectId ?? team.projectId;
      if (query.projectId || (!tags.length && projectId)) {
        if (!isUuid(projectId)) throw notFound(M.projectNotFound);
        const [p] = await db
          .select({ ownerId: projects.ownerId, type: projects.type, releasedAt: projects.releasedAt, tags: projects.tags })
          .from(projects)
          .where(eq(projects.id, projectId));
        if (!p || !canSeeItem(actor, p)) throw notFound(M.projectNotFound);
        if (!tags.length) tags = p.tags;
      }
      return { items: await suggestPeople(db, { viewer: viewerOf(actor), tags, ownerId: team.ownerId, callerId: user.id, teamId: team.id }) };
    },
  };
}
