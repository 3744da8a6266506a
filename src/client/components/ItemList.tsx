import { useEffect, useId, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import type { Currency } from '../../shared/constants';
import { PAGE_SIZE } from '../../shared/constants';
import { M } from '../../shared/messages';
import { formatMoney } from '../../shared/money';
import { errorMessage } from '../lib/errors';
import { FavoriteIdsGroup } from './FavoriteButton';
import { GoalProgress } from './GoalProgress';
import { InfiniteScrollSentinel } from './InfiniteScrollSentinel';
import { categoryLabel } from './itemText';
import { Loading } from './Loading';
import { Notice } from './Notice';
import { OwnerLink, type PersonRef } from './OwnerLink';

/** What a campaign or project row needs (both DTOs have these fields). */
export interface ListItem {
  _id: string;
  title: string;
  type: string;
  coordination: string;
  totalRaised: number;
  currency: Currency;
  supporters: number;
  imageUrl: string | null;
  ownerId: PersonRef;
  /** With `showProgress`: the goal the row's thin progress bar measures against. */
  goalAmount?: number;
  targetType?: 'amount' | 'supporters';
}

/** The thin progress bar of a row, under the figure the goal counts (raised, or supporters). */
function RowProgress({ item, of }: { item: ListItem; of: 'amount' | 'supporters' }) {
  const { goalAmount, targetType = 'amount' } = item;
  if (goalAmount === undefined || targetType !== of) return null;
  return <GoalProgress thin item={{ ...item, goalAmount, targetType }} label={`Progress of ${item.title}`} />;
}

export interface ListPage<T> {
  items: T[];
  total: number;
  /** A search with more matches than the server counts: `total` is a lower bound. */
  totalCapped?: boolean;
  nextCursor: string | null;
}

/**
 * The next page's cursor (spec section 9): only while the last page came back full and fewer
 * items than the total are loaded; otherwise the list is complete.
 */
export function nextPageParam<T>(last: ListPage<T>, all: ListPage<T>[]): string | undefined {
  const loaded = all.reduce((n, p) => n + p.items.length, 0);
  return last.nextCursor && last.items.length >= PAGE_SIZE && (loaded < last.total || last.totalCapped) ? last.nextCursor : undefined;
}

/** The `?q=` of the URL, and a setter that pushes a new history entry (Back returns to the previous search). */
export function useSearchQuery(): [string, (q: string) => void] {
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const setQ = (next: string) => {
    const v = next.trim();
    // the same search again adds no history entry
    if (v === q) return;
    const p = new URLSearchParams(params);
    if (v) p.set('q', v);
    else p.delete('q');
    setParams(p);
  };
  return [q, setQ];
}

/** The slice of an infinite query result the list reads (trpc's useInfiniteQuery result fits). */
export interface InfiniteListResult<T> {
  data?: { pages: ListPage<T>[] };
  isPending: boolean;
  isError: boolean;
  error: unknown;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  isFetchNextPageError: boolean;
  fetchNextPage(): unknown;
  refetch(): unknown;
}

/** The search box bound to `?q=`: typing, then Enter or Search, updates the URL. */
export function SearchBox({ q, onSearch, placeholder }: { q: string; onSearch(q: string): void; placeholder?: string }) {
  const id = useId();
  const [text, setText] = useState(q);
  // a link to ?q=tag (or Back) changes the query: the box shows it
  useEffect(() => setText(q), [q]);
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    onSearch(text);
  }
  return (
    // biome-ignore lint/a11y/useSemanticElements: a form with role=search is the ARIA search landmark; <search> would only wrap it in one more box
    <form className="search-form" role="search" onSubmit={onSubmit}>
      <label htmlFor={id} className="visually-hidden">
        Search
      </label>
      <input id={id} type="search" name="q" value={text} placeholder={placeholder} onChange={(e) => setText(e.target.value)} />
      <button type="submit" className="button">
        Search
      </button>
    </form>
  );
}

interface ItemTableProps<T extends ListItem> {
  items: T[];
  /** '/campaigns' or '/projects': rows link to `${basePath}/{id}`. */
  basePath: string;
  /** The thing a row is, for accessible names ('campaign', 'project'). */
  noun: string;
  /**
   * The Favorite slot of the actions column ('☆ Favorite'). The rows are grouped a page
   * (PAGE_SIZE) at a time, in the order shown, and the buttons of a group ask about their ids
   * together (FavoriteIdsGroup): one question per page of the list, and a page loaded later by
   * infinite scroll leaves the earlier groups (and their cached answers) as they were.
   */
  renderFavorite?: (item: T) => ReactNode;
  /** A thin bar toward each row's goal (campaigns). */
  showProgress?: boolean;
}

