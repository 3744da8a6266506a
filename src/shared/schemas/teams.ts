import { z } from './zod';
import { TEAM_MEMBER_STATUSES, TEAM_ROLES } from '../constants';
import { M } from '../messages';
import { ListQuery, OwnerSchema } from './campaigns';
import { IdSchema, TagsSchema, text } from './common';
import { PublicUserSchema } from './user';

/**
 * Teams (spec sections 3, 4, 7 "Teams"; decisions.md "Teams").
 *
 * Shapes:
 * - A team (`TeamSchema`) is the same object everywhere; only `members` differs by call:
 *   - GET /teams/{id} (and create, update): the first TEAM_MEMBERS_PAGE_SIZE (50) members the
 *     viewer may see — active members for everyone, plus the viewer's own row; the owner and
 *     active managers see every row (invited and requested too). Order: owner, then active,
 *     then oldest row first. `membersNextCursor` continues them through the members call
 *     (GET /teams/{id}/members?cursor=, tRPC teams.members), null when these are all.
 *   - lists (GET /teams, /teams/mine, a user's and a project's teams): the first three active
 *     members (owner first, then by when they were added) — the "first three roles" column;
 *     no `membersNextCursor`.
 *   `memberCount` always counts active rows only (the owner included).
 * - Every list is a page: `limit` (default 20; 50 for members; larger values capped to 100)
 *   and `cursor` (the previous page's `nextCursor`, opaque; null on the last page).
 * - A member (`TeamMemberSchema`) is identified by its person's user id (`userId`); the
 *   `{memberId}` in /teams/{id}/members/{memberId} is that user id.
 */

export const TEAM_NAME_MAX = 120;
export const TEAM_DESCRIPTION_MAX = 20_000;
export const TEAM_TAG_MAX = 40;
export const TEAM_TAGS_MAX = 30;
/** Members per page: the members call's default and the first page a single team carries. */
export const TEAM_MEMBERS_PAGE_SIZE = 50;

const TeamName = text({ error: M.teamNameRequired }).trim().min(1, M.teamNameRequired).max(TEAM_NAME_MAX, M.teamNameTooLong);
const Description = text({ error: M.descriptionTooLong }).max(TEAM_DESCRIPTION_MAX, M.descriptionTooLong);

/** A project to attach: an id, or null / '' for none. */
const ProjectRef = z.union([text().trim().max(100), z.null()]).transform((v) => (v ? v : null));

/** The cover: one of the caller's uploads, or null / '' to remove it. */
const CoverUrl = z.union([text().trim().max(500), z.null()]).transform((v) => (v ? v : null));

export const CreateTeamInput = z.object({
  name: TeamName,
  description: Description.optional().default(''),
  tags: TagsSchema.optional().default([]),
  projectId: ProjectRef.optional().transform((v) => v ?? null),
});
export type CreateTeamInput = z.input<typeof CreateTeamInput>;

/** An edit sends only what changes; `projectId: null` detaches, `imageUrl: null` removes the cover. */
export const UpdateTeamInput = z.object({
  name: TeamName.optional(),
  description: Description.optional(),
  tags: TagsSchema.optional(),
  projectId: ProjectRef.optional(),
  imageUrl: CoverUrl.optional(),
});
export type UpdateTeamInput = z.input<typeof UpdateTeamInput>;

const blankToUndefined = (v: string | null | undefined) => (v ? v : undefined);

export const TeamListQuery = ListQuery.extend({
  /** Only teams looking for this tag (the list's tag filter uses its first tag). */
  tag: text().trim().toLowerCase().max(TEAM_TAG_MAX).optional().transform(blankToUndefined),
  /** Only teams attached to this project. */
  projectId: text().trim().max(100).optional().transform(blankToUndefined),
});
export type TeamListQuery = z.input<typeof TeamListQuery>;

/** A page of my teams, a person's teams or a project's teams: `limit` (default 20, capped to 100) and `cursor`. */
export const TeamPageQuery = ListQuery.pick({ limit: true, cursor: true });
export type TeamPageQuery = z.input<typeof TeamPageQuery>;

/** A page of a team's members: `limit` (default 50, capped to 100, like every list) and `cursor`. */
export const TeamMembersQuery = TeamPageQuery.extend({
  limit: ListQuery.shape.limit.unwrap().unwrap().optional().default(TEAM_MEMBERS_PAGE_SIZE),
});
export type TeamMembersQuery = z.input<typeof TeamMembersQuery>;

/**
 * Invite (or, for the owner, add) a person. Exactly one way to name them is used, in this
 * order: userId, email, username (a username containing @ is taken as an email).
 */
