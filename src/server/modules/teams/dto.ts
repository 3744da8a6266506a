import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import { DATE_MAX, DATE_MIN } from '../../../shared/schemas/common';
import type { TeamDto, TeamMemberDto } from '../../../shared/schemas/teams';
import { projects, teamMembers, teams, users } from '../../db/schema';
import type { Actor } from '../../deps';
import { badRequest } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { canSeeTeamProject } from '../../lib/access';

/** What the team calls read of teams and members, and how they answer them. */

export type TeamRow = Omit<typeof teams.$inferSelect, 'searchVector'>;
export type MemberRow = typeof teamMembers.$inferSelect;
export type Status = MemberRow['status'];
export type Role = MemberRow['role'];

const { searchVector: _sv, ...teamColumns } = getTableColumns(teams);
export { teamColumns };

export function teamSelection(viewerId: string | null) {
  const mine = (col: 'status' | 'role') =>
    viewerId
      ? sql`(select ${sql.identifier('m')}.${sql.identifier(col)}::text from team_members m where m.team_id = ${teams.id} and m.user_id = ${viewerId}::uuid)`
      : sql`null`;
  return {
    t: teamColumns,
    owner: { id: users.id, username: users.username, name: users.name, imageUrl: users.imageUrl },
    projectTitle: projects.title,
    projectType: projects.type,
    projectOwnerId: projects.ownerId,
    projectReleasedAt: projects.releasedAt,
    memberCount: sql<string>`(select count(*) from team_members m where m.team_id = ${teams.id} and m.status = 'active')`,
    myStatus: mine('status') as SQL<Status | null>,
    myRole: mine('role') as SQL<Role | null>,
  };
}

export type TeamSelectRow = {
  t: TeamRow;
  owner: { id: string; username: string | null; name: string | null; imageUrl: string | null };
  projectTitle: string | null;
  projectType: string | null;
  projectOwnerId: string | null;
  projectReleasedAt: Date | null;
  memberCount: string | number;
  myStatus: Status | null;
  myRole: Role | null;
};

export const memberFields = {
  userId: teamMembers.userId,
  role: teamMembers.role,
  status: teamMembers.status,
  createdAt: teamMembers.createdAt,
  updatedAt: teamMembers.updatedAt,
  username: users.username,
  name: users.name,
  imageUrl: users.imageUrl,
};
export type MemberSelectRow = {
  userId: string;
  role: Role;
  status: Status;
  createdAt: Date;
  updatedAt: Date;
  username: string | null;
  name: string | null;
  imageUrl: string | null;
};

export function toMemberDto(m: MemberSelectRow, ownerId: string): TeamMemberDto {
  return {
    userId: m.userId,
    username: m.username,
    name: m.name,
    imageUrl: m.imageUrl,
    avatarUrl: m.imageUrl,
    role: m.role,
    status: m.status,
    isOwner: m.userId === ownerId,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

/** A team as every call answers it; `membersNextCursor` only for a single team (lists leave it out). */
export function toTeamDto(actor: Actor, r: TeamSelectRow, members: TeamMemberDto[], membersNextCursor?: string | null): TeamDto {
  // a team shows its project only to people who may see the project (lib/access.ts)
  const project =
    r.projectType !== null && r.projectOwnerId !== null ? { type: r.projectType, ownerId: r.projectOwnerId, releasedAt: r.projectReleasedAt } : null;
  const hideProject = !canSeeTeamProject(actor, project);
  return {
    _id: r.t.id,
    name: r.t.name,
    description: r.t.description,
    tags: r.t.tags,
    projectId: hideProject ? null : r.t.projectId,
    projectTitle: hideProject ? null : r.projectTitle,
    ownerId: { _id: r.owner.id, username: r.owner.username, name: r.owner.name, imageUrl: r.owner.imageUrl, avatarUrl: r.owner.imageUrl },
    imageUrl: r.t.imageUrl,
    images: r.t.imageUrl ? [{ url: r.t.imageUrl, alt: r.t.name }] : [],
    memberCount: Number(r.memberCount),
    members,
    ...(membersNextCursor === undefined ? {} : { membersNextCursor }),
    myMembership: r.myStatus && r.myRole ? { status: r.myStatus, role: r.myRole } : null,
    createdAt: r.t.createdAt,
    updatedAt: r.t.updatedAt,
  };
}

/**
 * Where a member row stands in a team's member order: 0 the owner, 1 active, 2 invited or
 * requested. Members are ordered by (rank, created_at, id), oldest first within a rank.
 */
export function memberRank(ownerId: string): SQL<number> {
  return sql<number>`(case when ${teamMembers.userId} = ${ownerId}::uuid then 0 when ${teamMembers.status} = 'active' then 1 else 2 end)`;
}

/** A members cursor: the last row's (rank, created_at, id), opaque to clients. */
export interface MemberCursor {
  r: number;
  t: string;
  id: string;
}

export function encodeMemberCursor(row: { rank: number | string; createdAt: Date; rowId: string }): string {
  return Buffer.from(JSON.stringify({ r: Number(row.rank), t: row.createdAt.toISOString(), id: row.rowId })).toString('base64url');
}

/** A members cursor from a client; anything that is not one this server made is a 400 "Invalid cursor". */
export function readMemberCursor(raw: string | undefined): MemberCursor | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<MemberCursor>;
    const ms = typeof v.t === 'string' ? Date.parse(v.t) : NaN;
    if ((v.r === 0 || v.r === 1 || v.r === 2) && ms >= DATE_MIN && ms <= DATE_MAX && isUuid(v.id)) {
      return { r: v.r, t: new Date(ms).toISOString(), id: v.id };
    }
  } catch {
    // fall through
  }
  throw badRequest(M.cursorInvalid);
}
