import { useEffect, useId, useRef, useState } from 'react';
import { keepPreviousData } from '@tanstack/react-query';
import { M } from '../../../shared/messages';
import type { AdminUserDto } from '../../../shared/schemas/admin';
import { useSession } from '../../auth/useSession';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { DataTable } from '../../components/PagedTable';
import { formatDate, formatDateTime } from '../../lib/dates';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';

/** The spec's user search debounce. */
export const SEARCH_DEBOUNCE_MS = 300;
const PAGE = 20;
type Role = 'all' | 'admin' | 'user';
const ROLES: { id: Role; label: string }[] = [
  { id: 'all', label: 'All' },
  { id: 'admin', label: 'Admin' },
  { id: 'user', label: 'User' },
];

const displayName = (u: Pick<AdminUserDto, 'name' | 'username' | 'email'>) => u.name || u.username || u.email;

/** The Users tab: debounced search, role filter, Clear, the count, the table (cards below 640 px); grant/revoke admin; one user's change history. */
export function AdminUsers() {
  const searchId = useId();
  const roleId = useId();
  const { user: me } = useSession();
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  const [role, setRole] = useState<Role>('all');
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<AdminUserDto | null>(null);
  const [change, setChange] = useState<AdminUserDto | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const historyRef = useRef<HTMLHeadingElement>(null);
  const utils = trpc.useUtils();

  // the search runs 300 ms after the last keystroke
  useEffect(() => {
    const next = text.trim();
    if (next === q) return;
    const t = setTimeout(() => {
      setQ(next);
      setPage(1);
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [text, q]);

  const users = trpc.admin.users.useQuery({ q: q || undefined, role, page, limit: PAGE }, { placeholderData: keepPreviousData });
  const setAdmin = trpc.admin.setAdmin.useMutation({
    onSettled: () => {
      void utils.admin.users.invalidate();
      void utils.admin.userHistory.invalidate();
    },
  });

  useEffect(() => {
    if (selected) historyRef.current?.focus();
  }, [selected]);

  function clear() {
    setText('');
    setQ('');
    setRole('all');
    setPage(1);
    searchRef.current?.focus();
  }

  function confirmChange() {
    if (!change) return;
    const target = change;
    const admin = !target.isAdmin;
    setAdmin.mutate(
      { id: target._id, admin },
      {
        onSuccess: () => {
          setChange(null);
          setDone(admin ? `${displayName(target)} is now an admin.` : `${displayName(target)} is no longer an admin.`);
        },
      },
    );
  }

  const data = users.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / data.limit)) : 1;

  return (
    <div className="admin-section admin-users">
      {/* biome-ignore lint/a11y/useSemanticElements: a form with role=search is the ARIA search landmark; <search> would only wrap it in one more box */}
      <form className="admin-toolbar admin-user-search" role="search" aria-label="Users" onSubmit={(e) => e.preventDefault()}>
        <div className="field admin-search">
          <label htmlFor={searchId}>Search users</label>
          <input
            ref={searchRef}
            id={searchId}
            type="search"
            value={text}
            placeholder="Name, username, email or phone"
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => setText(e.target.value)}
          />
        </div>
        <div className="field admin-filter">
          <label htmlFor={roleId}>Role</label>
          <select
            id={roleId}
            value={role}
            onChange={(e) => {
              setRole(e.target.value as Role);
              setPage(1);
            }}
          >
            {ROLES.map((r) => (
              <option key={r.id} value={r.id}>
                {r.label}
              </option>
            ))}
          </select>
        </div>
        <button type="button" className="button button-secondary" onClick={clear}>
          Clear
        </button>
      </form>
      <Notice kind="success">{done}</Notice>
      {users.isError ? (
        <div className="list-error">
          <Notice kind="error">{M.adminUsersFetchFailed}</Notice>
          <button type="button" className="button button-secondary" onClick={() => void users.refetch()}>
            Try again
          </button>
        </div>
      ) : !data ? (
        <Loading />
      ) : (
        <>
          <p className="muted list-count" role="status">
            {data.total === 1 ? '1 user' : `${data.total} users`}
          </p>
          {data.items.length > 0 && (
            <DataTable
              items={data.items}
              label="Users"
              className="admin-table admin-users-table"
              cardHeading={2}
              busy={users.isFetching}
              rowKey={(u) => u._id}
              rowProps={(u) => ({ 'aria-current': selected?._id === u._id ? 'true' : undefined })}
              columns={[
                {
                  label: 'Name',
                  head: true,
                  className: 'admin-user-name',
                  cell: (u) => (
                    <>
                      {u.name || <span className="muted">No name</span>}
                      {u.username && <span className="admin-username">@{u.username}</span>}
                    </>
                  ),
                },
                { label: 'Email', wide: true, token: true, className: 'admin-email', cell: (u) => u.email },
                { label: 'Phone', wide: true, className: 'admin-phone', cell: (u) => u.phone ?? '', skip: (u) => !u.phone },
                {
                  label: 'Role',
                  cell: (u) => <span className={u.role === 'admin' ? 'status-badge role-admin' : 'status-badge'}>{u.role === 'admin' ? 'Admin' : 'User'}</span>,
                },
                { label: 'Joined', className: 'date-cell', cell: (u) => formatDate(u.createdAt) },
                {
                  label: 'Actions',
                  actions: true,
                  cell: (u) => (
                    <>
                      <button
                        type="button"
                        className="button button-small button-secondary"
                        aria-label={`View history of ${displayName(u)}`}
                        onClick={() => setSelected(u)}
                      >
                        View history
                      </button>
                      {me?._id === u._id ? (
                        <span className="muted admin-you">You</span>
                      ) : (
                        <button
                          type="button"
                          className="button button-small button-secondary"
                          aria-label={u.isAdmin ? `Revoke admin from ${displayName(u)}` : `Make ${displayName(u)} an admin`}
                          onClick={() => {
                            setAdmin.reset();
                            setDone(null);
                            setChange(u);
                          }}
                        >
                          {u.isAdmin ? 'Revoke admin' : 'Make admin'}
                        </button>
                      )}
                    </>
                  ),
                },
              ]}
            />
          )}
          {pages > 1 && (
            <nav className="pager" aria-label="Users pages">
              <button type="button" className="button button-secondary button-small" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                Previous
              </button>
              <span>
                Page {data.page} of {pages}
              </span>
              <button type="button" className="button button-secondary button-small" disabled={page >= pages} onClick={() => setPage(page + 1)}>
                Next
              </button>
            </nav>
          )}
        </>
      )}
      {selected && <UserHistory user={selected} headingRef={historyRef} onClose={() => setSelected(null)} />}
      {change && (
        <ConfirmDialog
          title={change.isAdmin ? 'Revoke admin' : 'Make admin'}
          message={
            change.isAdmin
              ? `${displayName(change)} (${change.email}) will no longer be an admin.`
              : `${displayName(change)} (${change.email}) will be able to use the admin console.`
          }
          confirmLabel={change.isAdmin ? 'Revoke admin' : 'Make admin'}
          tone={change.isAdmin ? 'danger' : 'primary'}
          busy={setAdmin.isPending}
          error={setAdmin.error ? errorMessage(setAdmin.error, M.requestFailed) : null}
          onConfirm={confirmChange}
          onClose={() => setChange(null)}
          fallbackFocus={() => searchRef.current}
        />
      )}
    </div>
  );
}

