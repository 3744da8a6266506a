import { eq } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import type { InviteMemberInput, TeamMemberDto } from '../../../shared/schemas/teams';
import { teamMembers } from '../../db/schema';
import type { Actor } from '../../deps';
import { blockedEitherWay } from '../../lib/blocks';
import { conflict, forbidden } from '../../lib/errors';
import { isOwner, requireUser } from '../../lib/access';
import { mailTemplates } from '../../mail/templates';
import type { Out, TeamsContext } from './context';

/** Inviting a person into a team. */
export function teamInvites(ctx: TeamsContext) {
  const { db, deps, memberDto, lockTeam, rowOf, findPerson, recordMember } = ctx;
  return {
    /**
     * The owner or an active manager invites a person (named by userId, email or username).
     * A person who asked to join becomes active; an invited or active one is a 409. Only the
     * owner adds someone directly as active or as a manager. Nobody blocked either way with
     * the inviter or the owner can be invited.
     */
    async invite(actor: Actor, id: string, input: Out<typeof InviteMemberInput>): Promise<TeamMemberDto> {
      const { user } = requireUser(actor);
      await deps.limiter.write('invite', actor);
      let deliver = (): void => {};
      const member = await db.transaction(async (tx) => {
        const team = await lockTeam(tx, id);
        if (!isOwner(user, team.ownerId)) {
          const mine = await rowOf(tx, team.id, user.id);
          if (mine?.status !== 'active' || mine.role !== 'manager') throw forbidden(M.teamInviteNotAllowed);
          if (input.status === 'active') throw forbidden(M.teamOnlyOwnerAddsActive);
          if (input.role === 'manager') throw forbidden(M.teamOnlyOwnerMakesManager);
        }
        const person = await findPerson(tx, input);
        if (await blockedEitherWay(tx, person.id, [...new Set([user.id, team.ownerId])])) throw forbidden(M.teamInviteBlocked);
        const existing = await rowOf(tx, team.id, person.id);
        if (existing?.status === 'active') throw conflict(M.teamAlreadyMember);
        if (existing?.status === 'invited') throw conflict(M.teamAlreadyInvited);
        if (existing) {
          // they asked to join and are now invited: both sides agree
          await tx.update(teamMembers).set({ status: 'active', role: input.role, updatedAt: new Date() }).where(eq(teamMembers.id, existing.id));
          await recordMember(tx, 'update', existing, ['status', ...(input.role !== existing.role ? ['role'] : [])], user.id);
        } else {
          const [row] = await tx
            .insert(teamMembers)
            .values({ teamId: team.id, userId: person.id, role: input.role, status: input.status })
            .returning({ id: teamMembers.id, userId: teamMembers.userId });
          await recordMember(tx, 'create', row, ['teamId', 'userId', 'role', 'status'], user.id);
          // the person hears of it: an invite to accept or decline, or that they were added (#33)
          const inviter = user.name || user.username || 'A Kindling member';
          deliver = await deps.mailer.record(
            tx,
            mailTemplates.teamMember(person.email, inviter, team.name, input.status, `${deps.config.appUrl}/teams/${team.id}`),
          );
        }
        return memberDto(tx, team.id, team.ownerId, person.id);
      });
      deliver();
      return member;
    },
  };
}
