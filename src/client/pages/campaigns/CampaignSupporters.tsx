import { campaignSupportersInput } from '../../../shared/first-queries';
import { nextPageParam, pagedItems, PagedTable } from '../../components/PagedTable';
import { formatDateTime } from '../../lib/dates';
import { trpc } from '../../trpc';

/**
 * The owner's (or an admin's) Supporters section of a campaign that takes supporters: each
 * confirmed supporter's name, email (guests only, masked) and when they confirmed, newest first,
 * with Load more and the whole list as CSV.
 */
export function CampaignSupporters({ campaignId }: { campaignId: string }) {
  const list = trpc.supports.list.useInfiniteQuery(campaignSupportersInput(campaignId), { getNextPageParam: nextPageParam });
  const items = pagedItems(list);
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
      <PagedTable
        list={list}
        empty={<p className="muted">No supporters yet.</p>}
        intro={<p className="muted section-note">Guests’ addresses are shown masked; members are shown by name.</p>}
        label="Supporters"
        className="supporters-table"
        rowKey={(s, i) => `${s.confirmedAt.getTime()}-${i}`}
        columns={[
          { label: 'Name', head: true, className: 'supporter-cell', cell: (s) => s.name },
          { label: 'Email', wide: true, token: true, className: 'email-cell', cell: (s) => s.email ?? <span className="muted">not shown</span> },
          { label: 'Confirmed', className: 'date-cell', cell: (s) => formatDateTime(s.confirmedAt) },
        ]}
      />
    </section>
  );
}
