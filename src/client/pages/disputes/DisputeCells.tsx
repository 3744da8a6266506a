import { Link } from 'react-router-dom';
import type { DisputeDto } from '../../../shared/schemas/payouts';
import { StatusBadge } from '../../components/PagedTable';
import { STATUS_LABEL, TYPE_LABEL, type DisputeStatus } from './DisputeFields';

/** What my disputes and the admin's show alike of a dispute. */

/** A dispute's status as a badge ('Open', 'Under review'...). */
export function DisputeStatusBadge({ status }: { status: DisputeStatus }) {
  return <StatusBadge className={`dispute-${status}`} label={STATUS_LABEL[status]} />;
}

/** A dispute row's first cells: the campaign (the row's header, a link), the type and the reason. */
export function DisputeLeadCells({ d }: { d: Pick<DisputeDto, 'campaign' | 'type' | 'reason'> }) {
  return (
    <>
      <th scope="row" className="dispute-campaign">
        <Link to={`/campaigns/${encodeURIComponent(d.campaign._id)}`}>{d.campaign.title}</Link>
      </th>
      <td>{TYPE_LABEL[d.type]}</td>
      <td className="dispute-text">{d.reason}</td>
    </>
  );
}
