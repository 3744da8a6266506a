import type { z } from 'zod';
import { useCallback, useEffect, useRef, useState } from 'react';

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

/** Focuses the first control marked invalid inside `root`, in document order. */
export function focusFirstInvalid(root: ParentNode | null | undefined): boolean {
  const el = root?.querySelector<HTMLElement>('[aria-invalid="true"]:not([disabled])');
  el?.focus();
  return !!el;
}

/**
 * A form's field errors. `show(errors)` puts them on the fields and, once they are rendered,
 * moves the focus to the first invalid control of the form `formRef` points at (each field's
 * error sits in a live region, so it is also read out).
 */
export function useFormErrors() {
  const formRef = useRef<HTMLFormElement>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (attempt) focusFirstInvalid(formRef.current);
  }, [attempt]);
  const show = useCallback((next: FieldErrors) => {
    setErrors(next);
    if (Object.keys(next).length > 0) setAttempt((n) => n + 1);
  }, []);
  return { formRef, errors, show };
}