/** The ids of `items` in groups of PAGE_SIZE, in order; each row reads its own group. */
function favoriteGroups(items: { _id: string }[]): string[][] {
  const groups: string[][] = [];
  for (let i = 0; i < items.length; i += PAGE_SIZE) groups.push(items.slice(i, i + PAGE_SIZE).map((x) => x._id));
  return groups;
}

/** The shared table of campaigns and projects (spec section 2 columns). */
export function ItemTable<T extends ListItem>({ items, basePath, noun, renderFavorite, showProgress = false }: ItemTableProps<T>) {
  const groups = renderFavorite ? favoriteGroups(items) : [];
  return (
    <div className="table-wrap">
      <table className="table item-table">
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Thumbnail</span>
            </th>
            <th scope="col">Title</th>
            <th scope="col">Creator</th>
            <th scope="col">Type</th>
            <th scope="col">Coordination</th>
            <th scope="col" className="num">
              Raised
            </th>
            <th scope="col" className="num">
              Support
            </th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((item, i) => {
            const href = `${basePath}/${encodeURIComponent(item._id)}`;
            return (
              <tr key={item._id}>
                <td className="thumb-cell">
                  {item.imageUrl ? (
                    <img className="thumb" src={item.imageUrl} alt="" loading="lazy" />
                  ) : (
                    <span className="thumb thumb-placeholder" aria-hidden="true">
                      {item.title.trim().charAt(0).toUpperCase() || '?'}
                    </span>
                  )}
                </td>
                <th scope="row" className="title-cell">
                  <Link to={href}>{item.title}</Link>
                </th>
                <td>
                  <OwnerLink person={item.ownerId} />
                </td>
                <td>
                  <span className="type-badge">{categoryLabel(item.type)}</span>
                </td>
                <td className="coordination-cell">{item.coordination}</td>
                <td className="num">
                  {formatMoney(item.totalRaised, item.currency)}
                  {showProgress && <RowProgress item={item} of="amount" />}
                </td>
                <td className="num">
                  {item.supporters}
                  {showProgress && <RowProgress item={item} of="supporters" />}
                </td>
                <td className="actions-cell">
                  <Link className="button button-small button-secondary" to={href} aria-label={`Open ${noun} ${item.title}`}>
                    Open
                  </Link>
                  {renderFavorite && <FavoriteIdsGroup ids={groups[Math.floor(i / PAGE_SIZE)]}>{renderFavorite(item)}</FavoriteIdsGroup>}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

interface ItemListViewProps<T extends ListItem> {
  list: InfiniteListResult<T>;
  basePath: string;
  noun: string;
  emptyText: string;
  renderFavorite?: (item: T) => ReactNode;
  showProgress?: boolean;
}

/** The table with its states: Loading, an error, the empty text, infinite scroll and 'End of results'. */
export function ItemListView<T extends ListItem>({ list, basePath, noun, emptyText, renderFavorite, showProgress }: ItemListViewProps<T>) {
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
  const pages = list.data?.pages ?? [];
  const items = pages.flatMap((p) => p.items);
  const total = pages[pages.length - 1]?.total ?? items.length;
  const capped = pages[pages.length - 1]?.totalCapped === true;
  if (!items.length) return <p className="empty-state muted">{emptyText}</p>;
  return (
    <>
      <p className="list-count muted" aria-live="polite">
        Showing {items.length} of {Math.max(total, items.length)}
        {capped ? '+' : ''}
      </p>
      <ItemTable items={items} basePath={basePath} noun={noun} renderFavorite={renderFavorite} showProgress={showProgress} />
      <InfiniteScrollSentinel
        hasMore={list.hasNextPage}
        loading={list.isFetchingNextPage}
        failed={list.isFetchNextPageError}
        onLoadMore={() => void list.fetchNextPage()}
      />
      {list.isFetchingNextPage && <Loading />}
      {list.isFetchNextPageError && (
        <div className="list-error">
          <Notice kind="error">{errorMessage(list.error, M.requestFailed)}</Notice>
          <button type="button" className="button button-secondary" onClick={() => void list.fetchNextPage()}>
            Try again
          </button>
        </div>
      )}
      {!list.hasNextPage && !list.isFetchingNextPage && <p className="end-of-results muted">{M.endOfResults}</p>}
    </>
  );
}
