import { useId, type ReactNode } from 'react';
import { M } from '../../../shared/messages';
import type { FavoriteDto } from '../../../shared/schemas/community';
import { CompactItemList } from '../../components/CompactItemList';
import type { FavoriteTargetType } from '../../components/FavoriteButton';
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

/** /favorites (signed in only): tabs Campaigns, Projects, Profiles; each item links to its page and can be unfavorited. */
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

function FavoritesTab({ type }: { type: FavoriteTargetType }) {
  const utils = trpc.useUtils();
  const list = trpc.favorites.list.useQuery({ type });
  const remove = trpc.favorites.remove.useMutation({
    onSuccess: (_res, input) => {
      utils.favorites.list.setData({ type }, (old) => old && { items: old.items.filter((f) => f.targetId !== input.targetId) });
      utils.favorites.ids.setData({ type }, (old) => old && { ids: old.ids.filter((id) => id !== input.targetId) });
    },
    onSettled: () => {
      void utils.favorites.list.invalidate();
      void utils.favorites.ids.invalidate({ type });
    },
  });

  if (list.isPending) return <Loading />;
  if (list.isError) {
    return (
      <div className="list-error">
        <Notice kind="error">{errorMessage(list.error, M.requestFailed)}</Notice>
        <button type="button" className="button button-secondary" onClick={() => void list.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  const items = list.data.items.filter((f) => f.targetType === type);
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
        <p className="empty-state muted">{M.noFavorites}</p>
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
    </>
  );
}

function FavoriteProfile({ fav, action }: { fav: FavoriteDto; action(f: FavoriteDto, nameId?: string): ReactNode }) {
  const nameId = useId();
  const p = fav.profile!;
  return (
    <li className="people-row">
      <PersonSummary person={p} tagLimit={8} nameId={nameId} actions={action(fav, nameId)} />
    </li>
  );
}
