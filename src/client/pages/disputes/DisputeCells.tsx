import { Link } from 'react-router-dom';
import type { DisputeDto } from '../../../shared/schemas/payouts';
import { StatusBadge, type Column } from '../../components/PagedTable';
import { STATUS_LABEL, TYPE_LABEL, type DisputeStatus } from './DisputeFields';

/** What my disputes and the admin's show alike of a dispute. */

/** A dispute's status as a badge ('Open', 'Under review'...). */
export function DisputeStatusBadge({ status }: { status: DisputeStatus }) {
  return <StatusBadge className={`dispute-${status}`} label={STATUS_LABEL[status]} />;
}

/** A dispute row's first columns: the campaign (the row's header, a link; a card's title), the type and the reason. */
export function disputeLeadColumns<T extends Pick<DisputeDto, 'campaign' | 'type' | 'reason'>>(): Column<T>[] {
  return [
    {
      label: 'Campaign',
      head: true,
      className: 'dispute-campaign',
      cell: (d) => <Link to={`/campaigns/${encodeURIComponent(d.campaign._id)}`}>{d.campaign.title}</Link>,
    },
    { label: 'Type', cell: (d) => TYPE_LABEL[d.type] },
    { label: 'Reason', wide: true, className: 'dispute-text', cell: (d) => d.reason },
  ];
}
