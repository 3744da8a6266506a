import { M } from '../../../shared/messages';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { formatDateTime } from '../../lib/dates';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';

const PAGE = 20;

/**
 * The owner's (or an admin's) Supporters section of a campaign that takes supporters: each
 * confirmed supporter's name, email (guests only, masked) and when they confirmed, newest first,
 * with Load more and the whole list as CSV.
 */
export function CampaignSupporters({ campaignId }: { campaignId: string }) {
  const list = trpc.supports.list.useInfiniteQuery({ campaignId, limit: PAGE }, { getNextPageParam: (last) => last.nextCursor ?? undefined });
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  const csvUrl = `/api/campaigns/${encodeURIComponent(campaignId)}/supporters?format=csv`;

  return (
    <section className="campaign-supporters" aria-labelledby="supporters-heading">
      <div className="section-head">
        <h2 id="supporters-heading">Supporters</h2>
        {items.length > 0 && (
          <a className="button button-secondary button-small" href={csvUrl} download>
            Download CSV
          </a>
        )}
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
        <p className="muted">No supporters yet.</p>
      ) : (
        <>
          <p className="muted section-note">Guests’ addresses are shown masked; members are shown by name.</p>
          <section className="table-wrap" aria-label="Supporters table" tabIndex={0}>
            <table className="table supporters-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Confirmed</th>
                </tr>
              </thead>
              <tbody>
                {items.map((s, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a supporter row has no id and two may share a time; pages are only appended
                  <tr key={`${s.confirmedAt.getTime()}-${i}`}>
                    <th scope="row" className="supporter-cell">
                      {s.name}
                    </th>
                    <td className="email-cell">
                      {s.email ?? <span className="muted">not shown</span>}
                    </td>
                    <td className="date-cell">{formatDateTime(s.confirmedAt)}</td>
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
