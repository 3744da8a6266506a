import { useQueryClient } from '@tanstack/react-query';
import { useId, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { PAGE_SIZE } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import type { FavoriteDto } from '../../../shared/schemas/community';
import { CompactItemList } from '../../components/CompactItemList';
import { setFavoriteInCache, type FavoriteTargetType } from '../../components/FavoriteButton';
import { EmptyState, InfiniteList, itemsOf, ListSkeleton } from '../../components/InfiniteList';
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

  const browse = BROWSE[type];
  return (
    <>
      {remove.isError && <Notice kind="error">{errorMessage(remove.error, M.requestFailed)}</Notice>}
      <InfiniteList
        query={list}
        // only the tab's own kind (a page may be short when favorites of hidden things were left out)
        items={itemsOf(list).filter((f) => f.targetType === type)}
        empty={
          <EmptyState
            text={M.noFavorites}
            hint={`Use the ☆ Favorite button on ${browse.what} to keep them here.`}
            action={
              <Link className="button button-secondary" to={browse.to}>
                {browse.text}
              </Link>
            }
          />
        }
        skeleton={<ListSkeleton kind="card" rows={4} />}
      >
        {(items) =>
          type === 'profile' ? (
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
          )
        }
      </InfiniteList>
    </>
  );
}

/** Where each tab's favorites come from: the empty tab's next step. */
const BROWSE: Record<FavoriteTargetType, { what: string; to: string; text: string }> = {
  campaign: { what: 'a campaign', to: '/campaigns', text: 'Browse campaigns' },
  project: { what: 'a project', to: '/projects', text: 'Browse projects' },
  profile: { what: 'a profile', to: '/profiles', text: 'Browse profiles' },
};

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
