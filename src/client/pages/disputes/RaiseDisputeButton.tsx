import { lazy, Suspense, useState } from 'react';
import { Link } from 'react-router-dom';
import { Notice } from '../../components/Notice';
import type { DisputeTarget } from './DisputeDialog';

// the modal and its form load when first opened: the pages showing the button paint without them
const DisputeDialog = lazy(() => import('./DisputeDialog').then((m) => ({ default: m.DisputeDialog })));

/**
 * 'Raise a dispute': opens the dispute modal about a campaign (and one of its donations or
 * payouts). Once one is submitted (the modal says so and closes), a note stays by the button
 * saying where to follow it (issue #33).
 */
export function RaiseDisputeButton({ campaignId, donationId, payoutId, className }: DisputeTarget & { className?: string }) {
  const [open, setOpen] = useState(false);
  const [raised, setRaised] = useState(false);
  return (
    <>
      <Notice kind="success">
        {raised ? (
          <>
            Your dispute was submitted. Follow it in <Link to="/myDisputes">My disputes</Link>.
          </>
        ) : null}
      </Notice>
      <button type="button" className={className ?? 'button button-secondary'} aria-haspopup="dialog" onClick={() => setOpen(true)}>
        Raise a dispute
      </button>
      {open && (
        <Suspense fallback={null}>
          <DisputeDialog
            campaignId={campaignId}
            donationId={donationId}
            payoutId={payoutId}
            onClose={() => setOpen(false)}
            onSubmitted={() => setRaised(true)}
          />
        </Suspense>
      )}
    </>
  );
}
