import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

/*
 * The one field pattern of every form: a <label> tied to its control, an optional hint, a
 * "required" mark, and the error text tied to the control (aria-describedby, aria-invalid).
 * The error sits in a polite live region that is always there, so a screen reader reads an error
 * out when it appears (forms also move the focus to the first invalid field: lib/forms.ts).
 */

/** What each field takes besides its control's own attributes. */
export interface FieldOwnProps {
  /** The accessible name of the control: exactly the <label> text. */
  label: string;
  /** A hint shown next to the label and read as the control's description (e.g. "optional"). */
  hint?: string;
  error?: string;
  /** Marks the field as required: shown next to the label, and `required` on the control. */
  required?: boolean;
  className?: string;
}

/** The attributes a control gets from its field. */
export interface ControlProps {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: true;
  required?: boolean;
}

/** Ids of a field's parts: the control, its hint and its error. */
export function useFieldIds(hint?: string, error?: string) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return { id, hintId, errorId, describedBy: [hintId, errorId].filter(Boolean).join(' ') || undefined };
}

/** The label line: the <label>, the "required" mark and the hint. */
export function FieldLabel({ htmlFor, label, hint, hintId, required }: { htmlFor: string; label: string; hint?: string; hintId?: string; required?: boolean }) {
  return (
    <div className="field-label">
      <label htmlFor={htmlFor}>{label}</label>
      {/* the control's `required` says it to screen readers; the mark is for the eye */}
      {required && (
        <span className="field-required" aria-hidden="true">
          required
        </span>
      )}
      {hint && (
        <span id={hintId} className="field-hint">
          {hint}
        </span>
      )}
    </div>
  );
}

/** The error line, inside a live region that is always rendered (so its changes are announced). */
export function FieldError({ id, error }: { id?: string; error?: string }) {
  return (
    <div className="field-error-slot" aria-live="polite">
      {error && (
        <p id={id} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** A labelled control of any kind: `children` renders the control with the props it is given. */
export function FieldFrame({ label, hint, error, required, className, children }: FieldOwnProps & { children: (control: ControlProps) => ReactNode }) {
  const { id, hintId, errorId, describedBy } = useFieldIds(hint, error);
  return (
    <div className={`field${className ? ` ${className}` : ''}`}>
      <FieldLabel htmlFor={id} label={label} hint={hint} hintId={hintId} required={required} />
      {children({ id, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined, required: required || undefined })}
      <FieldError id={errorId} error={error} />
    </div>
  );
}

type InputFieldProps = FieldOwnProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'required' | 'className'>;

/** A labelled input with its hint and error tied to it. */
export function Field({ label, hint, error, required, className, ...input }: InputFieldProps) {
  return (
    <FieldFrame label={label} hint={hint} error={error} required={required} className={className}>
      {(control) => <input {...input} {...control} />}
    </FieldFrame>
  );
}

type SelectFieldProps = FieldOwnProps & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'required' | 'className'>;

/** A labelled select with its hint and error tied to it. */
export function SelectField({ label, hint, error, required, className, children, ...select }: SelectFieldProps) {
  return (
    <FieldFrame label={label} hint={hint} error={error} required={required} className={className}>
      {(control) => (
        <select {...select} {...control}>
          {children}
        </select>
      )}
    </FieldFrame>
  );
}

type TextAreaFieldProps = FieldOwnProps & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id' | 'required' | 'className'>;

/** A labelled text area with its hint and error tied to it. */
export function TextAreaField({ label, hint, error, required, className, ...area }: TextAreaFieldProps) {
  return (
    <FieldFrame label={label} hint={hint} error={error} required={required} className={className}>
      {(control) => <textarea {...area} {...control} />}
    </FieldFrame>
  );
}
