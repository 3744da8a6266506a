import { eq } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import { TEAM_TAGS_MAX } from '../../../shared/schemas/teams';
import { teams } from '../../db/schema';
import type { Actor } from '../../deps';
import { badRequest } from '../../lib/errors';
import { changedFields, recordChange } from '../../lib/history';
import type { TeamsContext } from './context';

/** The owner's looking-for tags. */
export function teamTags(ctx: TeamsContext) {
  const { db, ownedTeamForUpdate } = ctx;
  async function setTags(actor: Actor, id: string, change: (tags: string[]) => string[]): Promise<{ tags: string[] }> {
    return db.transaction(async (tx) => {
      const { user, team } = await ownedTeamForUpdate(tx, actor, id);
      const tags = change(team.tags);
      if (tags.length > TEAM_TAGS_MAX) throw badRequest(M.tooManyTags);
      if (changedFields({ tags: team.tags }, { tags }).length) {
        await tx.update(teams).set({ tags, updatedAt: new Date() }).where(eq(teams.id, team.id));
        await recordChange(tx, { modelName: 'Team', action: 'update', key: team.id, fields: ['tags'], actorId: user.id, subjectUserId: team.ownerId });
      }
      return { tags };
    });
  }

  return {
    /** The owner adds a looking-for tag (already normalised by the schema); adding twice is fine. */
    addTag: (actor: Actor, id: string, tag: string) => setTags(actor, id, (tags) => (tags.includes(tag) ? tags : [...tags, tag])),

    /** The owner removes a tag; removing one that is not there is fine. */
    removeTag: (actor: Actor, id: string, tag: string) => setTags(actor, id, (tags) => tags.filter((t) => t !== tag)),
  };
}
