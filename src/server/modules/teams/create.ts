import type { CreateTeamInput, TeamDto } from '../../../shared/schemas/teams';
import { teamMembers, teams } from '../../db/schema';
import type { Actor } from '../../deps';
import { recordChange } from '../../lib/history';
import { requireUser } from '../../lib/access';
import type { Out, TeamsContext } from './context';

/** Creating a team. */
export function teamCreate(ctx: TeamsContext) {
  const { db, deps, load, assertOwnProject, recordMember } = ctx;
  return {
    /** Creates a team; its owner gets an active manager row in the same transaction. */
    async create(actor: Actor, input: Out<typeof CreateTeamInput>): Promise<TeamDto> {
      const { user } = requireUser(actor);
      await deps.limiter.write('team', actor);
      const id = await db.transaction(async (tx) => {
        if (input.projectId) await assertOwnProject(tx, actor, input.projectId);
        const [team] = await tx
          .insert(teams)
          .values({ ownerId: user.id, name: input.name, description: input.description, tags: input.tags, projectId: input.projectId })
          .returning({ id: teams.id });
        const [own] = await tx
          .insert(teamMembers)
          .values({ teamId: team.id, userId: user.id, role: 'manager', status: 'active' })
          .returning({ id: teamMembers.id, userId: teamMembers.userId });
        await recordChange(tx, {
          modelName: 'Team',
          action: 'create',
          key: team.id,
          fields: ['name', 'description', 'tags', ...(input.projectId ? ['projectId'] : [])],
          actorId: user.id,
        });
        await recordMember(tx, 'create', own, ['teamId', 'userId', 'role', 'status'], user.id);
        return team.id;
      });
      return load(actor, id);
    },
  };
}
