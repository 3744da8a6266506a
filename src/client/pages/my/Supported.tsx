import { useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { PAGE_SIZE } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { formatMoney } from '../../../shared/money';
import type { SubscriptionDto } from '../../../shared/schemas/donations';
import { CompactItemList } from '../../components/CompactItemList';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { formatDate } from '../../lib/dates';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';

const nextCursor = (last: { nextCursor: string | null }) => last.nextCursor ?? undefined;

/** /my?tab=supported: the campaigns I gave to (with what I gave), and my monthly donations. */
export function Supported() {
  return (
    <div className="supported">
      <SupportedCampaigns />
      <MonthlyDonations />
    </div>
  );
}

function LoadMore({ list }: { list: { hasNextPage: boolean; isFetchingNextPage: boolean; isFetchNextPageError: boolean; error: unknown; fetchNextPage(): unknown } }) {
  return (
    <>
      {list.hasNextPage && (
        <div className="load-more">
          <button type="button" className="button button-secondary" disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
            {list.isFetchingNextPage ? M.loading : 'Load more'}
          </button>
        </div>
      )}
      {list.isFetchNextPageError && <Notice kind="error">{errorMessage(list.error, M.requestFailed)}</Notice>}
    </>
  );
}

function SupportedCampaigns() {
  const list = trpc.donations.supported.useInfiniteQuery({ limit: PAGE_SIZE }, { getNextPageParam: nextCursor });
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section aria-labelledby="supported-campaigns">
      <h2 id="supported-campaigns">Campaigns you gave to</h2>
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
          <p className="muted">You have not given to a campaign yet.</p>
          <Link className="button button-secondary" to="/campaigns">
            Browse campaigns
          </Link>
        </div>
      ) : (
        <>
          <CompactItemList
            items={items}
            basePath="/campaigns"
            noun="campaign"
            label="Campaigns you gave to"
            renderActions={(c) => <span className="you-gave">You gave {formatMoney(c.donated, c.currency)}</span>}
          />
          <LoadMore list={list} />
        </>
      )}
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
  const list = trpc.donations.subscriptions.useInfiniteQuery({ limit: PAGE_SIZE }, { getNextPageParam: nextCursor });
  const cancel = trpc.donations.cancelSubscription.useMutation({
    onSuccess(after) {
      // the row reads Cancelled at once (its Cancel button goes, so the focus goes to the heading); the refetch follows
      setCancelledIds((ids) => [...ids, after._id]);
      void utils.donations.subscriptions.invalidate();
      setCancelled(`Your monthly donation to ${after.campaign.title} is cancelled.`);
      setCancelling(null);
    },
  });
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section aria-labelledby="monthly-donations">
      <h2 id="monthly-donations" ref={headingRef} tabIndex={-1}>
        Monthly donations
      </h2>
      <Notice kind="success">{cancelled}</Notice>
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
        <p className="muted">No monthly donations. Tick “Give monthly” when you donate to give every month.</p>
      ) : (
        <>
          <section className="table-wrap" aria-label="Monthly donations table" tabIndex={0}>
            <table className="table subscriptions-table">
              <thead>
                <tr>
                  <th scope="col">Campaign</th>
                  <th scope="col" className="num">
                    Amount
                  </th>
                  <th scope="col">Status</th>
                  <th scope="col">Next charge</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((row) => {
                  const s = cancelledIds.includes(row._id) ? { ...row, status: 'cancelled' as const, nextChargeAt: null } : row;
                  return (
                    <tr key={s._id}>
                      <th scope="row">
                        <Link to={`/campaigns/${encodeURIComponent(s.campaign._id)}`}>{s.campaign.title}</Link>
                      </th>
                      <td className="num">{formatMoney(s.amount, s.currency)} a month</td>
                      <td>
                        {s.status === 'active' ? (
                          <span className="status-badge donation-succeeded">Active</span>
                        ) : (
                          <span className="status-badge">Cancelled</span>
                        )}
                      </td>
                      <td className="date-cell">
                        {s.status === 'active' && s.nextChargeAt ? formatDate(s.nextChargeAt) : '—'}
                      </td>
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
                })}
              </tbody>
            </table>
          </section>
          <LoadMore list={list} />
        </>
      )}
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
