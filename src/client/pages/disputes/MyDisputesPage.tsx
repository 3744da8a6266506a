import { Link } from 'react-router-dom';
import { nextPageParam, pagedItems, PagedTable } from '../../components/PagedTable';
import { usePageTitle } from '../../hooks/usePageTitle';
import { formatDateTime } from '../../lib/dates';
import { trpc } from '../../trpc';
import { DisputeLeadCells, DisputeStatusBadge } from './DisputeCells';

const PAGE = 20;

/** /myDisputes (signed in only): my disputes, newest first (type, reason, details, status, created), with Load more. */
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
      <PagedTable
        list={list}
        empty={
          <div className="empty-state">
            <p className="muted">You have not raised any disputes.</p>
          </div>
        }
        label="My disputes table"
        className="disputes-table"
        columns={[
          { label: 'Campaign' },
          { label: 'Type' },
          { label: 'Reason' },
          { label: 'Details' },
          { label: 'Status' },
          { label: 'Created' },
          anyNotes && { label: 'Resolution notes' },
        ]}
        row={(d) => (
          <tr key={d._id}>
            <DisputeLeadCells d={d} />
            <td className="dispute-text prewrap">{d.details || <span className="muted">None</span>}</td>
            <td>
              <DisputeStatusBadge status={d.status} />
            </td>
            <td className="date-cell">{formatDateTime(d.createdAt)}</td>
            {anyNotes && <td className="dispute-text prewrap">{d.resolutionNotes ?? ''}</td>}
          </tr>
        )}
      />
    </section>
  );
}
