import { z } from './zod';
import { ACTION_MODES, CAMPAIGN_SORTS, CAMPAIGN_STATUSES, CATEGORIES, CURRENCIES, MAX_PAGE_SIZE, PAGE_SIZE, TARGET_TYPES } from '../constants';
import { M } from '../messages';
import { IdSchema, TagsSchema, text, toDate } from './common';

/** An image of a campaign or project: one of our own uploads. */
export const ImageRefSchema = z.object({
  url: text().trim().max(500),
  alt: text().trim().max(200).optional().default(''),
});
export type ImageRef = z.infer<typeof ImageRefSchema>;

/** The goal in major units: empty means 0, otherwise a number >= 0 with at most 2 decimals. */
export const GoalAmountSchema = z
  .union([z.number(), text(), z.null()])
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return 0;
    const n = typeof v === 'number' ? v : Number(v.trim());
    if (!Number.isFinite(n) || n < 0 || n > 1e10 || Math.round(n * 100) !== Math.round(n * 100 * 1e6) / 1e6) {
      ctx.addIssue({ code: 'custom', message: M.goalInvalid });
      return z.NEVER;
    }
    return n;
  });

/** Optional on the form: absent leaves it as it is, null or '' clears it. */
const OptionalDate = z
  .union([text(), z.date(), z.null()])
  .optional()
  .transform((v, ctx) => (v === undefined ? undefined : v === null || v === '' ? null : toDate(v, ctx, M.executionDateInvalid)));

/** `draft` (seen by its owner only) or `released` (public). A draft with a `releaseAt` is scheduled. */
export const VISIBILITY_INPUTS = ['draft', 'released'] as const;
export const VISIBILITIES = ['draft', 'scheduled', 'released'] as const;
const VisibilityInput = z.enum(VISIBILITY_INPUTS, { error: M.visibilityInvalid });

/** When a draft is released by itself (ISO 8601 with its offset); null cancels a schedule. Checked to be ahead of now by the service. */
const ReleaseAt = z
  .union([text(), z.date(), z.null()])
  .optional()
  .transform((v, ctx) => (v === undefined ? undefined : v === null || v === '' ? null : toDate(v, ctx, M.releaseAtInvalid)));

const ImageUrl = text()
  .trim()
  .max(500)
  .nullish()
  .transform((v) => (v ? v : null));

const fields = {
  title: text({ error: M.titleRequired }).trim().min(1, M.titleRequired).max(200, M.titleTooLong),
  description: text().max(20_000, M.descriptionTooLong).optional().default(''),
  tags: TagsSchema.optional().default([]),
  type: z.enum(CATEGORIES, { error: M.typeInvalid }).optional().default('other'),
  targetType: z.enum(TARGET_TYPES, { error: M.targetTypeInvalid }).optional().default('amount'),
  goalAmount: GoalAmountSchema,
  currency: z.enum(CURRENCIES, { error: M.currencyInvalid }).optional().default('USD'),
  imageUrl: ImageUrl,
  images: z.array(ImageRefSchema).max(20, M.tooManyGalleryImages).optional().default([]),
  actionMode: z.enum(ACTION_MODES, { error: M.actionModeInvalid }).optional().default('donation'),
  executionDate: OptionalDate,
  /**
   * `released` (public at once) or `draft` (seen by its owner only). Left out: `released`, unless
   * `releaseAt` is given (a draft scheduled for that time), so clients written before drafts keep working.
   */
  visibility: VisibilityInput.optional(),
  /** A future time: the item stays a draft until then and is released by itself (scheduled). */
  releaseAt: ReleaseAt.optional(),
};

export const CreateCampaignInput = z.object(fields);
export type CreateCampaignInput = z.input<typeof CreateCampaignInput>;

/** An edit sends only what changes. */
export const UpdateCampaignInput = z.object({
  title: fields.title.optional(),
  description: text().max(20_000, M.descriptionTooLong).optional(),
  tags: TagsSchema.optional(),
  type: z.enum(CATEGORIES, { error: M.typeInvalid }).optional(),
  targetType: z.enum(TARGET_TYPES, { error: M.targetTypeInvalid }).optional(),
  goalAmount: GoalAmountSchema.optional(),
  currency: z.enum(CURRENCIES, { error: M.currencyInvalid }).optional(),
  imageUrl: ImageUrl.optional(),
  images: z.array(ImageRefSchema).max(20, M.tooManyGalleryImages).optional(),
  actionMode: z.enum(ACTION_MODES, { error: M.actionModeInvalid }).optional(),
  executionDate: OptionalDate,
  /** `released` releases a draft now; `draft` is refused for a released item (it never goes back). */
  visibility: VisibilityInput.optional(),
  /** A future time schedules (or moves) a draft's release; null cancels the schedule. */
  releaseAt: ReleaseAt.optional(),
});
export type UpdateCampaignInput = z.input<typeof UpdateCampaignInput>;

