import type { z } from 'zod';

/** The first message for each top-level field, e.g. { email: 'Enter a valid email address' }. */
export type FieldErrors = Partial<Record<string, string>>;

export type Validated<T> = { ok: true; data: T; errors: FieldErrors } | { ok: false; data: null; errors: FieldErrors };

/**
 * Checks form values with the same zod schema the server uses, so the texts match the server's.
 * Issues without a path land under the key `form`.
 */
export function validate<S extends z.ZodType>(schema: S, values: unknown): Validated<z.output<S>> {
  const result = schema.safeParse(values);
  if (result.success) return { ok: true, data: result.data, errors: {} };
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const key = issue.path.length ? String(issue.path[0]) : 'form';
    if (!errors[key]) errors[key] = issue.message;
  }
  return { ok: false, data: null, errors };
}
