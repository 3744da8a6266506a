import { useEffect, useState, type RefObject } from 'react';
import { M } from '../../../../shared/messages';

interface MoreButtonProps {
  /** The button's text (its accessible name, the same while busy). */
  label: string;
  busy: boolean;
  failed: boolean;
  onMore(): void;
  className?: string;
}

/**
 * 'Load more comments' / 'Show more replies': a real button, reachable by keyboard. While the
 * next page is on its way it is aria-busy and aria-disabled (a press does nothing) but keeps its
 * focus, and 'Loading…' shows beside it; a failed load says so and the button tries again.
 */
export function MoreButton({ label, busy, failed, onMore, className }: MoreButtonProps) {
  return (
    <div className={`button-row${className ? ` ${className}` : ''}`}>
      <button
        type="button"
        className="button button-small button-ghost"
        aria-busy={busy || undefined}
        aria-disabled={busy || undefined}
        onClick={() => {
          if (!busy) onMore();
        }}
      >
        {label}
      </button>
      <span className="muted" role="status" aria-live="polite">
        {busy ? M.loadingMore : failed ? M.loadMoreFailed : ''}
      </span>
    </div>
  );
}

/**
 * Keyboard focus after a "more" button: when the new items are in and the button is gone (that
 * was the last page), focus moves to the first new item's <article> instead of falling to the
 * page. `mark()` is called on the press with the number of items shown then.
 */
export function useFocusFirstNew(listRef: RefObject<HTMLElement | null>, shown: number, stillMore: boolean) {
  const [from, setFrom] = useState<number | null>(null);
  useEffect(() => {
    if (from === null || shown <= from) return;
    if (!stillMore) {
      const article = listRef.current?.children[from]?.querySelector('article');
      if (article instanceof HTMLElement) {
        article.tabIndex = -1;
        article.focus();
      }
    }
    setFrom(null);
  }, [from, shown, stillMore, listRef]);
  return { mark: (count: number) => setFrom(count) };
}