const ACTION_LABEL = { create: 'Create', update: 'Update', delete: 'Delete' } as const;

function UserHistory({ user, headingRef, onClose }: { user: AdminUserDto; headingRef: React.RefObject<HTMLHeadingElement | null>; onClose(): void }) {
  const headingId = useId();
  const history = trpc.admin.userHistory.useInfiniteQuery({ id: user._id }, { getNextPageParam: (last) => last.nextCursor ?? undefined });
  const items = history.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section className="admin-history" aria-labelledby={headingId}>
      <div className="admin-history-head">
        <h2 id={headingId} ref={headingRef} tabIndex={-1}>
          Change history: {displayName(user)}
        </h2>
        <button type="button" className="button button-secondary button-small" onClick={onClose}>
          Close history
        </button>
      </div>
      {history.isPending ? (
        <Loading />
      ) : history.isError && !history.data ? (
        <Notice kind="error">{errorMessage(history.error, M.requestFailed)}</Notice>
      ) : items.length === 0 ? (
        <p className="muted">No changes recorded.</p>
      ) : (
        <>
          <DataTable
            items={items}
            label="Change history"
            className="admin-table admin-history-table"
            cardHeading={3}
            rowKey={(h) => h._id}
            columns={[
              { label: 'Model', head: true, cell: (h) => h.modelName },
              { label: 'Action', cell: (h) => ACTION_LABEL[h.action] },
              {
                label: 'Fields',
                wide: true,
                // field names are identifiers (recipientPaypalEmail): they may break anywhere
                token: true,
                className: 'history-fields',
                cell: (h) => (h.fields.length ? h.fields.join(', ') : <span className="muted">None</span>),
              },
              { label: 'When', className: 'date-cell', cell: (h) => formatDateTime(h.createdAt) },
              { label: 'Who', cell: (h) => (h.actor ? h.actor.name || h.actor.username || h.actor._id : <span className="muted">System</span>) },
            ]}
          />
          {history.hasNextPage && (
            <div className="load-more">
              <button type="button" className="button button-secondary" disabled={history.isFetchingNextPage} onClick={() => void history.fetchNextPage()}>
                {history.isFetchingNextPage ? M.loading : 'Load more'}
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}
