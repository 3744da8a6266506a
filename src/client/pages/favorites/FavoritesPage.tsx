import { useQueryClient } from '@tanstack/react-query';
import { useId, type ReactNode } from 'react';
import { PAGE_SIZE } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import type { FavoriteDto } from '../../../shared/schemas/community';
import { CompactItemList } from '../../components/CompactItemList';
import { setFavoriteInCache, type FavoriteTargetType } from '../../components/FavoriteButton';
import { InfiniteScrollSentinel } from '../../components/InfiniteScrollSentinel';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { PersonSummary } from '../../components/PersonSummary';
import { Tabs, useTabParam } from '../../components/Tabs';
import { usePageTitle } from '../../hooks/usePageTitle';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';

const TABS = [
  { id: 'campaign', label: 'Campaigns' },
  { id: 'project', label: 'Projects' },
  { id: 'profile', label: 'Profiles' },
] as const satisfies readonly { id: FavoriteTargetType; label: string }[];

/**
 * /favorites (signed in only): tabs Campaigns, Projects, Profiles; each item links to its page and
 * can be unfavorited. Pages of 20, newest first; the next loads as the end of the list scrolls
 * into view (infinite scroll, as the other lists).
 */
export default function FavoritesPage() {
  usePageTitle(M.navFavorites);
  const [tab, setTab] = useTabParam<FavoriteTargetType>(
    TABS.map((t) => t.id),
    'campaign',
  );
  return (
    <section className="page">
      <h1>{M.navFavorites}</h1>
      <Tabs label="Favorites" tabs={TABS} selected={tab} onSelect={setTab}>
        <FavoritesTab key={tab} type={tab} />
      </Tabs>
    </section>
  );
}

/** The next page's cursor: null on the last page (a page may be short when favorites of hidden things were left out). */
const nextCursor = (last: { nextCursor: string | null }) => last.nextCursor ?? undefined;

function FavoritesTab({ type }: { type: FavoriteTargetType }) {
  const utils = trpc.useUtils();
  const queryClient = useQueryClient();
  const input = { type, limit: PAGE_SIZE };
  const list = trpc.favorites.list.useInfiniteQuery(input, { getNextPageParam: nextCursor });
  const remove = trpc.favorites.remove.useMutation({
    onSuccess: (_res, removed) => {
      utils.favorites.list.setInfiniteData(
        input,
        (old) => old && { ...old, pages: old.pages.map((p) => ({ ...p, items: p.items.filter((f) => f.targetId !== removed.targetId) })) },
      );
      // the Favorite buttons of lists and detail pages that asked about it agree
      setFavoriteInCache(queryClient, type, removed.targetId, false);
    },
    onSettled: () => {
      void utils.favorites.list.invalidate();
      void utils.favorites.ids.invalidate({ type });
    },
  });

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
  const items = list.data.pages.flatMap((p) => p.items).filter((f) => f.targetType === type);
  const removing = (f: FavoriteDto) => remove.isPending && remove.variables?.targetId === f.targetId;
  const unfavorite = (f: FavoriteDto, nameId?: string) => (
    <button
      type="button"
      className="button button-small button-secondary"
      onClick={() => remove.mutate({ targetType: f.targetType, targetId: f.targetId })}
      disabled={removing(f)}
      aria-describedby={nameId}
    >
      Unfavorite
    </button>
  );

  return (
    <>
      {remove.isError && <Notice kind="error">{errorMessage(remove.error, M.requestFailed)}</Notice>}
      {!items.length ? (
        // a page of only hidden things is not the end: the sentinel below asks for the next one
        !list.hasNextPage && <p className="empty-state muted">{M.noFavorites}</p>
      ) : type === 'profile' ? (
        <ul className="people-rows" aria-label="Favorite profiles">
          {items.map((f) => f.profile && <FavoriteProfile key={f._id} fav={f} action={unfavorite} />)}
        </ul>
      ) : type === 'campaign' ? (
        <CompactItemList
          items={items.flatMap((f) => (f.campaign ? [{ ...f.campaign, fav: f }] : []))}
          basePath="/campaigns"
          noun="campaign"
          label="Favorite campaigns"
          renderActions={(c, titleId) => unfavorite(c.fav, titleId)}
        />
      ) : (
        <CompactItemList
          items={items.flatMap((f) => (f.project ? [{ ...f.project, fav: f }] : []))}
          basePath="/projects"
          noun="project"
          label="Favorite projects"
          renderActions={(p, titleId) => unfavorite(p.fav, titleId)}
        />
      )}
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

function FavoriteProfile({ fav, action }: { fav: FavoriteDto; action(f: FavoriteDto, nameId?: string): ReactNode }) {
  const nameId = useId();
  const p = fav.profile;
  if (!p) return null;
  return (
    <li className="people-row">
      <PersonSummary person={p} tagLimit={8} nameId={nameId} actions={action(fav, nameId)} />
    </li>
  );
}
