import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgEnum, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { PREVIEW_MEMBER_STATES, PREVIEW_ROLES } from '../../../shared/constants';
import { campaigns } from './campaigns';
import { createdAt, id, ts } from './columns';
import { projects } from './projects';
import { users } from './users';

/**
 * A draft's preview circle (issue #30): the people its owner shows it to, the links for anyone
 * holding one, their private feedback and the circle's settings. Each row belongs to exactly one
 * item: a campaign or a project (`campaign_id` or `project_id`, the other null), and goes with it.
 * Tokens are stored only as their SHA-256 (`token_hash`, hex): the token itself is shown once.
 */

export const previewRole = pgEnum('preview_role', PREVIEW_ROLES);
export const previewMemberState = pgEnum('preview_member_state', PREVIEW_MEMBER_STATES);

const itemColumns = () => ({
  campaignId: uuid('campaign_id').references(() => campaigns.id, { onDelete: 'cascade' }),
  projectId: uuid('project_id').references(() => projects.id, { onDelete: 'cascade' }),
});

/**
 * A person in the circle: invited by username (`user_id`) or by email (`email`, with an invite
 * token); a guest who follows an email invite without an account gives feedback under the name
 * they type (`guest_name`), and the row gets their account when they register with that address.
 * invited -> joined (they opened it) -> revoked (by the owner; never back).
 */
export const previewMembers = pgTable(
  'preview_members',
  {
    id: id(),
    ...itemColumns(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** The address an email invite went to (as typed, compared without case). */
    email: text('email'),
    guestName: text('guest_name'),
    role: previewRole('role').notNull(),
    state: previewMemberState('state').notNull().default('invited'),
    /** The invite token's SHA-256 (email invites); null once revoked or after "Revoke all". */
    tokenHash: text('token_hash'),
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    joinedAt: ts('joined_at'),
    revokedAt: ts('revoked_at'),
    firstViewAt: ts('first_view_at'),
    lastViewAt: ts('last_view_at'),
    views: integer('views').notNull().default(0),
  },
  (t) => [
    check('preview_members_one_item', sql`num_nonnulls(${t.campaignId}, ${t.projectId}) = 1`),
    check('preview_members_someone', sql`num_nonnulls(${t.userId}, ${t.email}) >= 1`),
    uniqueIndex('preview_members_token_key').on(t.tokenHash),
    uniqueIndex('preview_members_campaign_user_key').on(t.campaignId, t.userId),
    uniqueIndex('preview_members_project_user_key').on(t.projectId, t.userId),
    uniqueIndex('preview_members_campaign_email_key').on(t.campaignId, sql`lower(${t.email})`),
    uniqueIndex('preview_members_project_email_key').on(t.projectId, sql`lower(${t.email})`),
    index('preview_members_user_idx').on(t.userId),
    index('preview_members_email_idx').on(sql`lower(${t.email})`).where(sql`${t.userId} IS NULL`),
  ],
);

/** A link for anyone who has it: a label the owner writes, an expiry, revocation, views counted without names. */
export const previewLinks = pgTable(
  'preview_links',
  {
    id: id(),
    ...itemColumns(),
    label: text('label').notNull(),
    tokenHash: text('token_hash').notNull(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    views: integer('views').notNull().default(0),
    lastViewAt: ts('last_view_at'),
  },
  (t) => [
    check('preview_links_one_item', sql`num_nonnulls(${t.campaignId}, ${t.projectId}) = 1`),
    uniqueIndex('preview_links_token_key').on(t.tokenHash),
    index('preview_links_campaign_idx').on(t.campaignId),
    index('preview_links_project_idx').on(t.projectId),
  ],
);

/** Private feedback on a draft: never among the public comments; kept after release, read-only. */
export const previewFeedback = pgTable(
  'preview_feedback',
  {
    id: id(),
    ...itemColumns(),
    memberId: uuid('member_id').references(() => previewMembers.id, { onDelete: 'set null' }),
    authorId: uuid('author_id').references(() => users.id, { onDelete: 'set null' }),
    /** The name shown: the account's name, or the guest's typed name. */
    authorName: text('author_name').notNull(),
    body: text('body').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    check('preview_feedback_one_item', sql`num_nonnulls(${t.campaignId}, ${t.projectId}) = 1`),
    index('preview_feedback_campaign_idx').on(t.campaignId, t.createdAt),
    index('preview_feedback_project_idx').on(t.projectId, t.createdAt),
  ],
);

/**
 * One row per item that has a circle or was released from a draft: the owner's choices, the
 * failed token lookups on its preview address, and the release notices (each sent once: the
 * conditional updates of these columns decide who sends them).
 */
export const previewSettings = pgTable(
  'preview_settings',
  {
    id: id(),
    ...itemColumns(),
    /** Whether the circle reads the feedback thread (the owner always does). */
    circleReadsFeedback: boolean('circle_reads_feedback').notNull().default(false),
    /** Minutes after the release the favoriters and followers are emailed (0: with the circle). */
    followersDelayMinutes: integer('followers_delay_minutes').notNull().default(0),
    failedLookups: integer('failed_lookups').notNull().default(0),
    lastFailedAt: ts('last_failed_at'),
    circleNotifiedAt: ts('circle_notified_at'),
    followersDueAt: ts('followers_due_at'),
    followersNotifiedAt: ts('followers_notified_at'),
  },
  (t) => [
    check('preview_settings_one_item', sql`num_nonnulls(${t.campaignId}, ${t.projectId}) = 1`),
    check('preview_settings_delay_range', sql`${t.followersDelayMinutes} between 0 and 43200`),
    uniqueIndex('preview_settings_campaign_key').on(t.campaignId),
    uniqueIndex('preview_settings_project_key').on(t.projectId),
    index('preview_settings_followers_due_idx').on(t.followersDueAt).where(sql`${t.followersNotifiedAt} IS NULL AND ${t.followersDueAt} IS NOT NULL`),
  ],
);
