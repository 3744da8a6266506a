import { eq } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import type { TeamMemberDto } from '../../../shared/schemas/teams';
import { teamMembers } from '../../db/schema';
import type { Actor } from '../../deps';
import { blockedEitherWay } from '../../lib/blocks';
import { conflict, forbidden, notFound } from '../../lib/errors';
import { isOwner, requireUser } from '../../lib/access';
import type { TeamsContext } from './context';

/** A person's own membership: ask to join, accept an invite, leave. */
export function teamJoining(ctx: TeamsContext) {
  const { db, memberDto, lockTeam, rowOf, recordMember } = ctx;
  return {
    /**
     * A person asks to join: requested. Someone already invited becomes active (both sides
     * agree). Nobody blocked either way with the owner may ask.
     */
    async request(actor: Actor, id: string): Promise<TeamMemberDto> {
      const { user } = requireUser(actor);
      return db.transaction(async (tx) => {
        const team = await lockTeam(tx, id);
        if (isOwner(user, team.ownerId)) throw conflict(M.teamYouAreMember);
        if (await blockedEitherWay(tx, user.id, [team.ownerId])) throw forbidden(M.teamJoinBlocked);
        const existing = await rowOf(tx, team.id, user.id);
        if (existing?.status === 'active') throw conflict(M.teamYouAreMember);
        if (existing?.status === 'requested') throw conflict(M.teamAlreadyRequested);
        if (existing) {
          await tx.update(teamMembers).set({ status: 'active', updatedAt: new Date() }).where(eq(teamMembers.id, existing.id));
          await recordMember(tx, 'update', existing, ['status'], user.id);
        } else {
          const [row] = await tx
            .insert(teamMembers)
            .values({ teamId: team.id, userId: user.id, role: 'member', status: 'requested' })
            .returning({ id: teamMembers.id, userId: teamMembers.userId });
          await recordMember(tx, 'create', row, ['teamId', 'userId', 'role', 'status'], user.id);
        }
        return memberDto(tx, team.id, team.ownerId, user.id);
      });
    },

    /** The invited person accepts: active. No invite (never made, or withdrawn) is a 404; a pending request of one's own, a 409. */
    async accept(actor: Actor, id: string): Promise<TeamMemberDto> {
      const { user } = requireUser(actor);
      return db.transaction(async (tx) => {
        const team = await lockTeam(tx, id);
        const existing = await rowOf(tx, team.id, user.id);
        if (existing?.status === 'active') throw conflict(M.teamYouAreMember);
        // asked to join, not invited: the owner accepts that one
        if (existing?.status === 'requested') throw conflict(M.teamAlreadyRequested);
        if (existing?.status !== 'invited') throw notFound(M.teamNoInvite);
        if (await blockedEitherWay(tx, user.id, [team.ownerId])) throw forbidden(M.teamJoinBlocked);
        await tx.update(teamMembers).set({ status: 'active', updatedAt: new Date() }).where(eq(teamMembers.id, existing.id));
        await recordMember(tx, 'update', existing, ['status'], user.id);
        return memberDto(tx, team.id, team.ownerId, user.id);
      });
    },

    /**
     * Removes the caller's own row: an active member leaves, an invited person declines, a
     * requester withdraws. The owner cannot leave.
     */
    async leave(actor: Actor, id: string): Promise<void> {
      const { user } = requireUser(actor);
      await db.transaction(async (tx) => {
        const team = await lockTeam(tx, id);
        if (isOwner(user, team.ownerId)) throw forbidden(M.teamOwnerCannotLeave);
        const existing = await rowOf(tx, team.id, user.id);
        if (!existing) throw notFound(M.teamNotMember);
        await tx.delete(teamMembers).where(eq(teamMembers.id, existing.id));
        await recordMember(tx, 'delete', existing, [], user.id);
      });
    },
  };
}
