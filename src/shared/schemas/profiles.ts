import { z } from './zod';
import { PROFILE_PAGE_SIZES } from '../constants';
import { M } from '../messages';
import { OptionalPhoneSchema, OptionalUsernameSchema } from './auth';
import { TagsSchema, text } from './common';
import { PublicUserSchema } from './user';

/** Tags from `tags` (comma-separated or repeated) and `tag`, normalised. */
const TagFilter = z
  .union([text(), z.array(text())])
  .optional()
  .transform((v) => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(','))));

export const PublicUsersQuery = z
  .object({
    q: text().trim().max(100).optional().default(''),
    tags: TagFilter,
    tag: TagFilter,
    page: z.coerce.number({ error: M.pageInvalid }).int(M.pageInvalid).min(1, M.pageInvalid).max(100_000, M.pageInvalid).optional().default(1),
    limit: z.coerce
      .number({ error: M.limitInvalid })
      .int(M.limitInvalid)
      .min(1, M.limitInvalid)
      .transform((n) => Math.min(n, Math.max(...PROFILE_PAGE_SIZES)))
      .optional()
      .default(20),
    match: z.enum(['all', 'any'], { error: M.matchInvalid }).optional().default('any'),
  })
  .transform(({ tags, tag, ...rest }) => ({
    ...rest,
    tags: [...new Set([...tags, ...tag].map((t) => t.trim().toLowerCase()).filter(Boolean))].slice(0, 20),
  }));

export const PublicUserListSchema = z.object({
  items: z.array(PublicUserSchema),
  total: z.number(),
  page: z.number(),
  limit: z.number(),
});

export const UpdateProfileInput = z.object({
  username: OptionalUsernameSchema.optional(),
  phone: OptionalPhoneSchema.optional(),
  name: text()
    .trim()
    .max(80, M.nameTooLong)
    .nullish()
    .transform((v) => (v ? v : v === undefined ? undefined : null)),
  tags: TagsSchema.optional(),
});
export type UpdateProfileInput = z.input<typeof UpdateProfileInput>;
