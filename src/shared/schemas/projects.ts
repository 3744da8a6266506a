import { z } from './zod';
import { ACTION_MODES, CATEGORIES, CURRENCIES, PROJECT_SORTS, TARGET_TYPES } from '../constants';
import { M } from '../messages';
import { CategoryFilter, CreateCampaignInput, ListQuery, OwnerSchema, UpdateCampaignInput, VISIBILITIES } from './campaigns';
import { text } from './common';

/** A project has the campaign form's fields (targetType picked on the form), no execution date. */
export const CreateProjectInput = CreateCampaignInput.omit({ executionDate: true });
export type CreateProjectInput = z.input<typeof CreateProjectInput>;
export const UpdateProjectInput = UpdateCampaignInput.omit({ executionDate: true });
export type UpdateProjectInput = z.input<typeof UpdateProjectInput>;

const Flag = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', ''])])
  .optional()
  .transform((v) => v === true || v === 'true' || v === '1');

export const ProjectListQuery = ListQuery.extend({
  ownerId: text().trim().max(100).optional(),
  /** Only the caller's own projects. */
  my: Flag,
  /** Only this project (the team form's "assign to project" uses it). */
  projectId: text().trim().max(100).optional(),
  /** A category to browse; empty means all. */
  type: CategoryFilter,
  /** newest (the default) or supported (most followers). */
  sort: z
    .union([z.enum(PROJECT_SORTS, { error: M.projectSortInvalid }), z.literal('')], { error: M.projectSortInvalid })
    .optional()
    .transform((v) => (v ? v : 'newest')),
});
export type ProjectListQuery = z.input<typeof ProjectListQuery>;

export const ProjectSchema = z.object({
  _id: z.string(),
  title: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  type: z.enum(CATEGORIES),
  targetType: z.enum(TARGET_TYPES),
  coordination: z.string(),
  goalAmount: z.number(),
  currency: z.enum(CURRENCIES),
  imageUrl: z.string().nullable(),
  coverUrl: z.string().nullable(),
  images: z.array(z.object({ url: z.string(), secure_url: z.string(), alt: z.string() })),
  actionMode: z.enum(ACTION_MODES),
  /** Projects take no money; the field is kept for the list's "raised" column. */
  totalRaised: z.number(),
  /** Followers of the project. */
  support: z.number(),
  supporters: z.number(),
  /** Whether the viewer follows it. */
  following: z.boolean(),
  ownerId: OwnerSchema,
  /** `draft` and `scheduled` are seen by the owner only; `released` by its audience. */
  visibility: z.enum(VISIBILITIES),
  /** When a scheduled draft is released (null otherwise). */
  releaseAt: z.date().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type ProjectDto = z.infer<typeof ProjectSchema>;

export const ProjectListSchema = z.object({
  items: z.array(ProjectSchema),
  total: z.number(),
  page: z.number(),
  limit: z.number(),
  nextCursor: z.string().nullable(),
});

export const FollowSchema = z.object({ following: z.boolean(), followers: z.number() });
