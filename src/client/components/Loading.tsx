import { M } from '../../shared/messages';

/** The spec's "Loading" state, announced politely to screen readers. */
export function Loading({ label = M.loading }: { label?: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}
