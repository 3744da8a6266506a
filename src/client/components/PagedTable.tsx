import { Fragment, type ReactNode, type Ref } from 'react';
import { M } from '../../shared/messages';
import { useNarrow } from '../hooks/useNarrow';
import { errorMessage } from '../lib/errors';
import { Loading } from './Loading';
import { Notice } from './Notice';

/**
 * The tables of the owner's and the admin's screens (payouts, donations, supporters, disputes,
 * payment problems, users, tokens, cron runs): DataTable draws a table from 640 px and the same
 * rows as cards below; PagedTable adds the loading, error (with Try again), empty and "Load more"
 * states of a tRPC infinite query whose pages carry `items` and `nextCursor`.
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

/**
 * A column of a table whose rows become cards below 640 px: its name, and what a row shows in it.
 * The same definition draws the table's cell and the card's fact, so the two never differ.
 */
export interface Column<T> {
  /** The column's name: the table's head, the card's label ('Amount'). */
  label: string;
  /** What the row shows in this column. */
  cell: (item: T) => ReactNode;
  /** A figure: right-aligned in the table, tabular digits in both. */
  num?: boolean;
  /** The row's header (`<th scope="row">`): the card's title. One column at most, the first. */
  head?: boolean;
  /** With `head`: the card's title also says the column's name ("Requested 27 Nov 2026"), for a head that is a date. */
  headLabel?: boolean;
  /** The row's buttons: the column's name is read by screen readers only, and on a card they come last, unlabelled. */
  actions?: boolean;
  /** On a card, the fact takes the whole width (sentences, addresses). */
  wide?: boolean;
  /** The cell's class (the card's value takes it too: the Phones block of styles.css undoes what only suits a table). */
  className?: string;
  /** Long tokens without spaces (emails, ids): they may break anywhere on a card; words never do. */
  token?: boolean;
  /** On a card, leaves the fact out for this row (it has nothing to say there). */
  skip?: (item: T) => boolean;
}

/** What a row's `<tr>` (or card's `<li>`) carries besides its cells: data-* ids, aria-current. */
export type RowProps = { [attr: `data-${string}`]: string | undefined; 'aria-current'?: 'true' | undefined };

const joined = (...names: Array<string | false | undefined>) => names.filter(Boolean).join(' ') || undefined;

/**
 * A table, from 640 px: in a scrollable, focusable region named "`label` table" (or by the element
 * `labelledBy` names), the column heads, then a row per item. Below 640 px the same rows are a
 * list of cards named `label` (useNarrow, the stylesheet's breakpoint): each card's title is the
 * row's header, then each fact under its column's name, then the row's buttons.
 *
 * Cards, not the table restyled: a table whose rows are `display: block` loses its table
 * semantics in some browsers (Safari's accessibility tree, Chrome's before version 80), putting
 * them back takes role=table/row/cell on every element, and labels drawn by `::before` from
 * `data-label` are read as content beside the column heads (the names twice). A list of cards has
 * plain semantics that hold everywhere: a list, a heading per row, a description list of facts
 * whose names are real text, and its buttons, which never sit past the right edge.
 */
