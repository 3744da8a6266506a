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

/** A form's schema, loaded on first use (see lazySchema). */
export interface LazySchema<S extends z.ZodType> {
  /** The schema: at once when it is in, else once its module has loaded. */
  get(): Promise<S>;
  /** Starts loading it: a form calls this when it is first focused or touched, so a submit finds it ready. */
  prefetch(): void;
}

/**
 * A form's schema, loaded when the form is first used instead of with its page. The schema
 * modules bring zod, and building their schemas takes tens of milliseconds of a phone's main
 * thread: a page whose first paint shows a form (log in, the campaign's Donate and Support panels)
 * paints sooner without them, and they are in long before the person finishes typing. `load`
 * is a dynamic import of the schema's module; a failed load is tried again on the next use.
 */
export function lazySchema<S extends z.ZodType>(load: () => Promise<S>): LazySchema<S> {
  let pending: Promise<S> | undefined;
  const get = () =>
    (pending ??= load().catch((err: unknown) => {
      pending = undefined;
      throw err;
    }));
  return {
    get,
    prefetch() {
      get().catch(() => {
        // the submit that needs it tries again and reports the failure
      });
    },
  };
}

/** validate() with a schema loaded on first use; null when it could not be loaded (the form then says the request failed). */
export async function validateLazy<S extends z.ZodType>(schema: LazySchema<S>, values: unknown): Promise<Validated<z.output<S>> | null> {
  let loaded: S;
  try {
    loaded = await schema.get();
  } catch {
    return null;
  }
  return validate(loaded, values);
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
