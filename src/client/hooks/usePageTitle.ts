import { useEffect } from 'react';
import { M } from '../../shared/messages';

/** Sets the browser tab title: "<title> · Kindling" (just "Kindling" without a title). */
export function usePageTitle(title?: string): void {
  useEffect(() => {
    document.title = title ? `${title} · ${M.brand}` : M.brand;
  }, [title]);
}
