import { z } from './zod';
import { PREVIEW_LINK_DAYS, PREVIEW_MEMBER_STATES, PREVIEW_ROLES } from '../constants';
import { M } from '../messages';
import { IdSchema, text } from './common';

/** The preview circle's calls (issue #30): the owner's circle, links, settings; the circle's own view and feedback. */

export const PREVIEW_KINDS = ['campaign', 'project'] as const;
export type PreviewKind = (typeof PREVIEW_KINDS)[number];

export const PreviewRoleSchema = z.enum(PREVIEW_ROLES, { error: M.previewRoleInvalid });

export const InviteInput = z.object({
  /** A username, or an email address (the invite is then emailed with a link). */
  who: text().trim().min(1, M.previewInviteWho).max(254, M.previewInviteWho),
  role: PreviewRoleSchema.default('viewer'),
});
export const MemberRoleInput = z.object({ role: PreviewRoleSchema });
export const LinkInput = z.object({
  label: text().trim().min(1, M.previewLinkLabel).max(60, M.previewLinkLabel),
  days: z.coerce
    .number({ error: M.previewLinkDays })
    .int(M.previewLinkDays)
    .min(PREVIEW_LINK_DAYS.min, M.previewLinkDays)
    .max(PREVIEW_LINK_DAYS.max, M.previewLinkDays)
    .default(PREVIEW_LINK_DAYS.default),
});
export const SettingsInput = z.object({
  circleReadsFeedback: z.boolean().optional(),
  /** Hours after the release the people who favorited or follow it are emailed (0: at once). */
  followersDelayHours: z.coerce
    .number({ error: M.followersDelayRange })
    .int(M.followersDelayRange)
    .min(0, M.followersDelayRange)
    .max(720, M.followersDelayRange)
    .optional(),
});
export const JoinInput = z.object({ name: text().trim().min(1, M.previewGuestName).max(60, M.previewGuestName) });
export const FeedbackInput = z.object({ body: text().trim().min(1, M.feedbackBody).max(2000, M.feedbackBody) });

export const MemberParams = z.object({ id: IdSchema, memberId: IdSchema });
export const LinkParams = z.object({ id: IdSchema, linkId: IdSchema });

export const PreviewMemberSchema = z.object({
  _id: z.string(),
  /** The account (invited by username, or an email invitee who registered or signed in). */
  user: z.object({ _id: z.string(), username: z.string(), name: z.string() }).nullable(),
  /** The address an email invite went to. */
  email: z.string().nullable(),
  /** The name a guest typed. */
  guestName: z.string().nullable(),
  role: PreviewRoleSchema,
  state: z.enum(PREVIEW_MEMBER_STATES),
  invitedAt: z.date(),
  joinedAt: z.date().nullable(),
  firstViewAt: z.date().nullable(),
  lastViewAt: z.date().nullable(),
  views: z.number().int(),
});
export type PreviewMemberDto = z.infer<typeof PreviewMemberSchema>;

export const PreviewLinkSchema = z.object({
  _id: z.string(),
  label: z.string(),
  state: z.enum(['active', 'expired', 'revoked']),
  createdAt: z.date(),
  expiresAt: z.date(),
  revokedAt: z.date().nullable(),
  views: z.number().int(),
  lastViewAt: z.date().nullable(),
});
export type PreviewLinkDto = z.infer<typeof PreviewLinkSchema>;

export const CircleSettingsSchema = z.object({
  circleReadsFeedback: z.boolean(),
  followersDelayHours: z.number().int(),
});

export const CircleSchema = z.object({
  members: z.array(PreviewMemberSchema),
  links: z.array(PreviewLinkSchema),
  settings: CircleSettingsSchema,
  /** Preview addresses of this item opened with a token that is unknown, expired, revoked or another item's. */
  failedLookups: z.number().int(),
});
export type CircleDto = z.infer<typeof CircleSchema>;

/** An invite's answer: the member, and for an email invite its link (shown this once; it is also emailed). */
export const InviteResultSchema = z.object({ member: PreviewMemberSchema, url: z.string().nullable() });
/** A new link: its row and its address (shown this once: only its hash is kept). */
export const LinkResultSchema = z.object({ link: PreviewLinkSchema, url: z.string() });
export const RevokeAllResultSchema = z.object({ links: z.number().int(), invites: z.number().int() });

/** What the person looking at a draft is to it. */
export const PreviewMeSchema = z.object({
  via: z.enum(['owner', 'member', 'link']),
  role: z.enum(['owner', ...PREVIEW_ROLES]),
  /** A guest holding an email invite who has not said who they are: the page offers to sign in or continue. */
  needsName: z.boolean(),
  /** The name their feedback goes under. */
  name: z.string().nullable(),
  canReadFeedback: z.boolean(),
  canWriteFeedback: z.boolean(),
  /** Members are told the owner sees their visits. */
  visitsSeen: z.boolean(),
});
export type PreviewMeDto = z.infer<typeof PreviewMeSchema>;

export const FeedbackSchema = z.object({
  _id: z.string(),
  authorName: z.string(),
  /** Whether it was written under a guest's typed name (no account). */
  guest: z.boolean(),
  body: z.string(),
  createdAt: z.date(),
});
export const FeedbackListSchema = z.object({ items: z.array(FeedbackSchema), readOnly: z.boolean() });
export type FeedbackDto = z.infer<typeof FeedbackSchema>;
