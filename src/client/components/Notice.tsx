import type { ReactNode } from 'react';

/**
 * A message line under a form or in a page: errors are alerts (read out at once), everything
 * else a polite status. Renders nothing without content.
 */
export function Notice({ kind = 'info', children }: { kind?: 'error' | 'success' | 'info'; children?: ReactNode }) {
  if (children === undefined || children === null || children === false || children === '') return null;
  return (
    <p className={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </p>
  );
}
