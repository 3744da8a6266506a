import { useRef, useState } from 'react';
import { M } from '../../../shared/messages';
import { formatMoney } from '../../../shared/money';
import type { CampaignDonationDto } from '../../../shared/schemas/donations';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { formatDateTime } from '../../lib/dates';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { RefundDialog } from '../donations/RefundDialog';
import { DonationStatusBadge } from '../donations/status';

const PAGE = 20;

/**
 * The owner's (or an admin's) Donations section of a campaign: donor, amount, status, date and
 * monthly of each donation that moved money, newest first, with Load more, a Refund (confirmed)
 * for those that stand, and the whole list as CSV.
 */
export function CampaignDonations({ campaignId }: { campaignId: string }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [refunding, setRefunding] = useState<CampaignDonationDto | null>(null);
  const [refunded, setRefunded] = useState<string | null>(null);
  /** Refunded here: their rows read Refunded (and lose the button) in the same render that closes the dialog. */
  const [refundedIds, setRefundedIds] = useState<readonly string[]>([]);
  const list = trpc.donations.ofCampaign.useInfiniteQuery(
    { campaignId, limit: PAGE },
    { getNextPageParam: (last) => last.nextCursor ?? undefined },
  );
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  const csvUrl = `/api/campaigns/${encodeURIComponent(campaignId)}/donations?format=csv`;

  return (
    <section className="campaign-donations" aria-labelledby="donations-heading">
      <div className="section-head">
        <h2 id="donations-heading" ref={headingRef} tabIndex={-1}>
          Donations
        </h2>
        {items.length > 0 && (
          <a className="button button-secondary button-small" href={csvUrl} download>
            Download CSV
          </a>
        )}
      </div>
      <Notice kind="success">{refunded}</Notice>
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
        <p className="muted">No donations yet.</p>
      ) : (
        <>
          <section className="table-wrap" aria-label="Donations table" tabIndex={0}>
            <table className="table donations-table">
              <thead>
                <tr>
                  <th scope="col">Donor</th>
                  <th scope="col" className="num">
                    Amount
                  </th>
                  <th scope="col">Status</th>
                  <th scope="col">Date</th>
                  <th scope="col">Monthly</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((row) => {
                  const d = refundedIds.includes(row._id) ? { ...row, status: 'refunded' as const } : row;
                  const amount = formatMoney(d.amount, d.currency);
                  return (
                    <tr key={d._id}>
                      <th scope="row" className="donor-cell">
                        {d.donor}
                      </th>
                      <td className="num">{amount}</td>
                      <td>
                        <DonationStatusBadge status={d.status} />
                      </td>
                      <td className="date-cell">{formatDateTime(d.date)}</td>
                      <td>{d.monthly ? 'Yes' : 'No'}</td>
                      <td className="actions-cell">
                        {d.status === 'succeeded' && (
                          <button
                            type="button"
                            className="button button-small button-secondary"
                            aria-label={`Refund ${amount} from ${d.donor}`}
                            onClick={() => {
                              setRefunded(null);
                              setRefunding(d);
                            }}
                          >
                            Refund
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
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
      {refunding && (
        <RefundDialog
          donation={refunding}
          onClose={() => setRefunding(null)}
          onRefunded={(receipt) => {
            // the row reads Refunded at once (its Refund button goes, so the focus goes to the heading); the refetch follows
            setRefundedIds((ids) => [...ids, receipt._id]);
            setRefunded(`Refunded ${formatMoney(receipt.amount, receipt.currency)} to ${refunding.donor}.`);
            setRefunding(null);
          }}
          fallbackFocus={() => headingRef.current}
        />
      )}
    </section>
  );
}
