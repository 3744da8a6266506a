import { lazy, Suspense, useState } from 'react';
import type { DisputeTarget } from './DisputeDialog';

// the modal and its form load when first opened: the pages showing the button paint without them
const DisputeDialog = lazy(() => import('./DisputeDialog').then((m) => ({ default: m.DisputeDialog })));

/** 'Raise a dispute': opens the dispute modal about a campaign (and one of its donations or payouts). */
export function RaiseDisputeButton({ campaignId, donationId, payoutId, className }: DisputeTarget & { className?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className={className ?? 'button button-secondary'} aria-haspopup="dialog" onClick={() => setOpen(true)}>
        Raise a dispute
      </button>
      {open && (
        <Suspense fallback={null}>
          <DisputeDialog campaignId={campaignId} donationId={donationId} payoutId={payoutId} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  );
}
