import { useId, useRef, type FormEvent, type KeyboardEvent } from 'react';
import { COMMENT_MAX } from '../../../../shared/constants';

export interface CommentFormProps {
  /** The textarea's label: 'Write a comment', 'Write a reply', 'Edit comment'. */
  label: string;
  /** The submit button's text: 'Post', 'Post reply', 'Save'. */
  submitLabel: string;
  value: string;
  onChange(text: string): void;
  /** Called with the trimmed text, never with blank text. */
  onSubmit(text: string): void;
  /** Shows a Cancel button (Escape in the box does the same). */
  onCancel?(): void;
  busy: boolean;
  /**
   * What blank text does (spec section 5): 'disable' greys the button out (the post box);
   * 'ignore' leaves it enabled and a press does nothing (reply and edit boxes).
   */
  blank: 'disable' | 'ignore';
  autoFocus?: boolean;
  className?: string;
}

/** A labelled comment textarea (at most 5000 characters) with its buttons. Ctrl/Cmd+Enter submits. */
export function CommentForm({ label, submitLabel, value, onChange, onSubmit, onCancel, busy, blank, autoFocus, className }: CommentFormProps) {
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const isBlank = value.trim() === '';

  function submit(e: FormEvent) {
    e.preventDefault();
    if (busy || isBlank) return;
    onSubmit(value.trim());
  }

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      formRef.current?.requestSubmit();
    } else if (e.key === 'Escape' && onCancel) {
      e.preventDefault();
      onCancel();
    }
  }

  return (
    <form ref={formRef} className={`comment-form${className ? ` ${className}` : ''}`} onSubmit={submit} aria-busy={busy || undefined}>
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <textarea
          id={id}
          value={value}
          maxLength={COMMENT_MAX}
          rows={3}
          // biome-ignore lint/a11y/noAutofocus: the box was opened by a press on Reply or Edit: typing goes straight in
          autoFocus={autoFocus}
          onChange={(e) => onChange(e.target.value)}
          onKeyDown={onKeyDown}
        />
      </div>
      <div className="button-row">
        <button type="submit" className="button button-small" disabled={busy || (blank === 'disable' && isBlank)}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="button button-small button-ghost" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
