import { useEffect, useRef, type ReactNode } from 'react';
import { M } from '../../shared/messages';
import { errorMessage } from '../lib/errors';
import { InfiniteScrollSentinel } from './InfiniteScrollSentinel';
import { Loading } from './Loading';
import { Notice } from './Notice';

/**
 * The slice of an infinite query a list reads: trpc's and react-query's useInfiniteQuery
 * results fit. `isPlaceholderData` (a new filter showing the previous answer) holds the next
 * page back until the new first page is in.
 */
export interface PagedQuery<T> {
  data?: { pages: { items: T[] }[] };
  isPending: boolean;
  isError: boolean;
  error: unknown;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  isFetchNextPageError: boolean;
  isPlaceholderData?: boolean;
  fetchNextPage(): unknown;
  refetch(): unknown;
}

/**
 * The items of the loaded pages, each once: keyset pages never repeat a row, but an offset page
 * after something new (or a refetched first page) can overlap the next one.
 */
export function itemsOf<T extends { _id: string }>(query: Pick<PagedQuery<T>, 'data'>): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const page of query.data?.pages ?? []) {
    for (const item of page.items) {
      if (seen.has(item._id)) continue;
      seen.add(item._id);
      out.push(item);
    }
  }
  return out;
}

/** A failed load: the error (or `fallback`) and a button that tries again. */
export function ListError({ error, fallback, onRetry }: { error: unknown; fallback: string; onRetry(): void }) {
  return (
    <div className="list-error">
      <Notice kind="error">{errorMessage(error, fallback)}</Notice>
      <button type="button" className="button button-secondary" onClick={onRetry}>
        Try again
      </button>
    </div>
  );
}

/**
 * An empty list: the spec's own text where it has one, what the list is for, and the next step
 * (a link or button) when there is one.
 */
export function EmptyState({ text, hint, action }: { text: string; hint?: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty-state">
      <p className="empty-state-text">{text}</p>
      {hint && <p className="empty-state-hint muted">{hint}</p>}
      {action && <div className="empty-state-action">{action}</div>}
    </div>
  );
}

/**
 * The loading state of a list: `rows` placeholders of a row's (or a card's: `tile`) final size (so nothing below moves
 * when the data replaces them) and the spec's 'Loading', announced politely.
 */
