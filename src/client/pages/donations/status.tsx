import type { DONATION_STATUSES } from '../../../shared/schemas/donations';

type DonationStatus = (typeof DONATION_STATUSES)[number];

const LABEL: Record<DonationStatus, string> = {
  pending: 'Pending',
  succeeded: 'Succeeded',
  failed: 'Failed',
  refunded: 'Refunded',
};

/** A donation's status as a badge ('Succeeded', 'Refunded'...). */
export function DonationStatusBadge({ status }: { status: DonationStatus }) {
  return <span className={`status-badge donation-status donation-${status}`}>{LABEL[status]}</span>;
}
