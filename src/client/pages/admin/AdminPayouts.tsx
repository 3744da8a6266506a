import { useId, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { formatMoney } from '../../../shared/money';
import type { AdminPayoutDto } from '../../../shared/schemas/payouts';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Field } from '../../components/Field';
import { nextPageParam, PagedTable } from '../../components/PagedTable';
import { Notice } from '../../components/Notice';
import { formatDateTime } from '../../lib/dates';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { PayoutStatusBadge } from '../donations/status';
import { StatusFilter } from './StatusFilter';

const PAGE = 20;
type Filter = 'pending' | 'paid' | 'rejected' | 'all';
const FILTERS: { id: Filter; label: string }[] = [
  { id: 'pending', label: 'Pending' },
  { id: 'paid', label: 'Paid' },
  { id: 'rejected', label: 'Rejected' },
  { id: 'all', label: 'All' },
];
export const DEFAULT_REJECT_REASON = 'not eligible';

type Decision = { kind: 'approve' | 'reject'; payout: AdminPayoutDto };

/** The id of a disputed payout's note, which its disabled Approve button points to. */
const disputedNoteId = (p: AdminPayoutDto) => `payout-${p._id}-disputed`;

/** The Payouts tab: payouts by status (pending first), Approve (optional batch id) and Reject (a reason); cards below 640 px. */
export function AdminPayouts() {
  const filterId = useId();
  const [filter, setFilter] = useState<Filter>('pending');
  const [decision, setDecision] = useState<Decision | null>(null);
  const [batchId, setBatchId] = useState('');
  const [reason, setReason] = useState(DEFAULT_REJECT_REASON);
  const [done, setDone] = useState<string | null>(null);
  const regionRef = useRef<HTMLElement>(null);
  const utils = trpc.useUtils();
  const list = trpc.payouts.adminList.useInfiniteQuery({ limit: PAGE, ...(filter === 'all' ? {} : { status: filter }) }, { getNextPageParam: nextPageParam });
  const onSettled = () => void utils.payouts.adminList.invalidate();
  const approve = trpc.payouts.approve.useMutation({ onSettled });
  const reject = trpc.payouts.reject.useMutation({ onSettled });
  const busy = approve.isPending || reject.isPending;

  function open(kind: Decision['kind'], payout: AdminPayoutDto) {
    approve.reset();
    reject.reset();
    setBatchId('');
    setReason(DEFAULT_REJECT_REASON);
    setDone(null);
    setDecision({ kind, payout });
  }

  function confirm() {
    if (!decision) return;
    const { payout } = decision;
    const what = `${formatMoney(payout.gross, payout.currency)} for ${payout.campaign.title}`;
    if (decision.kind === 'approve') {
      const id = batchId.trim();
      approve.mutate(
        { id: payout._id, ...(id ? { payoutBatchId: id } : {}) },
        {
          onSuccess: () => {
            setDecision(null);
            setDone(`Payout of ${what} approved.`);
          },
        },
      );
    } else {
      reject.mutate(
        { id: payout._id, reason: reason.trim() || DEFAULT_REJECT_REASON },
        {
          onSuccess: () => {
            setDecision(null);
            setDone(`Payout of ${what} rejected.`);
          },
        },
      );
    }
  }

  const error = decision?.kind === 'approve' ? approve.error : reject.error;

  return (
    <div className="admin-section">
      <StatusFilter id={filterId} value={filter} options={FILTERS} onChange={setFilter} />
      <Notice kind="success">{done}</Notice>
      <PagedTable
        list={list}
        empty={<p className="muted empty-state">No payouts here.</p>}
        label="Payouts"
        regionRef={regionRef}
        className="admin-table admin-payouts-table"
        cardHeading={2}
        rowKey={(p) => p._id}
        rowProps={(p) => ({ 'data-payout': p._id })}
        columns={[
          {
            label: 'Campaign',
            head: true,
            className: 'admin-campaign',
            cell: (p) => <Link to={`/campaigns/${encodeURIComponent(p.campaign._id)}`}>{p.campaign.title}</Link>,
          },
          { label: 'Recipient', wide: true, token: true, className: 'admin-email', cell: (p) => p.recipientPaypalEmail },
          { label: 'Gross', num: true, cell: (p) => formatMoney(p.gross, p.currency) },
          { label: 'Fee', num: true, cell: (p) => formatMoney(p.platformFee, p.currency) },
          { label: 'Net', num: true, cell: (p) => formatMoney(p.net, p.currency) },
          { label: 'Requested', className: 'date-cell', cell: (p) => formatDateTime(p.createdAt) },
          {
            label: 'Status',
            cell: (p) => (
              <>
                <PayoutStatusBadge status={p.status} />
                {p.disputed && (
                  <span id={disputedNoteId(p)} className="disputed-badge">
                    {M.payoutDisputed}
                  </span>
                )}
              </>
            ),
          },
          {
            label: 'Actions',
            actions: true,
            cell: (p) =>
              p.status === 'pending' ? (
                <>
                  <button
                    type="button"
                    className="button button-small"
                    disabled={p.disputed}
                    aria-describedby={p.disputed ? disputedNoteId(p) : undefined}
                    onClick={() => open('approve', p)}
                  >
                    Approve
                  </button>
                  <button type="button" className="button button-small button-secondary" onClick={() => open('reject', p)}>
                    Reject
                  </button>
                </>
              ) : null,
          },
        ]}
      />
      {decision && (
        <ConfirmDialog
          title={decision.kind === 'approve' ? 'Approve payout' : 'Reject payout'}
          message={
            <>
              {formatMoney(decision.payout.gross, decision.payout.currency)} for {decision.payout.campaign.title} to {decision.payout.recipientPaypalEmail} (
              {formatMoney(decision.payout.net, decision.payout.currency)} after the fee).
            </>
          }
          confirmLabel={decision.kind === 'approve' ? 'Approve' : 'Reject'}
          busyLabel={decision.kind === 'approve' ? 'Approving…' : 'Rejecting…'}
          tone={decision.kind === 'approve' ? 'primary' : 'danger'}
          busy={busy}
          error={error ? errorMessage(error, M.requestFailed) : null}
          onConfirm={confirm}
          onClose={() => setDecision(null)}
          fallbackFocus={() => regionRef.current ?? document.getElementById(filterId)}
        >
          {decision.kind === 'approve' ? (
            <Field label="Payout batch id" hint="optional" value={batchId} maxLength={200} autoComplete="off" onChange={(e) => setBatchId(e.target.value)} />
          ) : (
            <Field label="Reason" value={reason} maxLength={500} autoComplete="off" onChange={(e) => setReason(e.target.value)} />
          )}
        </ConfirmDialog>
      )}
    </div>
  );
}
