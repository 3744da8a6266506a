import { M } from '../../../shared/messages';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { DataTable } from '../../components/PagedTable';
import { usePageTitle } from '../../hooks/usePageTitle';
import { formatDateTime } from '../../lib/dates';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';

const CRON_STATUS_FAILED = M.cronStatusFailed;
const CRON_FAILED = M.cronFailed;
const STATUS_LABEL = { running: 'Running', succeeded: 'Succeeded', failed: 'Failed' } as const;
const COUNTS = ['reconciled', 'charged', 'failed', 'reminded', 'cleaned'] as const;

/** /admin/cron (admins only, outside the shared layout): the scheduled jobs' status and runs (cards below 640 px), Refresh and Run now. */
export default function AdminCronPage() {
  usePageTitle('Subscription Cron');
  const utils = trpc.useUtils();
  const [done, setDone] = useState<string | null>(null);
  const status = trpc.cron.status.useQuery(undefined, { staleTime: 0 });
  const run = trpc.cron.run.useMutation({ onSettled: () => void utils.cron.status.invalidate() });
  const runs = status.data?.runs ?? [];

  return (
    <main id="main" className="cron-page">
      <p className="cron-back">
        <Link to="/admin">Back to Admin</Link>
      </p>
      <div className="page-head">
        <h1>Subscription Cron</h1>
        <div className="button-row">
          <button
            type="button"
            className="button button-secondary"
            disabled={status.isFetching}
            onClick={() => {
              setDone(null);
              void status.refetch();
            }}
          >
            {status.isFetching ? 'Refreshing…' : 'Refresh'}
          </button>
          <button
            type="button"
            className="button"
            disabled={run.isPending}
            onClick={() => {
              setDone(null);
              run.mutate(undefined, {
                onSuccess: (r) => setDone(`Run ${STATUS_LABEL[r.status].toLowerCase()}${r.finishedAt ? ` at ${formatDateTime(r.finishedAt)}` : ''}.`),
              });
            }}
          >
            {run.isPending ? 'Running…' : 'Run now'}
          </button>
        </div>
      </div>
      {run.isError && (
        <Notice kind="error">
          {CRON_FAILED}
          {errorMessage(run.error, '') ? `: ${errorMessage(run.error, '')}` : ''}
        </Notice>
      )}
      <Notice kind="success">{done}</Notice>
      {status.isPending ? (
        <Loading />
      ) : status.isError ? (
        <Notice kind="error">{CRON_STATUS_FAILED}</Notice>
      ) : (
        <>
          {status.isRefetchError && <Notice kind="error">{CRON_STATUS_FAILED}</Notice>}
          <dl className="cron-facts">
            <div>
              <dt>Running</dt>
              <dd>{status.data.running ? 'Yes' : 'No'}</dd>
            </div>
            <div>
              <dt>Next run</dt>
              <dd>{status.data.nextRunAt ? formatDateTime(status.data.nextRunAt) : 'Not scheduled in this process'}</dd>
            </div>
          </dl>
          <h2>Runs</h2>
          {runs.length === 0 ? (
            <p className="muted">No runs yet.</p>
          ) : (
            <DataTable
              items={runs}
              label="Runs"
              className="cron-runs-table"
              rowKey={(r) => r._id}
              columns={[
                { label: 'Started', head: true, headLabel: true, className: 'date-cell', cell: (r) => formatDateTime(r.startedAt) },
                {
                  label: 'Finished',
                  wide: true,
                  className: 'date-cell',
                  cell: (r) => (r.finishedAt ? formatDateTime(r.finishedAt) : <span className="muted">Not yet</span>),
                },
                {
                  label: 'Status',
                  wide: true,
                  cell: (r) => (
                    <>
                      <span className={`status-badge run-${r.status}`}>{STATUS_LABEL[r.status]}</span>
                      {r.error && <span className="run-error">{r.error}</span>}
                    </>
                  ),
                },
                ...COUNTS.map((c) => ({
                  label: c[0].toUpperCase() + c.slice(1),
                  num: true,
                  cell: (r: (typeof runs)[number]) =>
                    r.counts[c] ?? (
                      <span className="muted">
                        <span aria-hidden="true">–</span>
                        <span className="visually-hidden">none</span>
                      </span>
                    ),
                })),
              ]}
            />
          )}
        </>
      )}
    </main>
  );
}
