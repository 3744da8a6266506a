import { useEffect, useRef, useState } from 'react';
import { useBlocker } from 'react-router-dom';
import { ConfirmDialog } from '../components/ConfirmDialog';

/** The navigation state of a form's Cancel: it discards the changes, so the leave guard lets it go. */
export const DISCARD_FORM = { discardForm: true } as const;

/**
 * A warning before leaving a page whose form has changes or an upload in progress (issue #33):
 * a move inside the app asks in a dialog (Stay, the default, or Leave); closing or reloading the
 * tab gets the browser's own question. `when` false lets every move through (after a submit).
 */
export function useLeaveGuard(when: boolean, uploading: boolean, onDiscard?: () => void) {
  const blocker = useBlocker(({ currentLocation, nextLocation }) => {
    if (!when || currentLocation.pathname === nextLocation.pathname) return false;
    // the form's own Cancel (a link with `DISCARD_FORM` state) leaves without asking and forgets what was kept
    if ((nextLocation.state as { discardForm?: boolean } | null)?.discardForm) {
      onDiscard?.();
      return false;
    }
    return true;
  });
  // Leave was chosen: the dialog's closing must not cancel the move it lets through
  const leaving = useRef(false);
  useEffect(() => {
    if (!when) return;
    const warn = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // older browsers show the question only when a value is set
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [when]);
  if (blocker.state !== 'blocked') return null;
  return (
    <ConfirmDialog
      title="Leave this page?"
      message={
        uploading
          ? 'Images are still uploading: leaving stops them. What you typed is kept on this device for when you come back.'
          : 'You have changes that are not saved. What you typed is kept on this device for when you come back.'
      }
      confirmLabel="Leave"
      cancelLabel="Stay"
      onConfirm={() => {
        leaving.current = true;
        blocker.proceed();
      }}
      onClose={() => {
        if (!leaving.current) blocker.reset();
        leaving.current = false;
      }}
    />
  );
}

/**
 * A form's values kept in this tab's session storage under `key` while it is being filled in, so
 * leaving the page (or reloading it) does not lose them; `clear` forgets them once they are sent.
 * Without a key the values live in memory only.
 */
export function useKeptState<T>(key: string | undefined, initial: T): [T, (update: (prev: T) => T) => void, () => void] {
  const storageKey = key ? `kindling:form:${key}` : undefined;
  const [value, setValue] = useState<T>(() => {
    if (!storageKey) return initial;
    try {
      const kept = sessionStorage.getItem(storageKey);
      return kept ? ({ ...initial, ...JSON.parse(kept) } as T) : initial;
    } catch {
      return initial;
    }
  });
  useEffect(() => {
    if (!storageKey) return;
    try {
      if (JSON.stringify(value) === JSON.stringify(initial)) sessionStorage.removeItem(storageKey);
      else sessionStorage.setItem(storageKey, JSON.stringify(value));
    } catch {
      // storage full or refused: the form still works, it just is not kept
    }
  }, [storageKey, value, initial]);
  const clear = () => {
    if (storageKey) sessionStorage.removeItem(storageKey);
  };
  return [value, setValue, clear];
}
