import type { ReactNode } from 'react';
import { M } from '../../shared/messages';
import { errorMessage } from '../lib/errors';
import { CompactItemList, type CompactItem } from './CompactItemList';
import { InfiniteScrollSentinel } from './InfiniteScrollSentinel';
import type { InfiniteListResult } from './ItemList';
import { Loading } from './Loading';
import { Notice } from './Notice';

interface Props<T extends CompactItem> {
  list: InfiniteListResult<T>;
  basePath: string;
  noun: 'campaign' | 'project';
  label: string;
  emptyText: string;
  renderActions?: (item: T, titleId: string) => ReactNode;
}

/** Compact rows of an infinite campaign or project query, with Loading, error, empty text and infinite scroll. */
export function InfiniteCompactList<T extends CompactItem>({ list, basePath, noun, label, emptyText, renderActions }: Props<T>) {
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
  const items = (list.data?.pages ?? []).flatMap((p) => p.items);
  if (!items.length) return <p className="empty-state muted">{emptyText}</p>;
  return (
    <>
      <CompactItemList items={items} basePath={basePath} noun={noun} label={label} renderActions={renderActions} />
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
    </>
  );
}
