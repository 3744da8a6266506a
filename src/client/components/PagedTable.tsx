import type { ReactNode, Ref } from 'react';
import { M } from '../../shared/messages';
import { errorMessage } from '../lib/errors';
import { Loading } from './Loading';
import { Notice } from './Notice';

/**
 * The paged tables of the money and dispute screens (payouts, donations, monthly donations,
 * disputes): one shape for their loading, error (with Try again), empty, table and "Load more"
 * states, fed by a tRPC infinite query whose pages carry `items` and `nextCursor`.
 */

/** What these components read of an infinite query. */
export interface PagedList<T> {
  data: { pages: ReadonlyArray<{ items: T[] }> } | undefined;
  isPending: boolean;
  isError: boolean;
  error: unknown;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  isFetchNextPageError: boolean;
  refetch(): unknown;
  fetchNextPage(): unknown;
}

/** Every row loaded so far, page after page. */
export function pagedItems<T>(list: Pick<PagedList<T>, 'data'>): T[] {
  return list.data?.pages.flatMap((p) => p.items) ?? [];
}

/** For useInfiniteQuery: the next page starts at the last answer's cursor (none: the end). */
export const nextPageParam = (last: { nextCursor: string | null }) => last.nextCursor ?? undefined;

/** "Load more" while there is a next page, and the error of a next page that failed. */
export function LoadMore({ list }: { list: Omit<PagedList<unknown>, 'data' | 'isPending' | 'isError' | 'refetch'> }) {
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

/**
 * A paged list's states: loading, the first page's error with Try again, `empty` when there is
 * nothing, else `children` (given the rows) followed by Load more.
 */
export function PagedStates<T>({ list, empty, children }: { list: PagedList<T>; empty: ReactNode; children: (items: T[]) => ReactNode }) {
  const items = pagedItems(list);
  if (list.isPending) return <Loading />;
  if (list.isError && !list.data) {
    return (
      <div className="list-error">
        <Notice kind="error">{errorMessage(list.error, M.requestFailed)}</Notice>
        <button type="button" className="button button-secondary" onClick={() => void list.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  if (items.length === 0) return <>{empty}</>;
  return (
    <>
      {children(items)}
      <LoadMore list={list} />
    </>
  );
}

/** A column head: its text (read by screen readers only when `hidden`), right-aligned when `num`. */
export interface Column {
  label: string;
  num?: boolean;
  hidden?: boolean;
}

/**
 * A paged table in a scrollable, focusable region named by `label` (or the element `labelledBy`
 * names): the column heads, then `row` for each item (a `<tr>` with its key).
 */
export function PagedTable<T>({
  list,
  empty,
  label,
  labelledBy,
  regionRef,
  className,
  columns,
  row,
  intro,
}: {
  list: PagedList<T>;
  empty: ReactNode;
  /** Shown above the table when it has rows (a note on what it shows). */
  intro?: ReactNode;
  label?: string;
  labelledBy?: string;
  regionRef?: Ref<HTMLElement>;
  className: string;
  /** `false` leaves a column out (one shown only when some row has a value). */
  columns: ReadonlyArray<Column | false>;
  /** The row of an item (its place in the list as the second argument). */
  row: (item: T, index: number) => ReactNode;
}) {
  return (
    <PagedStates list={list} empty={empty}>
      {(items) => (
        <>
          {intro}
          <section ref={regionRef} className="table-wrap" aria-label={label} aria-labelledby={labelledBy} tabIndex={0}>
            <table className={`table ${className}`}>
              <thead>
                <tr>
                  {columns.map(
                    (c) =>
                      c && (
                        <th key={c.label} scope="col" className={c.num ? 'num' : undefined}>
                          {c.hidden ? <span className="visually-hidden">{c.label}</span> : c.label}
                        </th>
                      ),
                  )}
                </tr>
              </thead>
              <tbody>{items.map((item, i) => row(item, i))}</tbody>
            </table>
          </section>
        </>
      )}
    </PagedStates>
  );
}

/** A status as a badge: `status-badge` and the status's own class (its colours), with its label. */
export function StatusBadge({ className, label }: { className?: string; label: string }) {
  return <span className={className ? `status-badge ${className}` : 'status-badge'}>{label}</span>;
}
