import { Link } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { usePageTitle } from '../../hooks/usePageTitle';
import { formatDateTime } from '../../lib/dates';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { STATUS_LABEL, TYPE_LABEL, type DisputeStatus } from './DisputeFields';

const PAGE = 20;

export function DisputeStatusBadge({ status }: { status: DisputeStatus }) {
  return <span className={`status-badge dispute-${status}`}>{STATUS_LABEL[status]}</span>;
}

/** /myDisputes (signed in only): my disputes, newest first (type, reason, details, status, created), with Load more. */
export default function MyDisputesPage() {
  usePageTitle('My disputes');
  const list = trpc.disputes.mine.useInfiniteQuery({ limit: PAGE }, { getNextPageParam: (last) => last.nextCursor ?? undefined });
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  const anyNotes = items.some((d) => d.resolutionNotes);

  return (
    <section className="page my-disputes">
      <div className="page-head">
        <h1>My disputes</h1>
        <Link className="button button-secondary" to="/disputes/new">
          Raise a dispute
        </Link>
      </div>
      {list.isPending ? (
        <Loading />
      ) : list.isError && !list.data ? (
        <div className="list-error">
          <Notice kind="error">{errorMessage(list.error, M.requestFailed)}</Notice>
          <button type="button" className="button button-secondary" onClick={() => void list.refetch()}>
            Try again
          </button>
        </div>
      ) : items.length === 0 ? (
        <div className="empty-state">
          <p className="muted">You have not raised any disputes.</p>
        </div>
      ) : (
        <>
          <section className="table-wrap" aria-label="My disputes table" tabIndex={0}>
            <table className="table disputes-table">
              <thead>
                <tr>
                  <th scope="col">Campaign</th>
                  <th scope="col">Type</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Details</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  {anyNotes && <th scope="col">Resolution notes</th>}
                </tr>
              </thead>
              <tbody>
                {items.map((d) => (
                  <tr key={d._id}>
                    <th scope="row" className="dispute-campaign">
                      <Link to={`/campaigns/${encodeURIComponent(d.campaign._id)}`}>{d.campaign.title}</Link>
                    </th>
                    <td>{TYPE_LABEL[d.type]}</td>
                    <td className="dispute-text">{d.reason}</td>
                    <td className="dispute-text prewrap">{d.details || <span className="muted">None</span>}</td>
                    <td>
                      <DisputeStatusBadge status={d.status} />
                    </td>
                    <td className="date-cell">{formatDateTime(d.createdAt)}</td>
                    {anyNotes && <td className="dispute-text prewrap">{d.resolutionNotes ?? ''}</td>}
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          {list.hasNextPage && (
            <div className="load-more">
              <button type="button" className="button button-secondary" disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
                {list.isFetchingNextPage ? M.loading : 'Load more'}
              </button>
            </div>
          )}
          {list.isFetchNextPageError && <Notice kind="error">{errorMessage(list.error, M.requestFailed)}</Notice>}
        </>
      )}
    </section>
  );
}
