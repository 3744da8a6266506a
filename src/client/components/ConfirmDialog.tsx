import { useEffect, useId, useRef, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import { Notice } from './Notice';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

interface ConfirmDialogProps {
  title: string;
  /** The question, read as the dialog's description. */
  message: ReactNode;
  /** Extra fields (an optional reason...); the first of them gets the focus. */
  children?: ReactNode;
  confirmLabel: string;
  /** The confirm button's text while `busy`. */
  busyLabel?: string;
  cancelLabel?: string;
  busy?: boolean;
  /** Shown as an alert inside the dialog (a failed confirm keeps it open). */
  error?: string | null;
  onConfirm(): void;
  onClose(): void;
  /** Where the focus goes on close when the control that opened the dialog is gone (a Refund button of a row now refunded). */
  fallbackFocus?: () => HTMLElement | null | undefined;
  /** The confirm button's look: 'danger' (the default, for destructive actions) or 'primary'. */
  tone?: 'danger' | 'primary';
}

/**
 * A modal question (a native <dialog> opened with showModal, so the page behind is inert).
 * Tab and Shift+Tab stay inside it, Escape and Cancel close it (not while busy), and the focus
 * goes back to the control that opened it (or to `fallbackFocus` when that control is gone).
 * The first field gets the focus; without fields, the harmless Cancel button does.
 */
export function ConfirmDialog({
  title,
  message,
  children,
  confirmLabel,
  busyLabel,
  cancelLabel = 'Cancel',
  busy = false,
  error,
  onConfirm,
  onClose,
  fallbackFocus,
  tone = 'danger',
}: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const fieldsRef = useRef<HTMLDivElement>(null);
  const fallbackRef = useRef(fallbackFocus);
  fallbackRef.current = fallbackFocus;
  const titleId = useId();
  const messageId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    const first = fieldsRef.current?.querySelector<HTMLElement>(FOCUSABLE);
    (first ?? cancelRef.current)?.focus();
    return () => {
      if (dialog.open) dialog.close();
      const target = before?.isConnected && before !== document.body ? before : fallbackRef.current?.();
      target?.focus();
    };
  }, []);

  // the confirm button was disabled while busy (and so lost the focus): a failure gives it back
  useEffect(() => {
    if (error && !busy && !ref.current?.contains(document.activeElement)) confirmRef.current?.focus();
  }, [error, busy]);

  function onKeyDown(e: KeyboardEvent<HTMLDialogElement>) {
    if (e.key !== 'Tab') return;
    const items = Array.from(ref.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? []);
    if (!items.length) return;
    const first = items[0];
    const last = items[items.length - 1];
    const outside = !ref.current?.contains(document.activeElement);
    if (e.shiftKey && (document.activeElement === first || outside)) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && (document.activeElement === last || outside)) {
      e.preventDefault();
      first.focus();
    }
  }

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (!busy) onConfirm();
  }

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      aria-describedby={messageId}
      onKeyDown={onKeyDown}
      onCancel={(e) => {
        // Escape: closed by React state, so the focus can be put back
        e.preventDefault();
        if (!busy) onClose();
      }}
    >
      <form className="form" onSubmit={onSubmit} noValidate>
        <h2 id={titleId}>{title}</h2>
        <p id={messageId} className="dialog-message">
          {message}
        </p>
        {children && <div ref={fieldsRef}>{children}</div>}
        <Notice kind="error">{error}</Notice>
        <div className="button-row dialog-actions">
          <button ref={confirmRef} type="submit" className={tone === 'danger' ? 'button button-danger' : 'button'} disabled={busy}>
            {busy ? (busyLabel ?? confirmLabel) : confirmLabel}
          </button>
          <button ref={cancelRef} type="button" className="button button-secondary" disabled={busy} onClick={onClose}>
            {cancelLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
