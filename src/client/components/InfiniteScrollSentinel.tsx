import { useEffect, useRef, useState } from 'react';
import { INFINITE_SCROLL_MARGIN_PX } from '../../shared/constants';

function isNearViewport(el: HTMLElement): boolean {
  const rect = el.getBoundingClientRect();
  const height = window.innerHeight || document.documentElement.clientHeight;
  return rect.top <= height + INFINITE_SCROLL_MARGIN_PX && rect.bottom >= 0;
}

interface Props {
  /** More pages exist. */
  hasMore: boolean;
  /** A page is on its way (nothing is asked for meanwhile). */
  loading: boolean;
  /** The last attempt failed: wait for the person to retry instead of asking again and again. */
  failed?: boolean;
  onLoadMore(): void;
}

/**
 * An empty element after a list that asks for the next page when it comes within 300 px of the
 * viewport's end (spec section 9; IntersectionObserver rootMargin '0px 0px 300px 0px'). When a
 * page did not fill the screen and the sentinel is still in view, the next page is asked for as
 * soon as the previous one arrived, without waiting for an intersection change that would never
 * come.
 */
export function InfiniteScrollSentinel({ hasMore, loading, failed = false, onLoadMore }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const [visible, setVisible] = useState(false);
  const onLoadMoreRef = useRef(onLoadMore);
  onLoadMoreRef.current = onLoadMore;

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (typeof IntersectionObserver === 'undefined') {
      setVisible(true);
      return;
    }
    const observer = new IntersectionObserver((entries) => setVisible(entries.some((e) => e.isIntersecting)), {
      rootMargin: `0px 0px ${INFINITE_SCROLL_MARGIN_PX}px 0px`,
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // Runs when the observer reports a change and when a page has arrived. The position is measured
  // here rather than taken from the last report: right after a page arrived the list has grown and
  // the report may be stale (the sentinel was in view, now it is far below).
  // biome-ignore lint/correctness/useExhaustiveDependencies: `visible` is the trigger (a new report), not a value read
  useEffect(() => {
    const el = ref.current;
    if (!el || !hasMore || loading || failed) return;
    if (isNearViewport(el)) onLoadMoreRef.current();
  }, [visible, hasMore, loading, failed]);

  return <div ref={ref} className="scroll-sentinel" aria-hidden="true" />;
}
