import { useId, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { M } from '../../../shared/messages';
import type { AdminDisputeDto } from '../../../shared/schemas/payouts';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { formatDateTime } from '../../lib/dates';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { STATUS_LABEL, TYPE_LABEL, type DisputeStatus } from '../disputes/DisputeFields';

const PAGE = 20;
type Filter = DisputeStatus | 'all';
const FILTERS: Filter[] = ['open', 'under_review', 'resolved', 'rejected', 'all'];
const SETTABLE = ['under_review', 'resolved', 'rejected'] as const;
type Settable = (typeof SETTABLE)[number];

function DisputeStatusBadge({ status }: { status: DisputeStatus }) {
  return <span className={`status-badge dispute-${status}`}>{STATUS_LABEL[status]}</span>;
}

const authorName = (a: AdminDisputeDto['author']) => a.name || a.username || a.email;

/** The Disputes tab: disputes by status (open first); a row opens the dispute with its status and notes in one dialog. */
export function AdminDisputes() {
  const filterId = useId();
  const statusId = useId();
  const notesId = useId();
  const [filter, setFilter] = useState<Filter>('open');
  const [openDispute, setOpenDispute] = useState<AdminDisputeDto | null>(null);
  const [status, setStatus] = useState<Settable>('under_review');
  const [notes, setNotes] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const regionRef = useRef<HTMLElement>(null);
  const utils = trpc.useUtils();
  const list = trpc.disputes.adminList.useInfiniteQuery(
    { limit: PAGE, ...(filter === 'all' ? {} : { status: filter }) },
    { getNextPageParam: (last) => last.nextCursor ?? undefined },
  );
  const save = trpc.disputes.setStatus.useMutation({ onSettled: () => void utils.disputes.adminList.invalidate() });
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];

  function open(d: AdminDisputeDto) {
    save.reset();
    setDone(null);
    setStatus(d.status === 'open' ? 'under_review' : (d.status as Settable));
    setNotes(d.resolutionNotes ?? '');
    setOpenDispute(d);
  }

  function confirm() {
    if (!openDispute) return;
    const d = openDispute;
    save.mutate(
      { id: d._id, status, resolutionNotes: notes },
      {
        onSuccess: () => {
          setOpenDispute(null);
          setDone(`Dispute about ${d.campaign.title} is now ${STATUS_LABEL[status].toLowerCase()}.`);
        },
      },
    );
  }

  return (
    <div className="admin-section">
      <div className="admin-toolbar">
        <div className="field admin-filter">
          <label htmlFor={filterId}>Status</label>
          <select id={filterId} value={filter} onChange={(e) => setFilter(e.target.value as Filter)}>
            {FILTERS.map((f) => (
              <option key={f} value={f}>
                {f === 'all' ? 'All' : STATUS_LABEL[f]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <Notice kind="success">{done}</Notice>
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
        <p className="muted empty-state">No disputes here.</p>
      ) : (
        <>
          <section ref={regionRef} className="table-wrap" aria-label="Disputes table" tabIndex={0}>
            <table className="table admin-table disputes-table">
              <thead>
                <tr>
                  <th scope="col">Campaign</th>
                  <th scope="col">Type</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Author</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
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
                    <td className="admin-email">{authorName(d.author)}</td>
                    <td>
                      <DisputeStatusBadge status={d.status} />
                    </td>
                    <td className="date-cell">{formatDateTime(d.createdAt)}</td>
                    <td className="actions-cell">
                      <button type="button" className="button button-small button-secondary" aria-label={`Open dispute: ${d.reason}`} onClick={() => open(d)}>
                        Open
                      </button>
                    </td>
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
        </>
      )}
      {openDispute && (
        <ConfirmDialog
          title="Dispute"
          message={
            <>
              Raised by {authorName(openDispute.author)} ({openDispute.author.email}) on {formatDateTime(openDispute.createdAt)}.
            </>
          }
          confirmLabel="Save"
          busyLabel="Saving…"
          tone="primary"
          busy={save.isPending}
          error={save.error ? errorMessage(save.error, M.requestFailed) : null}
          onConfirm={confirm}
          onClose={() => setOpenDispute(null)}
          fallbackFocus={() => regionRef.current ?? document.getElementById(filterId)}
        >
          <div className="dispute-fields">
            <dl className="admin-facts">
              <div>
                <dt>Campaign</dt>
                <dd>{openDispute.campaign.title}</dd>
              </div>
              <div>
                <dt>About</dt>
                <dd>
                  {openDispute.donationId
                    ? `Donation ${openDispute.donationId}`
                    : openDispute.payoutId
                      ? `Payout ${openDispute.payoutId}`
                      : `${TYPE_LABEL[openDispute.type]} (the campaign)`}
                </dd>
              </div>
              <div>
                <dt>Status</dt>
                <dd>{STATUS_LABEL[openDispute.status]}</dd>
              </div>
              <div>
                <dt>Reason</dt>
                <dd>{openDispute.reason}</dd>
              </div>
              <div>
                <dt>Details</dt>
                <dd className="prewrap">{openDispute.details || <span className="muted">None</span>}</dd>
              </div>
            </dl>
            <div className="field">
              <label htmlFor={statusId}>New status</label>
              <select id={statusId} value={status} onChange={(e) => setStatus(e.target.value as Settable)}>
                {SETTABLE.map((s) => (
                  <option key={s} value={s}>
                    {STATUS_LABEL[s]}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor={notesId}>Resolution notes</label>
              <textarea id={notesId} value={notes} maxLength={5000} onChange={(e) => setNotes(e.target.value)} />
            </div>
          </div>
        </ConfirmDialog>
      )}
    </div>
  );
}
