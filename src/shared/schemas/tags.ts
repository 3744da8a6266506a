import { z } from './zod';
import { TAG_SUGGESTIONS } from '../constants';
import { text } from './common';

export const TagSearchQuery = z.object({
  q: text().trim().toLowerCase().max(40).optional().default(''),
  limit: z.coerce.number().int().min(1).max(20).optional().default(TAG_SUGGESTIONS),
});
export const TagListSchema = z.object({ tags: z.array(z.string()) });

export const SuggestedUsersQuery = z.object({ projectId: text().trim().min(1, 'projectId is required').max(100) });
