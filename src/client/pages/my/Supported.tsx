import { useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { PAGE_SIZE } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { formatMoney } from '../../../shared/money';
import type { SubscriptionDto } from '../../../shared/schemas/donations';
import { CompactItemList } from '../../components/CompactItemList';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { EmptyState, InfiniteList, ListSkeleton } from '../../components/InfiniteList';
import { ListCard } from '../../components/ListCard';
import { Notice } from '../../components/Notice';
import { useNarrow } from '../../hooks/useNarrow';
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

function SupportedCampaigns() {
  const list = trpc.donations.supported.useInfiniteQuery({ limit: PAGE_SIZE }, { getNextPageParam: nextCursor });
  return (
    <section aria-labelledby="supported-campaigns">
      <h2 id="supported-campaigns">Campaigns you gave to</h2>
      <InfiniteList
        className="infinite-list-inline"
        query={list}
        more="button"
        empty={
          <EmptyState
            text="You have not given to a campaign yet."
            action={
              <Link className="button button-secondary" to="/campaigns">
                Browse campaigns
              </Link>
            }
          />
        }
        skeleton={<ListSkeleton kind="card" rows={2} />}
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
      </InfiniteList>
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
  const narrow = useNarrow();
  const askCancel = (s: SubscriptionDto) => {
    setCancelled(null);
    cancel.reset();
    setCancelling(s);
  };
  return (
    <section aria-labelledby="monthly-donations">
      <h2 id="monthly-donations" ref={headingRef} tabIndex={-1}>
        Monthly donations
      </h2>
      <Notice kind="success">{cancelled}</Notice>
      <InfiniteList
        className="infinite-list-inline"
        query={list}
        more="button"
        empty={<p className="muted">No monthly donations. Tick “Give monthly” when you donate to give every month.</p>}
        skeleton={<ListSkeleton kind="card" rows={2} />}
      >
        {(rows) => {
          const shown = rows.map((row) => (cancelledIds.includes(row._id) ? { ...row, status: 'cancelled' as const, nextChargeAt: null } : row));
          return narrow ? <SubscriptionCards rows={shown} onCancel={askCancel} /> : <SubscriptionTable rows={shown} onCancel={askCancel} />;
        }}
      </InfiniteList>
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

function SubscriptionStatus({ s }: { s: SubscriptionDto }) {
  return s.status === 'active' ? <span className="status-badge donation-succeeded">Active</span> : <span className="status-badge">Cancelled</span>;
}

const nextChargeText = (s: SubscriptionDto) => (s.status === 'active' && s.nextChargeAt ? formatDate(s.nextChargeAt) : '—');

function CancelButton({ s, onCancel }: { s: SubscriptionDto; onCancel(s: SubscriptionDto): void }) {
  if (s.status !== 'active') return null;
  return (
    <button
      type="button"
      className="button button-small button-secondary"
      aria-label={`Cancel monthly donation to ${s.campaign.title}`}
      onClick={() => onCancel(s)}
    >
      Cancel
    </button>
  );
}

/** Monthly donations from 640 px: campaign, amount, status, next charge, Cancel. */
function SubscriptionTable({ rows, onCancel }: { rows: SubscriptionDto[]; onCancel(s: SubscriptionDto): void }) {
  return (
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
          {rows.map((s) => (
            <tr key={s._id}>
              <th scope="row">
                <Link to={`/campaigns/${encodeURIComponent(s.campaign._id)}`}>{s.campaign.title}</Link>
              </th>
              <td className="num">{formatMoney(s.amount, s.currency)} a month</td>
              <td>
                <SubscriptionStatus s={s} />
              </td>
              <td className="date-cell">{nextChargeText(s)}</td>
              <td className="actions-cell">
                <CancelButton s={s} onCancel={onCancel} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The same monthly donations as cards below 640 px, with the table's facts under its column names. */
function SubscriptionCards({ rows, onCancel }: { rows: SubscriptionDto[]; onCancel(s: SubscriptionDto): void }) {
  return (
    <ul className="list-cards subscription-cards" aria-label="Monthly donations">
      {rows.map((s) => (
        <ListCard
          key={s._id}
          headingLevel={3}
          href={`/campaigns/${encodeURIComponent(s.campaign._id)}`}
          title={s.campaign.title}
          facts={[
            { label: 'Amount', value: `${formatMoney(s.amount, s.currency)} a month`, num: true },
            { label: 'Status', value: <SubscriptionStatus s={s} /> },
            { label: 'Next charge', value: nextChargeText(s) },
          ]}
          actions={s.status === 'active' ? <CancelButton s={s} onCancel={onCancel} /> : undefined}
        />
      ))}
    </ul>
  );
}
