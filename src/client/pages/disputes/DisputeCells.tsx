import { StatusBadge } from '../../components/PagedTable';
import { STATUS_LABEL, type DisputeStatus } from './DisputeFields';

/** A dispute's status as a badge ('Open', 'Under review'...), on my disputes and the admin's. */
export function DisputeStatusBadge({ status }: { status: DisputeStatus }) {
  return <StatusBadge className={`dispute-${status}`} label={STATUS_LABEL[status]} />;
}
