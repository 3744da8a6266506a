import { z } from './zod';
import { M } from '../messages';
import { ImageRefSchema, ListQuery } from './campaigns';
import { IdSchema, text } from './common';

/**
 * Updates to backers (issue #33 item 5): the owner of a campaign posts news to it, for everyone
 * (`public`) or for its backers only (`backers`: people with a standing donation to it, or a
 * confirmed supporter). Who reads an update's text is decided in lib/access.ts (`canSeeUpdate`).
 */
export const UPDATE_AUDIENCES = ['public', 'backers'] as const;
export type UpdateAudience = (typeof UPDATE_AUDIENCES)[number];
export const UPDATE_LIMITS = { title: 120, body: 10_000, images: 10 } as const;

const Title = text({ error: M.updateTitleRequired }).trim().min(1, M.updateTitleRequired).max(UPDATE_LIMITS.title, M.updateTitleTooLong);
const Body = text({ error: M.updateBodyRequired }).trim().min(1, M.updateBodyRequired).max(UPDATE_LIMITS.body, M.updateBodyTooLong);
const Audience = z.enum(UPDATE_AUDIENCES, { error: M.updateAudienceInvalid });
const Images = z.array(ImageRefSchema).max(UPDATE_LIMITS.images, M.updateTooManyImages);

export const CreateUpdateInput = z.object({
  title: Title,
  body: Body,
  audience: Audience.optional().default('public'),
  images: Images.optional().default([]),
});
export type CreateUpdateInput = z.input<typeof CreateUpdateInput>;

/** An edit: the fields given change (an edit is never emailed again). */
export const EditUpdateInput = z.object({
  title: Title.optional(),
  body: Body.optional(),
  audience: Audience.optional(),
  images: Images.optional(),
});
export type EditUpdateInput = z.input<typeof EditUpdateInput>;

export const UpdateParams = z.object({ id: IdSchema, updateId: IdSchema });

/** `limit` (at most 100) and the opaque `cursor` of a previous page's `nextCursor`. */
export const UpdatesQuery = ListQuery.pick({ limit: true, cursor: true });
export type UpdatesQuery = z.input<typeof UpdatesQuery>;

/**
 * An update as the caller may see it: a backers-only update they may not read is a locked teaser
 * (`locked`: its title and dates, no text and no images).
 */
export const UpdateSchema = z.object({
  _id: z.string(),
  campaignId: z.string(),
  title: z.string(),
  audience: z.enum(UPDATE_AUDIENCES),
  locked: z.boolean(),
  body: z.string().nullable(),
  images: z.array(z.object({ url: z.string(), alt: z.string() })),
  createdAt: z.date(),
  editedAt: z.date().nullable(),
});
export type UpdateDto = z.infer<typeof UpdateSchema>;

/** A posted update, with how many people it was emailed to (each address once). */
export const PostedUpdateSchema = UpdateSchema.extend({ emailed: z.number() });
export type PostedUpdateDto = z.infer<typeof PostedUpdateSchema>;

/** A page of a campaign's updates, newest first; `canPost` tells the campaign's owner. */
export const UpdateListSchema = z.object({ items: z.array(UpdateSchema), nextCursor: z.string().nullable(), canPost: z.boolean() });
export type UpdateListDto = z.infer<typeof UpdateListSchema>;
