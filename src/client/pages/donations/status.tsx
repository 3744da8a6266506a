import type { DONATION_STATUSES } from '../../../shared/schemas/donations';
import type { PayoutDto } from '../../../shared/schemas/payouts';
import { StatusBadge } from '../../components/PagedTable';

/** The money statuses as badges, in the tables of donations and payouts. */

type DonationStatus = (typeof DONATION_STATUSES)[number];

const DONATION_LABEL: Record<DonationStatus, string> = {
  pending: 'Pending',
  succeeded: 'Succeeded',
  failed: 'Failed',
  refunded: 'Refunded',
};

const PAYOUT_LABEL: Record<PayoutDto['status'], string> = { pending: 'Pending', paid: 'Paid', rejected: 'Rejected' };

/** A donation's status as a badge ('Succeeded', 'Refunded'...). */
export function DonationStatusBadge({ status }: { status: DonationStatus }) {
  return <StatusBadge className={`donation-status donation-${status}`} label={DONATION_LABEL[status]} />;
}

/** A payout's status as a badge ('Pending', 'Paid', 'Rejected'): the owner's payouts and the admin's. */
export function PayoutStatusBadge({ status }: { status: PayoutDto['status'] }) {
  return <StatusBadge className={`payout-${status}`} label={PAYOUT_LABEL[status]} />;
}