export function ListSkeleton({ rows = 6, kind = 'row' }: { rows?: number; kind?: 'row' | 'card' | 'tile' }) {
  if (kind === 'tile') {
    // image-first cards (ItemCard): a cover and a body of a card's size, in the cards' grid
    return (
      <div className="list-skeleton list-skeleton-tile">
        <Loading />
        <ul className="item-cards-grid" aria-hidden="true">
          {Array.from({ length: rows }, (_, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: placeholder cards have no identity of their own and never move
            <li key={i} className="item-card card skeleton-tile">
              <span className="item-card-cover skeleton-cover" />
              <span className="skeleton-lines item-card-body">
                <span className="skeleton-line" />
                <span className="skeleton-line skeleton-line-short" />
              </span>
            </li>
          ))}
        </ul>
      </div>
    );
  }
  return (
    <div className={`list-skeleton list-skeleton-${kind}`}>
      <Loading />
      <ul className="skeleton-items" aria-hidden="true">
        {Array.from({ length: rows }, (_, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: placeholder rows have no identity of their own and never move
          <li key={i} className="skeleton-item">
            <span className="skeleton-thumb" />
            <span className="skeleton-lines">
              <span className="skeleton-line" />
              <span className="skeleton-line skeleton-line-short" />
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

interface InfiniteListProps<T> {
  query: PagedQuery<T>;
  /** The items to show (default: every loaded page's items, each once by `_id`). */
  items?: T[];
  /** What a failed load says when the server gave no message of its own. */
  failedText?: string;
  /** The empty state (an `EmptyState`); shown once no further page can bring an item. */
  empty: ReactNode;
  /**
   * 'Showing 20 of 45' above the list: the total (a lower bound when `capped`). It is a polite
   * live region unless `quiet` (a page that announces a new view's result once itself, rather
   * than each page infinite scroll adds).
   */
  count?: { total: number; capped?: boolean; quiet?: boolean };
  /** 'End of results' after the last page (spec section 2's lists). */
  endText?: boolean;
  /** The loading placeholder (default: a few skeleton rows). */
  skeleton?: ReactNode;
  /**
   * 'scroll' (default): the next page loads 300 px before the end (spec section 9); 'button': a
   * 'Load more' button; 'all': every page loads at once (a list split into sections).
   */
  more?: 'scroll' | 'button' | 'all';
  className?: string;
  /** Renders the loaded items (a table, cards, rows). */
  children(items: T[]): ReactNode;
}

/**
 * Every paged list of the app: Loading (skeleton rows of the final size), a load error with Try
 * again, the empty state, the count, infinite scroll (or a 'Load more' button), a failed next page
 * with its own Try again, and 'End of results'. The list keeps a minimum height so the footer
 * does not jump when the data replaces the loading state.
 */
export function InfiniteList<T extends { _id: string }>({
  query,
  items: given,
  failedText = M.requestFailed,
  empty,
  count,
  endText = false,
  skeleton,
  more = 'scroll',
  className,
  children,
}: InfiniteListProps<T>) {
  const cls = `infinite-list${className ? ` ${className}` : ''}`;
  if (query.isPending) return <div className={cls}>{skeleton ?? <ListSkeleton />}</div>;
  if (!query.data) {
    return (
      <div className={cls}>
        <ListError error={query.error} fallback={failedText} onRetry={() => void query.refetch()} />
      </div>
    );
  }
  const items = given ?? itemsOf(query as PagedQuery<T & { _id: string }>);
  const waiting = query.isPlaceholderData === true;
  const canLoad = query.hasNextPage && !waiting;
  const tail = (
    <>
      {more !== 'button' && <AutoLoad query={query} enabled={canLoad} whenVisible={more === 'scroll'} />}
      {more === 'button' && canLoad && !query.isFetchNextPageError && (
        <div className="load-more">
          <button type="button" className="button button-secondary" disabled={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
            {query.isFetchingNextPage ? M.loading : 'Load more'}
          </button>
        </div>
      )}
      {query.isFetchingNextPage && more !== 'button' && <Loading />}
      {query.isFetchNextPageError && <ListError error={query.error} fallback={failedText} onRetry={() => void query.fetchNextPage()} />}
    </>
  );
  // a page of only hidden things is not the end: the next page is asked for before saying "empty"
  if (!items.length) return <div className={cls}>{query.hasNextPage ? tail : empty}</div>;
  return (
    <div className={cls}>
      {count && (
        <p className="list-count muted" aria-live={count.quiet ? undefined : 'polite'}>
          Showing {items.length} of {Math.max(count.total, items.length)}
          {count.capped ? '+' : ''}
        </p>
      )}
      {children(items)}
      {tail}
      {endText && !query.hasNextPage && !query.isFetchingNextPage && <p className="end-of-results muted">{M.endOfResults}</p>}
    </div>
  );
}

/** Asks for the next page: near the viewport's end ('scroll'), or as soon as the last one is in. */
function AutoLoad<T>({ query, enabled, whenVisible }: { query: PagedQuery<T>; enabled: boolean; whenVisible: boolean }) {
  if (!whenVisible) return <LoadAll query={query} enabled={enabled} />;
  return (
    <InfiniteScrollSentinel
      hasMore={enabled}
      loading={query.isFetchingNextPage}
      failed={query.isFetchNextPageError}
      onLoadMore={() => void query.fetchNextPage()}
    />
  );
}

function LoadAll<T>({ query, enabled }: { query: PagedQuery<T>; enabled: boolean }) {
  const { isFetchingNextPage, isFetchNextPageError } = query;
  useLoadAll(enabled && !isFetchingNextPage && !isFetchNextPageError, query);
  return null;
}

function useLoadAll<T>(go: boolean, query: PagedQuery<T>) {
  const ref = useRef(query);
  ref.current = query;
  useEffect(() => {
    if (go) void ref.current.fetchNextPage();
  }, [go]);
}
