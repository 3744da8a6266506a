import { useEffect, useId, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import type { Currency } from '../../shared/constants';
import { PAGE_SIZE } from '../../shared/constants';
import { M } from '../../shared/messages';
import { formatMoney } from '../../shared/money';
import { useSession } from '../auth/useSession';
import { useNarrow } from '../hooks/useNarrow';
import { usePageTitle } from '../hooks/usePageTitle';
import { FavoriteIdsGroup } from './FavoriteButton';
import { GoalProgress } from './GoalProgress';
import { EmptyState, InfiniteList, ListSkeleton, type PagedQuery } from './InfiniteList';
import { type CardItem, ItemCardGrid } from './ItemCard';
import { categoryLabel } from './itemText';
import { ListCard } from './ListCard';
import {
  type ListFilters,
  type ListView,
  ListAnnouncer,
  ListFilterBar,
  narrowed,
  type SortChoice,
  useListFilters,
  useListView,
  ViewSwitch,
  withView,
} from './ListFilters';
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
  /** A campaign whose execution date has passed: marked 'Past' beside its coordination. */
  isPast?: boolean;
}

/** The coordination line, with 'Past' after it for a campaign whose date has passed. */
function Coordination({ item }: { item: ListItem }) {
  return (
    <>
      {item.coordination}
      {item.isPast && (
        <>
          {' '}
          <span className="status-badge status-past">{M.cardPast}</span>
        </>
      )}
    </>
  );
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
export type InfiniteListResult<T> = PagedQuery<T> & { data?: { pages: ListPage<T>[] } };

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

interface ItemRowsProps<T extends ListItem> {
  items: T[];
  /** '/campaigns' or '/projects': rows link to `${basePath}/{id}`. */
  basePath: string;
  /** The thing a row is, for accessible names ('campaign', 'project'). */
  noun: string;
  /**
   * The Favorite button of a row ('☆ Favorite'), after Open. The buttons of one page of the
   * list (PAGE_SIZE rows, in the order shown) share one FavoriteIdsGroup, so they ask about
   * their ids in one request; a page that infinite scroll adds later makes a group of its own
   * and leaves the earlier groups (and their cached answers) as they were.
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

function Thumb({ item }: { item: ListItem }) {
  return item.imageUrl ? (
    <img className="thumb" src={item.imageUrl} alt="" width={72} height={41} loading="lazy" />
  ) : (
    <span className="thumb thumb-placeholder" aria-hidden="true">
      {item.title.trim().charAt(0).toUpperCase() || '?'}
    </span>
  );
}

/** Open, then Favorite (with its page's group): the actions column of a row, or a card's actions. */
function ItemActions<T extends ListItem>({
  item,
  href,
  noun,
  group,
  renderFavorite,
}: {
  item: T;
  href: string;
  noun: string;
  group: string[] | undefined;
  renderFavorite?: (item: T) => ReactNode;
}) {
  return (
    <>
      <Link className="button button-small button-secondary" to={href} aria-label={`Open ${noun} ${item.title}`}>
        Open
      </Link>
      {renderFavorite && group && <FavoriteIdsGroup ids={group}>{renderFavorite(item)}</FavoriteIdsGroup>}
    </>
  );
}

/** The shared table of campaigns and projects (spec section 2 columns), for screens 640 px and wider. */
export function ItemTable<T extends ListItem>({ items, basePath, noun, renderFavorite, showProgress = false }: ItemRowsProps<T>) {
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
                  <Thumb item={item} />
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
                <td className="coordination-cell">
                  <Coordination item={item} />
                </td>
                <td className="num">
                  {formatMoney(item.totalRaised, item.currency)}
                  {showProgress && <RowProgress item={item} of="amount" />}
                </td>
                <td className="num">
                  {item.supporters}
                  {showProgress && <RowProgress item={item} of="supporters" />}
                </td>
                <td className="actions-cell">
                  <ItemActions item={item} href={href} noun={noun} group={groups[Math.floor(i / PAGE_SIZE)]} renderFavorite={renderFavorite} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The same rows as cards, for screens narrower than 640 px: each card has the table's facts
 * (title, creator, type, coordination, raised, support) under their column names, and its
 * actions (Open, Favorite).
 */
export function ItemCards<T extends ListItem>({ items, basePath, noun, renderFavorite, showProgress = false, label }: ItemRowsProps<T> & { label: string }) {
  const groups = renderFavorite ? favoriteGroups(items) : [];
  return (
    <ul className="list-cards item-cards" aria-label={label}>
      {items.map((item, i) => {
        const href = `${basePath}/${encodeURIComponent(item._id)}`;
        return (
          <ListCard
            key={item._id}
            href={href}
            title={item.title}
            thumb={<Thumb item={item} />}
            facts={[
              { label: 'Creator', value: <OwnerLink person={item.ownerId} /> },
              { label: 'Type', value: <span className="type-badge">{categoryLabel(item.type)}</span> },
              { label: 'Coordination', value: <Coordination item={item} />, wide: true },
              {
                label: 'Raised',
                num: true,
                value: (
                  <>
                    {formatMoney(item.totalRaised, item.currency)}
                    {showProgress && <RowProgress item={item} of="amount" />}
                  </>
                ),
              },
              {
                label: 'Support',
                num: true,
                value: (
                  <>
                    {item.supporters}
                    {showProgress && <RowProgress item={item} of="supporters" />}
                  </>
                ),
              },
            ]}
            actions={<ItemActions item={item} href={href} noun={noun} group={groups[Math.floor(i / PAGE_SIZE)]} renderFavorite={renderFavorite} />}
          />
        );
      })}
    </ul>
  );
}

/** The loading shape of the campaigns and projects list: image cards, or the table's rows (its own cards below 640 px). */
function ItemSkeleton({ narrow, view }: { narrow: boolean; view: ListView }) {
  if (view === 'cards') return <ListSkeleton kind="tile" rows={narrow ? 2 : 8} />;
  return <ListSkeleton kind={narrow ? 'card' : 'row'} rows={narrow ? 4 : 10} />;
}

interface ItemListViewProps<T extends CardItem> extends Omit<ItemRowsProps<T>, 'items'> {
  list: InfiniteListResult<T>;
  /** The list's accessible name in card form ('Campaigns'). */
  label: string;
  /** The empty state (the spec's empty text and the next step). */
  empty: ReactNode;
  /** Image-first cards (default), or the spec's table (a table from 640 px, its rows as cards below). */
  view?: ListView;
}

/**
 * Campaigns or projects with every list state: image-first cards in a grid, or the spec's table
 * (a table from 640 px, its rows as cards below); infinite scroll and 'End of results'. The count
 * is not a live region: the page says a new view's result once (`ListAnnouncer`), not each page
 * infinite scroll adds.
 */
export function ItemListView<T extends CardItem>({ list, label, empty, view = 'cards', ...rows }: ItemListViewProps<T>) {
  const narrow = useNarrow();
  const last = list.data?.pages[list.data.pages.length - 1];
  const kind = rows.noun === 'project' ? 'project' : 'campaign';
  return (
    <InfiniteList
      query={list}
      items={list.data?.pages.flatMap((p) => p.items)}
      empty={empty}
      count={last && { total: last.total, capped: last.totalCapped === true, quiet: true }}
      endText
      skeleton={<ItemSkeleton narrow={narrow} view={view} />}
    >
      {(items) =>
        view === 'cards' ? (
          <ItemCardGrid items={items} kind={kind} basePath={rows.basePath} label={label} renderFavorite={rows.renderFavorite} />
        ) : narrow ? (
          <ItemCards items={items} label={label} {...rows} />
        ) : (
          <ItemTable items={items} {...rows} />
        )
      }
    </InfiniteList>
  );
}

interface ItemListPageProps<T extends CardItem> extends Omit<ItemListViewProps<T>, 'list' | 'empty' | 'label' | 'view'> {
  /** The page's title and heading ('Campaigns'). */
  title: string;
  /** The search box's placeholder. */
  searchPlaceholder: string;
  /** The spec's empty text ('No campaigns found.'). */
  emptyText: string;
  /** What the list is for, said when it is empty. */
  purpose: string;
  /** Where a new one is made ('/campaigns/new') and its button text ('+ New campaign'); `startText` is the empty list's next step. */
  newPath: string;
  newText: string;
  startText: string;
  /** The orders the sort choice offers, the default (newest) first. */
  sorts: readonly SortChoice[];
  /** Whether the list can be narrowed to active or past ones (campaigns). */
  withStatus?: boolean;
  /** The infinite query of the list for the URL's search and choices (the query key holds them all). */
  useList(filters: ListFilters): InfiniteListResult<T>;
}

/**
 * /campaigns and /projects (spec section 2): the heading with the New button for signed-in
 * people, the search bound to ?q=, the category, status (campaigns) and sort choices bound to
 * ?type=, ?status= and ?sort= (a change is a history entry, so a link reproduces the view and Back
 * returns to the previous one), the Cards / Table switch bound to ?view=table (the same history
 * entries; the list's query, and so the first page read on the server, is the same in both), and
 * the list. An empty list says so in the spec's words; with a
 * search or a choice it offers to clear them, otherwise it says what the list is for and offers
 * the next step: start one when signed in, sign up otherwise.
 */
export function ItemListPage<T extends CardItem>({
  title,
  searchPlaceholder,
  emptyText,
  purpose,
  newPath,
  newText,
  startText,
  sorts,
  withStatus = false,
  useList,
  ...rows
}: ItemListPageProps<T>) {
  usePageTitle(title);
  const { isSignedIn, isLoading } = useSession();
  const [q, setQ] = useSearchQuery();
  const [filters, setFilters] = useListFilters(sorts, withStatus);
  const view = useListView();
  const [params] = useSearchParams();
  const list = useList(filters);
  const choices = narrowed(filters);
  const empty = choices ? (
    <EmptyState
      text={emptyText}
      hint={`Nothing matches these choices. Try another category${withStatus ? ' or status' : ''}.`}
      action={
        <Link className="button button-secondary" to={{ search: withView(params, new URLSearchParams(q ? { q } : {})) }}>
          Clear filters
        </Link>
      }
    />
  ) : q ? (
    <EmptyState
      text={emptyText}
      hint="Try other words, or clear the search."
      action={
        <Link className="button button-secondary" to={{ search: withView(params, new URLSearchParams()) }}>
          Show all
        </Link>
      }
    />
  ) : (
    <EmptyState
      text={emptyText}
      hint={purpose}
      action={
        isLoading ? null : isSignedIn ? (
          <Link className="button" to={newPath}>
            {startText}
          </Link>
        ) : (
          <Link className="button" to="/register">
            Sign up to start one
          </Link>
        )
      }
    />
  );
  const last = list.isPlaceholderData ? undefined : list.data?.pages[list.data.pages.length - 1];
  const shown = list.data?.pages.reduce((n, p) => n + p.items.length, 0) ?? 0;
  return (
    <section className="page list-page">
      <div className="page-head">
        <h1>{title}</h1>
        {isSignedIn && (
          <Link className="button" to={newPath}>
            {newText}
          </Link>
        )}
      </div>
      <div className="list-toolbar">
        <SearchBox q={q} onSearch={setQ} placeholder={searchPlaceholder} />
        <ListFilterBar filters={filters} onChange={setFilters} sorts={sorts} withStatus={withStatus} />
        <ViewSwitch view={view} />
      </div>
      <ListAnnouncer
        filters={filters}
        sorts={sorts}
        noun={title.toLowerCase()}
        view={view}
        result={last && { shown, total: last.total, capped: last.totalCapped === true }}
      />
      <div className="item-list-view" aria-busy={list.isPlaceholderData ? true : undefined}>
        <ItemListView list={list} label={title} empty={empty} view={view} {...rows} />
      </div>
    </section>
  );
}
