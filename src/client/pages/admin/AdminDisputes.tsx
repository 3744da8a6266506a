import { useId, useRef, useState } from 'react';
import { M } from '../../../shared/messages';
import type { AdminDisputeDto } from '../../../shared/schemas/payouts';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { nextPageParam, PagedTable } from '../../components/PagedTable';
import { Notice } from '../../components/Notice';
import { formatDateTime } from '../../lib/dates';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { disputeLeadColumns, DisputeStatusBadge } from '../disputes/DisputeCells';
import { STATUS_LABEL, TYPE_LABEL, type DisputeStatus } from '../disputes/DisputeFields';
import { StatusFilter } from './StatusFilter';

const PAGE = 20;
type Filter = DisputeStatus | 'all';
const FILTERS = (['open', 'under_review', 'resolved', 'rejected', 'all'] as const).map((f) => ({ id: f, label: f === 'all' ? 'All' : STATUS_LABEL[f] }));
const SETTABLE = ['under_review', 'resolved', 'rejected'] as const;
type Settable = (typeof SETTABLE)[number];

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
  const list = trpc.disputes.adminList.useInfiniteQuery({ limit: PAGE, ...(filter === 'all' ? {} : { status: filter }) }, { getNextPageParam: nextPageParam });
  const save = trpc.disputes.setStatus.useMutation({ onSettled: () => void utils.disputes.adminList.invalidate() });

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
      <StatusFilter id={filterId} value={filter} options={FILTERS} onChange={setFilter} />
      <Notice kind="success">{done}</Notice>
      <PagedTable
        list={list}
        empty={<p className="muted empty-state">No disputes here.</p>}
        label="Disputes"
        regionRef={regionRef}
        className="admin-table disputes-table"
        cardHeading={2}
        rowKey={(d) => d._id}
        columns={[
          ...disputeLeadColumns<AdminDisputeDto>(),
          { label: 'Author', wide: true, token: true, className: 'admin-email', cell: (d) => authorName(d.author) },
          { label: 'Status', cell: (d) => <DisputeStatusBadge status={d.status} /> },
          { label: 'Created', className: 'date-cell', cell: (d) => formatDateTime(d.createdAt) },
          {
            label: 'Actions',
            actions: true,
            cell: (d) => (
              <button type="button" className="button button-small button-secondary" aria-label={`Open dispute: ${d.reason}`} onClick={() => open(d)}>
                Open
              </button>
            ),
          },
        ]}
      />
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
