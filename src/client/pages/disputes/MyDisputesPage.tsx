import { Link } from 'react-router-dom';
import type { DisputeDto } from '../../../shared/schemas/payouts';
import { nextPageParam, pagedItems, PagedTable } from '../../components/PagedTable';
import { usePageTitle } from '../../hooks/usePageTitle';
import { formatDateTime } from '../../lib/dates';
import { trpc } from '../../trpc';
import { disputeLeadColumns, DisputeStatusBadge } from './DisputeCells';

const PAGE = 20;

/** /myDisputes (signed in only): my disputes, newest first (type, reason, details, status, created), with Load more; cards below 640 px. */
export default function MyDisputesPage() {
  usePageTitle('My disputes');
  const list = trpc.disputes.mine.useInfiniteQuery({ limit: PAGE }, { getNextPageParam: nextPageParam });
  const anyNotes = pagedItems(list).some((d) => d.resolutionNotes);

  return (
    <section className="page my-disputes">
      <div className="page-head">
        <h1>My disputes</h1>
        <Link className="button button-secondary" to="/disputes/new">
          Raise a dispute
        </Link>
      </div>
      <PagedTable<DisputeDto>
        list={list}
        empty={
          <div className="empty-state">
            <p className="muted">You have not raised any disputes.</p>
          </div>
        }
        label="My disputes"
        className="disputes-table"
        cardHeading={2}
        rowKey={(d) => d._id}
        columns={[
          ...disputeLeadColumns<DisputeDto>(),
          { label: 'Details', wide: true, className: 'dispute-text prewrap', cell: (d) => d.details || <span className="muted">None</span> },
          { label: 'Status', cell: (d) => <DisputeStatusBadge status={d.status} /> },
          { label: 'Created', className: 'date-cell', cell: (d) => formatDateTime(d.createdAt) },
          anyNotes && {
            label: 'Resolution notes',
            wide: true,
            className: 'dispute-text prewrap',
            cell: (d) => d.resolutionNotes ?? '',
            skip: (d) => !d.resolutionNotes,
          },
        ]}
      />
    </section>
  );
}