export function DataTable<T>({
  items,
  columns,
  rowKey,
  rowProps,
  label,
  labelledBy,
  regionRef,
  className,
  cardHeading = 3,
  busy,
}: {
  items: readonly T[];
  /** `false` leaves a column out (one shown only when some row has a value). */
  columns: ReadonlyArray<Column<T> | false>;
  rowKey: (item: T, index: number) => string;
  rowProps?: (item: T) => RowProps;
  /** The list's name ('Donations'); the table's region is "Donations table". */
  label?: string;
  labelledBy?: string;
  /** The table's region, or the list of cards (focusable from script): where a dialog returns the focus when its button is gone. */
  regionRef?: Ref<HTMLElement>;
  className: string;
  /** The cards' heading level: one below the heading the list sits under. */
  cardHeading?: 2 | 3 | 4;
  busy?: boolean;
}) {
  const narrow = useNarrow();
  const cols = columns.filter((c): c is Column<T> => c !== false);
  if (narrow) {
    const Heading = `h${cardHeading}` as const;
    const head = cols.find((c) => c.head);
    const facts = cols.filter((c) => !c.head && !c.actions);
    const actions = cols.filter((c) => c.actions);
    return (
      <ul
        ref={regionRef as Ref<HTMLUListElement>}
        className="list-cards data-cards"
        aria-label={label}
        aria-labelledby={labelledBy}
        aria-busy={busy || undefined}
        tabIndex={regionRef ? -1 : undefined}
      >
        {items.map((item, i) => {
          const buttons = actions.map((c) => ({ key: c.label, node: c.cell(item) })).filter((b) => hasContent(b.node));
          return (
            <li key={rowKey(item, i)} className="list-card data-card" {...rowProps?.(item)}>
              {head && (
                <Heading className={joined('list-card-title', head.token && 'break-anywhere')}>
                  {head.headLabel && <span className="data-card-label">{head.label} </span>}
                  {head.cell(item)}
                </Heading>
              )}
              <dl className="list-card-facts">
                {facts
                  .filter((c) => !c.skip?.(item))
                  .map((c) => (
                    <div key={c.label} className={c.wide ? 'list-card-wide' : undefined}>
                      <dt>{c.label}</dt>
                      <dd className={joined(c.num && 'num', c.className, c.token && 'break-anywhere')}>{c.cell(item)}</dd>
                    </div>
                  ))}
              </dl>
              {buttons.length > 0 && (
                <div className="list-card-actions">
                  {buttons.map((b) => (
                    <Fragment key={b.key}>{b.node}</Fragment>
                  ))}
                </div>
              )}
            </li>
          );
        })}
      </ul>
    );
  }
  return (
    <section
      ref={regionRef}
      className="table-wrap"
      aria-label={label && !labelledBy ? `${label} table` : undefined}
      aria-labelledby={labelledBy}
      aria-busy={busy}
      tabIndex={0}
    >
      <table className={`table ${className}`}>
        <thead>
          <tr>
            {cols.map((c) => (
              <th key={c.label} scope="col" className={c.num ? 'num' : undefined}>
                {c.actions ? <span className="visually-hidden">{c.label}</span> : c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((item, i) => (
            <tr key={rowKey(item, i)} {...rowProps?.(item)}>
              {cols.map((c) =>
                c.head ? (
                  <th key={c.label} scope="row" className={joined(c.num && 'num', c.className)}>
                    {c.cell(item)}
                  </th>
                ) : (
                  <td key={c.label} className={joined(c.num && 'num', c.actions && 'actions-cell', c.className)}>
                    {c.cell(item)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** Whether a cell draws anything (a row with no buttons gets no actions line on its card). */
function hasContent(node: ReactNode): boolean {
  if (node === null || node === undefined || node === false || node === true || node === '') return false;
  if (Array.isArray(node)) return node.some(hasContent);
  return true;
}

/**
 * A paged table (DataTable: cards below 640 px) with the paged list's states: loading, error,
 * `empty`, then `intro` above the rows and Load more below them.
 */
export function PagedTable<T>({
  list,
  empty,
  intro,
  ...table
}: {
  list: PagedList<T>;
  empty: ReactNode;
  /** Shown above the table when it has rows (a note on what it shows). */
  intro?: ReactNode;
} & Omit<Parameters<typeof DataTable<T>>[0], 'items'>) {
  return (
    <PagedStates list={list} empty={empty}>
      {(items) => (
        <>
          {intro}
          <DataTable items={items} {...table} />
        </>
      )}
    </PagedStates>
  );
}

/** A status as a badge: `status-badge` and the status's own class (its colours), with its label. */
export function StatusBadge({ className, label }: { className?: string; label: string }) {
  return <span className={className ? `status-badge ${className}` : 'status-badge'}>{label}</span>;
}