export const InviteMemberInput = z
  .object({
    userId: text().trim().max(100).nullish().transform(blankToUndefined),
    email: text().trim().toLowerCase().max(320).nullish().transform(blankToUndefined),
    username: text().trim().toLowerCase().max(320).nullish().transform(blankToUndefined),
    role: z.enum(TEAM_ROLES, { error: M.teamRoleInvalid }).optional().default('member'),
    /** `active` adds the person directly (owner only); the default is an invite. */
    status: z.enum(['invited', 'active'], { error: M.teamInviteStatusInvalid }).optional().default('invited'),
  })
  .refine((v) => Boolean(v.userId || v.email || v.username), { message: M.inviteIdentifierRequired });
export type InviteMemberInput = z.input<typeof InviteMemberInput>;

/** The owner accepts a request (`status: 'active'`) and/or sets the role. */
export const UpdateMemberInput = z
  .object({
    status: z.enum(['active'], { error: M.teamMemberStatusInvalid }).optional(),
    role: z.enum(TEAM_ROLES, { error: M.teamRoleInvalid }).optional(),
  })
  .refine((v) => v.status !== undefined || v.role !== undefined, { message: M.teamMemberUpdateEmpty });
export type UpdateMemberInput = z.input<typeof UpdateMemberInput>;

export const TeamTagSchema = text({ error: M.tagRequired }).trim().toLowerCase().min(1, M.tagRequired).max(TEAM_TAG_MAX, M.tagTooLong);

export const TeamSuggestedQuery = z.object({
  /** Use this project's tags when the team has no looking-for tags (default: the attached project). */
  projectId: text().trim().max(100).optional().transform(blankToUndefined),
});

// --- path parameters ------------------------------------------------------------------

export const TeamIdParams = z.object({ id: IdSchema });
export const TeamMemberParams = z.object({ id: IdSchema, memberId: IdSchema });
export const TeamTagParams = z.object({ id: IdSchema, tag: TeamTagSchema });
export const UserIdParams = z.object({ userId: IdSchema });
export const ProjectIdParams = z.object({ projectId: IdSchema });

// --- answers --------------------------------------------------------------------------

export const TeamMemberSchema = z.object({
  /** The person's user id (also the `{memberId}` in member paths). */
  userId: z.string(),
  username: z.string().nullable(),
  name: z.string().nullable(),
  imageUrl: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  role: z.enum(TEAM_ROLES),
  status: z.enum(TEAM_MEMBER_STATUSES),
  /** The team's owner (always active and a manager). */
  isOwner: z.boolean(),
  /** When the row was made (invite or request) and last changed. */
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type TeamMemberDto = z.infer<typeof TeamMemberSchema>;

export const MembershipSchema = z.object({ status: z.enum(TEAM_MEMBER_STATUSES), role: z.enum(TEAM_ROLES) });

export const TeamSchema = z.object({
  _id: z.string(),
  name: z.string(),
  description: z.string(),
  /** "Looking for" tags. */
  tags: z.array(z.string()),
  /** The attached project (null when none, or when the viewer may not see it). */
  projectId: z.string().nullable(),
  projectTitle: z.string().nullable(),
  ownerId: OwnerSchema,
  /** The cover image; `images` holds it as a one-item gallery (empty without a cover). */
  imageUrl: z.string().nullable(),
  images: z.array(z.object({ url: z.string(), alt: z.string() })),
  /** Active members, the owner included. */
  memberCount: z.number(),
  members: z.array(TeamMemberSchema),
  /**
   * Only on a single team (GET /teams/{id}, create, update): the members call's `cursor` for the
   * members after `members` (null when these are all). Lists leave it out.
   */
  membersNextCursor: z.string().nullable().optional(),
  /** The viewer's own row (null when signed out or not on the team). */
  myMembership: MembershipSchema.nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type TeamDto = z.infer<typeof TeamSchema>;

export const TeamListSchema = z.object({
  items: z.array(TeamSchema),
  total: z.number(),
  page: z.number(),
  limit: z.number(),
  /** Pass as `cursor` to get the next page by keyset (null on the last page). */
  nextCursor: z.string().nullable(),
});
export type TeamListDto = z.infer<typeof TeamListSchema>;

/**
 * A page of my teams, a person's teams or a project's teams (newest first). `total` counts them
 * all; `nextCursor` is null on the last page (also when it is exactly full).
 */
export const TeamItemsSchema = z.object({ items: z.array(TeamSchema), total: z.number(), nextCursor: z.string().nullable() });
export type TeamItemsDto = z.infer<typeof TeamItemsSchema>;

/** A page of the members the viewer may see (order and visibility as GET /teams/{id}); `nextCursor` is null on the last page. */
export const TeamMembersSchema = z.object({ items: z.array(TeamMemberSchema), nextCursor: z.string().nullable() });
export type TeamMembersDto = z.infer<typeof TeamMembersSchema>;
export const TeamTagsSchema = z.object({ tags: z.array(z.string()) });

export const TeamSuggestedUserSchema = PublicUserSchema.extend({ sharedTags: z.array(z.string()) });
export const TeamSuggestedUsersSchema = z.object({ items: z.array(TeamSuggestedUserSchema) });
export type TeamSuggestedUsersDto = z.infer<typeof TeamSuggestedUsersSchema>;
