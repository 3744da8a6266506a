import { eq } from 'drizzle-orm';
import type { TeamDto, UpdateTeamInput } from '../../../shared/schemas/teams';
import { teams } from '../../db/schema';
import type { Actor } from '../../deps';
import { changedFields, recordChange } from '../../lib/history';
import { assertOwnImages } from '../../lib/items';
import type { Out, TeamsContext } from './context';

/** The owner edits or deletes a team. */
export function teamUpdates(ctx: TeamsContext) {
  const { db, load, ownedTeamForUpdate, assertOwnProject } = ctx;
  return {
    /** The owner edits name, description, tags, project link (own projects only; null detaches) and cover. */
    async update(actor: Actor, id: string, input: Out<typeof UpdateTeamInput>): Promise<TeamDto> {
      await db.transaction(async (tx) => {
        const { user, team } = await ownedTeamForUpdate(tx, actor, id);
        if (input.projectId && input.projectId !== team.projectId) await assertOwnProject(tx, actor, input.projectId);
        if (input.imageUrl) await assertOwnImages(tx, user.id, [input.imageUrl], team.imageUrl ? [team.imageUrl] : []);
        const patch: Partial<typeof teams.$inferInsert> = {
          name: input.name,
          description: input.description,
          tags: input.tags,
          projectId: input.projectId,
          imageUrl: input.imageUrl,
        };
        const fields = changedFields(team as Record<string, unknown>, patch as Record<string, unknown>);
        if (!fields.length) return;
        await tx
          .update(teams)
          .set({ ...patch, updatedAt: new Date() })
          .where(eq(teams.id, team.id));
        await recordChange(tx, { modelName: 'Team', action: 'update', key: team.id, fields, actorId: user.id, subjectUserId: team.ownerId });
      });
      return load(actor, id);
    },

    /** The owner deletes a team; its memberships go with it. */
    async remove(actor: Actor, id: string): Promise<void> {
      await db.transaction(async (tx) => {
        const { user, team } = await ownedTeamForUpdate(tx, actor, id);
        await tx.delete(teams).where(eq(teams.id, team.id));
        await recordChange(tx, { modelName: 'Team', action: 'delete', key: team.id, actorId: user.id, subjectUserId: team.ownerId });
      });
    },
  };
}
