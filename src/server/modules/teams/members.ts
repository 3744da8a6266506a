import { eq } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import type { TeamMemberDto, UpdateMemberInput } from '../../../shared/schemas/teams';
import { teamMembers } from '../../db/schema';
import type { Actor } from '../../deps';
import { conflict, forbidden, notFound } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import type { Out, TeamsContext } from './context';
import type { Role, Status } from './dto';

/** The owner's changes to member rows: accept a request, set a role, remove. */
export function teamMembersAdmin(ctx: TeamsContext) {
  const { db, memberDto, ownedTeamForUpdate, rowOf, recordMember } = ctx;
  return {
    /** The owner accepts a request (requested -> active) and/or sets the role; the owner's own row is fixed. */
    async updateMember(actor: Actor, id: string, memberUserId: string, input: Out<typeof UpdateMemberInput>): Promise<TeamMemberDto> {
      return db.transaction(async (tx) => {
        const { user, team } = await ownedTeamForUpdate(tx, actor, id);
        if (!isUuid(memberUserId)) throw notFound(M.teamMemberNotFound);
        if (memberUserId === team.ownerId) throw forbidden(M.teamOwnerRowFixed);
        const existing = await rowOf(tx, team.id, memberUserId);
        if (!existing) throw notFound(M.teamMemberNotFound);
        const patch: { status?: Status; role?: Role } = {};
        if (input.status === 'active' && existing.status !== 'active') {
          if (existing.status === 'invited') throw conflict(M.teamMemberNotRequested);
          patch.status = 'active';
        }
        if (input.role && input.role !== existing.role) patch.role = input.role;
        const fields = Object.keys(patch);
        if (fields.length) {
          await tx
            .update(teamMembers)
            .set({ ...patch, updatedAt: new Date() })
            .where(eq(teamMembers.id, existing.id));
          await recordMember(tx, 'update', existing, fields, user.id);
        }
        return memberDto(tx, team.id, team.ownerId, memberUserId);
      });
    },

    /** The owner removes any non-owner row: a member, an invite (withdrawn) or a request (declined). */
    async removeMember(actor: Actor, id: string, memberUserId: string): Promise<void> {
      await db.transaction(async (tx) => {
        const { user, team } = await ownedTeamForUpdate(tx, actor, id);
        if (!isUuid(memberUserId)) throw notFound(M.teamMemberNotFound);
        if (memberUserId === team.ownerId) throw forbidden(M.teamOwnerCannotBeRemoved);
        const existing = await rowOf(tx, team.id, memberUserId);
        if (!existing) throw notFound(M.teamMemberNotFound);
        await tx.delete(teamMembers).where(eq(teamMembers.id, existing.id));
        await recordMember(tx, 'delete', existing, [], user.id);
      });
    },
  };
}
