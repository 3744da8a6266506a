import { useState } from 'react';
import type { FAVORITE_TARGET_TYPES } from '../../shared/constants';
import { M } from '../../shared/messages';
import { useSession } from '../auth/useSession';
import { trpc } from '../trpc';

export type FavoriteTargetType = (typeof FAVORITE_TARGET_TYPES)[number];

interface FavoriteButtonProps {
  targetType: FavoriteTargetType;
  targetId: string;
  /**
   * 'oneWay' (lists, spec section 4): once favorited it stays '★ Favorited' and is disabled;
   * removing is done on /favorites. 'toggle' (detail pages): a second press unfavorites.
   */
  mode?: 'oneWay' | 'toggle';
  /**
   * The thing's name (e.g. a campaign title). When given it is added to the accessible name
   * ('☆ Favorite: Tide pools'), so rows of a list can be told apart; the visible text stays the same.
   */
  itemName?: string;
  className?: string;
}

/**
 * '☆ Favorite' / '★ Favorited' for a campaign, project or profile. Hidden from signed-out people.
 * Whether something is a favorite comes from `favorites.ids` (one query per target type, shared by
 * every button on the page); a press updates that cache at once and reverts it if the call fails.
 * In 'toggle' mode failures are silently ignored (spec section 8); in 'oneWay' mode a short
 * 'Request failed' is shown next to the button.
 */
export function FavoriteButton(props: FavoriteButtonProps) {
  const { isSignedIn } = useSession();
  if (!isSignedIn) return null;
  return <SignedInFavoriteButton {...props} />;
}

function SignedInFavoriteButton({ targetType, targetId, mode = 'oneWay', itemName, className }: FavoriteButtonProps) {
  const utils = trpc.useUtils();
  const ids = trpc.favorites.ids.useQuery({ type: targetType }, { staleTime: 60_000 });
  const [failed, setFailed] = useState(false);

  const setFavorited = (on: boolean) =>
    utils.favorites.ids.setData({ type: targetType }, (old) => {
      const list = (old?.ids ?? []).filter((id) => id !== targetId);
      return { ids: on ? [...list, targetId] : list };
    });
  const settle = () => {
    void utils.favorites.list.invalidate();
  };

  const add = trpc.favorites.add.useMutation({
    onMutate: () => {
      setFailed(false);
      setFavorited(true);
    },
    onError: () => {
      setFavorited(false);
      if (mode === 'oneWay') setFailed(true);
    },
    onSettled: settle,
  });
  const remove = trpc.favorites.remove.useMutation({
    onMutate: () => setFavorited(false),
    onError: () => setFavorited(true),
    onSettled: settle,
  });

  const favorited = ids.data?.ids.includes(targetId) ?? false;
  const busy = add.isPending || remove.isPending;
  const text = favorited ? M.favorited : M.favorite;
  const disabled = ids.isPending || busy || (mode === 'oneWay' && favorited);

  function onClick() {
    if (busy) return;
    if (!favorited) add.mutate({ targetType, targetId });
    else if (mode === 'toggle') remove.mutate({ targetType, targetId });
  }

  return (
    <span className={`favorite${className ? ` ${className}` : ''}`}>
      <button
        type="button"
        className={`button button-small ${favorited ? 'button-favorited' : 'button-secondary'}`}
        onClick={onClick}
        disabled={disabled}
        aria-pressed={mode === 'toggle' ? favorited : undefined}
        aria-label={itemName ? `${text}: ${itemName}` : undefined}
      >
        {text}
      </button>
      {failed && (
        <span className="favorite-error" role="alert">
          {M.requestFailed}
        </span>
      )}
    </span>
  );
}