/** Query-string numbers arrive as strings. */
const PageNumber = z.coerce.number({ error: M.pageInvalid }).int(M.pageInvalid).min(1, M.pageInvalid).max(1_000_000, M.pageInvalid);
const Limit = z.coerce
  .number({ error: M.limitInvalid })
  .int(M.limitInvalid)
  .min(1, M.limitInvalid)
  .transform((n) => Math.min(n, MAX_PAGE_SIZE));

export const ListQuery = z.object({
  q: text().trim().max(200).optional().default(''),
  page: PageNumber.optional().default(1),
  limit: Limit.optional().default(PAGE_SIZE),
  /** Opaque keyset cursor from a previous page's `nextCursor`; when given, `page` is ignored. */
  cursor: text().max(200).optional(),
});
export type ListQuery = z.input<typeof ListQuery>;

/** A category to browse (`type`): one of the categories; empty means all. */
export const CategoryFilter = z
  .union([z.enum(CATEGORIES, { error: M.typeInvalid }), z.literal('')], { error: M.typeInvalid })
  .optional()
  .transform((v) => (v ? v : undefined));

/**
 * The campaign list's query: a search (`q`), a category (`type`), `status` (active: the
 * execution date has not passed or there is none; past: it has) and `sort` (newest, the
 * default; ending: active ones by execution date, soonest first; funded: most raised; supported:
 * most supporters). Every sort pages by `cursor` (the sort key is in it) or by `page`.
 */
export const CampaignListQuery = ListQuery.extend({
  type: CategoryFilter,
  status: z
    .union([z.enum(CAMPAIGN_STATUSES, { error: M.statusInvalid }), z.literal('')], { error: M.statusInvalid })
    .optional()
    .transform((v) => (v ? v : undefined)),
  sort: z
    .union([z.enum(CAMPAIGN_SORTS, { error: M.sortInvalid }), z.literal('')], { error: M.sortInvalid })
    .optional()
    .transform((v) => (v ? v : 'newest')),
});
export type CampaignListQuery = z.input<typeof CampaignListQuery>;

export const OwnerSchema = z.object({
  _id: z.string(),
  username: z.string().nullable(),
  name: z.string().nullable(),
  imageUrl: z.string().nullable(),
  avatarUrl: z.string().nullable(),
});

export const CampaignSchema = z.object({
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
  images: z.array(z.object({ url: z.string(), alt: z.string() })),
  actionMode: z.enum(ACTION_MODES),
  executionDate: z.date().nullable(),
  isPast: z.boolean(),
  /** Succeeded donations less refunds, in the currency. */
  totalRaised: z.number(),
  /** People (accounts or guest emails) with at least one donation that stands. */
  donors: z.number(),
  support: z.number(),
  supporters: z.number(),
  /** The viewer's own donations to this campaign (0 when signed out). */
  donated: z.number(),
  /** Whether the viewer supports it (false when signed out). */
  supported: z.boolean(),
  ownerId: OwnerSchema,
  /** `draft` and `scheduled` are seen by the owner only; `released` by its audience. */
  visibility: z.enum(VISIBILITIES),
  /** When a scheduled draft is released (null otherwise). */
  releaseAt: z.date().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type CampaignDto = z.infer<typeof CampaignSchema>;

/** Which fields of a campaign its owner can no longer change (once money has moved: currency and goal kind). */
export const CampaignEditLocksSchema = z.object({
  currencyLocked: z.boolean(),
  targetTypeLocked: z.boolean(),
});
export type CampaignEditLocks = z.infer<typeof CampaignEditLocksSchema>;

export const CampaignListSchema = z.object({
  items: z.array(CampaignSchema),
  total: z.number(),
  /** True when a search matched more than SEARCH_COUNT_CAP: `total` is then a lower bound. */
  totalCapped: z.boolean(),
  page: z.number(),
  limit: z.number(),
  /** Pass as `cursor` to get the next page by keyset (null on the last page). */
  nextCursor: z.string().nullable(),
});

export const IdParams = z.object({ id: IdSchema });
