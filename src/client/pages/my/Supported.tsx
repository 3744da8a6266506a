import { useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { PAGE_SIZE } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { formatMoney } from '../../../shared/money';
import type { SubscriptionDto } from '../../../shared/schemas/donations';
import { CompactItemList } from '../../components/CompactItemList';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Notice } from '../../components/Notice';
import { nextPageParam, PagedStates, PagedTable, StatusBadge } from '../../components/PagedTable';
import { formatDate } from '../../lib/dates';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';

/** /my?tab=supported: the campaigns I gave to (with what I gave), and my monthly donations. */
export function Supported() {
  return (
    <div className="supported">
      <SupportedCampaigns />
      <MonthlyDonations />
    </div>
  );
}

function SupportedCampaigns() {
  const list = trpc.donations.supported.useInfiniteQuery({ limit: PAGE_SIZE }, { getNextPageParam: nextPageParam });
  return (
    <section aria-labelledby="supported-campaigns">
      <h2 id="supported-campaigns">Campaigns you gave to</h2>
      <PagedStates
        list={list}
        empty={
          <div className="empty-state">
            <p className="muted">You have not given to a campaign yet.</p>
            <Link className="button button-secondary" to="/campaigns">
              Browse campaigns
            </Link>
          </div>
        }
      >
        {(items) => (
          <CompactItemList
            items={items}
            basePath="/campaigns"
            noun="campaign"
            label="Campaigns you gave to"
            renderActions={(c) => <span className="you-gave">You gave {formatMoney(c.donated, c.currency)}</span>}
          />
        )}
      </PagedStates>
    </section>
  );
}

function MonthlyDonations() {
  const utils = trpc.useUtils();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [cancelling, setCancelling] = useState<SubscriptionDto | null>(null);
  const [cancelled, setCancelled] = useState<string | null>(null);
  /** Cancelled here: their rows read Cancelled (and lose the button) in the same render that closes the dialog. */
  const [cancelledIds, setCancelledIds] = useState<readonly string[]>([]);
  const list = trpc.donations.subscriptions.useInfiniteQuery({ limit: PAGE_SIZE }, { getNextPageParam: nextPageParam });
  const cancel = trpc.donations.cancelSubscription.useMutation({
    onSuccess(after) {
      // the row reads Cancelled at once (its Cancel button goes, so the focus goes to the heading); the refetch follows
      setCancelledIds((ids) => [...ids, after._id]);
      void utils.donations.subscriptions.invalidate();
      setCancelled(`Your monthly donation to ${after.campaign.title} is cancelled.`);
      setCancelling(null);
    },
  });
  return (
    <section aria-labelledby="monthly-donations">
      <h2 id="monthly-donations" ref={headingRef} tabIndex={-1}>
        Monthly donations
      </h2>
      <Notice kind="success">{cancelled}</Notice>
      <PagedTable
        list={list}
        empty={<p className="muted">No monthly donations. Tick “Give monthly” when you donate to give every month.</p>}
        label="Monthly donations table"
        className="subscriptions-table"
        columns={[{ label: 'Campaign' }, { label: 'Amount', num: true }, { label: 'Status' }, { label: 'Next charge' }, { label: 'Actions', hidden: true }]}
        row={(row) => {
          const s = cancelledIds.includes(row._id) ? { ...row, status: 'cancelled' as const, nextChargeAt: null } : row;
          return (
            <tr key={s._id}>
              <th scope="row">
                <Link to={`/campaigns/${encodeURIComponent(s.campaign._id)}`}>{s.campaign.title}</Link>
              </th>
              <td className="num">{formatMoney(s.amount, s.currency)} a month</td>
              <td>{s.status === 'active' ? <StatusBadge className="donation-succeeded" label="Active" /> : <StatusBadge label="Cancelled" />}</td>
              <td className="date-cell">{s.status === 'active' && s.nextChargeAt ? formatDate(s.nextChargeAt) : '—'}</td>
              <td className="actions-cell">
                {s.status === 'active' && (
                  <button
                    type="button"
                    className="button button-small button-secondary"
                    aria-label={`Cancel monthly donation to ${s.campaign.title}`}
                    onClick={() => {
                      setCancelled(null);
                      cancel.reset();
                      setCancelling(s);
                    }}
                  >
                    Cancel
                  </button>
                )}
              </td>
            </tr>
          );
        }}
      />
      {cancelling && (
        <ConfirmDialog
          title="Cancel this monthly donation?"
          message={`${formatMoney(cancelling.amount, cancelling.currency)} a month to ${cancelling.campaign.title} stops; nothing more is charged. What you gave stays given.`}
          confirmLabel="Cancel monthly donation"
          busyLabel="Cancelling…"
          cancelLabel="Keep it"
          busy={cancel.isPending}
          error={cancel.isError ? errorMessage(cancel.error, M.requestFailed) : null}
          onConfirm={() => cancel.mutate({ id: cancelling._id })}
          onClose={() => setCancelling(null)}
          fallbackFocus={() => headingRef.current}
        />
      )}
    </section>
  );
}
