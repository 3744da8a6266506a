import { z } from 'zod';

/** An id in a path: any string here; services answer 404 for one that names nothing (or is malformed). */
export const IdSchema = z.string().trim().min(1).max(100);

/** Normalised tags: lower-cased, trimmed, empty and duplicate ones dropped. */
export function normaliseTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of tags) {
    const t = raw.trim().toLowerCase();
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

export const TagsSchema = z
  .array(z.string().max(40, 'A tag can be at most 40 characters'))
  .max(30, 'At most 30 tags')
  .transform(normaliseTags);

export const MessageSchema = z.object({ message: z.string() });
export type MessageDto = z.infer<typeof MessageSchema>;
