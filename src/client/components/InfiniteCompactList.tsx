import type { ReactNode } from 'react';
import { CompactItemList, type CompactItem } from './CompactItemList';
import { InfiniteList, ListSkeleton, type PagedQuery } from './InfiniteList';

interface Props<T extends CompactItem> {
  list: PagedQuery<T>;
  basePath: string;
  noun: 'campaign' | 'project';
  label: string;
  /** The empty state (an EmptyState: the list's empty text and, where there is one, the next step). */
  empty: ReactNode;
  renderActions?: (item: T, titleId: string) => ReactNode;
}

/** Compact rows of an infinite campaign or project query, with every list state (InfiniteList). */
export function InfiniteCompactList<T extends CompactItem>({ list, basePath, noun, label, empty, renderActions }: Props<T>) {
  return (
    <InfiniteList query={list} empty={empty} skeleton={<ListSkeleton kind="card" rows={4} />}>
      {(items) => <CompactItemList items={items} basePath={basePath} noun={noun} label={label} renderActions={renderActions} />}
    </InfiniteList>
  );
}
