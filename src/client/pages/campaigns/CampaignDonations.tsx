import { campaignDonationsInput } from '../../../shared/first-queries';
import { useRef, useState } from 'react';
import { formatMoney } from '../../../shared/money';
import type { CampaignDonationDto } from '../../../shared/schemas/donations';
import { Notice } from '../../components/Notice';
import { nextPageParam, pagedItems, PagedTable } from '../../components/PagedTable';
import { formatDateTime } from '../../lib/dates';
import { trpc } from '../../trpc';
import { RefundDialog } from '../donations/RefundDialog';
import { DonationStatusBadge } from '../donations/status';

/**
 * The owner's (or an admin's) Donations section of a campaign: donor, amount, status, date and
 * monthly of each donation that moved money, newest first, with Load more, a Refund (confirmed)
 * for those that stand, and the whole list as CSV. Cards below 640 px.
 */
export function CampaignDonations({ campaignId }: { campaignId: string }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [refunding, setRefunding] = useState<CampaignDonationDto | null>(null);
  const [refunded, setRefunded] = useState<string | null>(null);
  /** Refunded here: their rows read Refunded (and lose the button) in the same render that closes the dialog. */
  const [refundedIds, setRefundedIds] = useState<readonly string[]>([]);
  const list = trpc.donations.ofCampaign.useInfiniteQuery(campaignDonationsInput(campaignId), { getNextPageParam: nextPageParam });
  const items = pagedItems(list);
  /** A row as shown: Refunded at once when refunded here. */
  const shown = (row: CampaignDonationDto) => (refundedIds.includes(row._id) ? { ...row, status: 'refunded' as const } : row);
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
      <PagedTable<CampaignDonationDto>
        list={list}
        empty={<p className="muted">No donations yet.</p>}
        label="Donations"
        className="donations-table"
        rowKey={(d) => d._id}
        columns={[
          { label: 'Donor', head: true, className: 'donor-cell', cell: (d) => d.donor },
          { label: 'Amount', num: true, cell: (d) => formatMoney(d.amount, d.currency) },
          {
            label: 'Status',
            cell: (row) => {
              const d = shown(row);
              return (
                <>
                  <DonationStatusBadge status={d.status} />
                  {d.chargeback === 'open' ? (
                    <span className="cell-note">Disputed by the donor’s bank: held</span>
                  ) : d.status === 'succeeded' && d.refunded > 0 ? (
                    <span className="cell-note">Refunded {formatMoney(d.refunded, d.currency)}</span>
                  ) : null}
                </>
              );
            },
          },
          { label: 'Date', className: 'date-cell', cell: (d) => formatDateTime(d.date) },
          { label: 'Monthly', cell: (d) => (d.monthly ? 'Yes' : 'No') },
          {
            label: 'Actions',
            actions: true,
            cell: (row) => {
              const d = shown(row);
              if (d.status !== 'succeeded' || d.chargeback === 'open') return null;
              const amount = formatMoney(d.amount, d.currency);
              return (
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
              );
            },
          },
        ]}
      />
      {refunding && (
        <RefundDialog
          // what still stands of it is what goes back
          donation={{ ...refunding, amount: refunding.amount - refunding.refunded }}
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
