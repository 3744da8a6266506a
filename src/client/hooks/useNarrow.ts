import { useSyncExternalStore } from 'react';

/** Below this width lists show cards instead of tables, and the navigation folds into a menu. */
export const NARROW_MAX_PX = 639.98;
const QUERY = `(max-width: ${NARROW_MAX_PX}px)`;

function subscribe(onChange: () => void): () => void {
  if (typeof window === 'undefined' || !window.matchMedia) return () => {};
  const mq = window.matchMedia(QUERY);
  mq.addEventListener('change', onChange);
  return () => mq.removeEventListener('change', onChange);
}

const snapshot = () => (typeof window !== 'undefined' && window.matchMedia ? window.matchMedia(QUERY).matches : false);

/**
 * True while the viewport is narrower than 640 px (the same breakpoint as the stylesheet's
 * `max-width: 639.98px` rules). Read at the first render, so the first paint already has the
 * right shape.
 */
export function useNarrow(): boolean {
  return useSyncExternalStore(subscribe, snapshot, () => false);
}
