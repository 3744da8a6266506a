import { keepPreviousData, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { getQueryKey } from '@trpc/react-query';
import { createContext, useContext, useState, type ReactNode } from 'react';
import { FAVORITE_IDS_MAX, type FAVORITE_TARGET_TYPES } from '../../shared/constants';
import { M } from '../../shared/messages';
import { useSession } from '../auth/useSession';
import { trpc } from '../trpc';

export type FavoriteTargetType = (typeof FAVORITE_TARGET_TYPES)[number];

/**
 * The ids a list shows together (a page of it): every Favorite button inside asks
 * `favorites.ids` about all of them at once, so a page of buttons is one query, not one each.
 * A button outside any group (a detail page) asks about its own id. Keep a group to a page of the
 * list (PAGE_SIZE): the question travels in the URL of a batched GET, and the server answers at
 * most FAVORITE_IDS_MAX ids (a larger group falls back to one question per button).
 */
const FavoriteGroup = createContext<readonly string[] | null>(null);

export function FavoriteIdsGroup({ ids, children }: { ids: readonly string[]; children: ReactNode }) {
  return <FavoriteGroup.Provider value={ids}>{children}</FavoriteGroup.Provider>;
}

type IdsAnswer = { ids: string[] };
const askedIds = (key: readonly unknown[]) => ((key[1] as { input?: { targetIds?: unknown } } | undefined)?.input?.targetIds ?? []) as string[];
const idsQueries = (queryClient: QueryClient, type: FavoriteTargetType) =>
  queryClient.getQueryCache().findAll({ queryKey: getQueryKey(trpc.favorites.ids, { type }, 'query') });

/**
 * Marks `targetId` favorited (or not) in every cached `favorites.ids` answer of its type that
 * asked about it: the list's group, a detail page's own question.
 */
export function setFavoriteInCache(queryClient: QueryClient, type: FavoriteTargetType, targetId: string, on: boolean): void {
  queryClient.setQueriesData<IdsAnswer>(
    { queryKey: getQueryKey(trpc.favorites.ids, { type }, 'query'), predicate: (q) => askedIds(q.queryKey).includes(targetId) },
    (old) => {
      if (!old) return old;
      const rest = old.ids.filter((id) => id !== targetId);
      return { ids: on ? [...rest, targetId] : rest };
    },
  );
}

/**
 * What the cache already knows about these ids, when every one of them was asked about in
 * another answer (the list a detail page was opened from, a list whose pages moved): that
 * answer's data and the time of the oldest answer it comes from, else nothing (ask the server).
 */
function knownAnswer(queryClient: QueryClient, type: FavoriteTargetType, targetIds: readonly string[]): { data: IdsAnswer; at: number } | undefined {
  const queries = idsQueries(queryClient, type).filter((q) => q.state.data !== undefined);
  const ids: string[] = [];
  let at = Infinity;
  for (const id of targetIds) {
    const q = queries.find((x) => askedIds(x.queryKey).includes(id));
    if (!q) return undefined;
    if ((q.state.data as IdsAnswer).ids.includes(id)) ids.push(id);
    at = Math.min(at, q.state.dataUpdatedAt);
  }
  return { data: { ids }, at };
}

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
 * Whether something is a favorite comes from `favorites.ids`, asked about the ids of the button's
 * group (FavoriteIdsGroup: one query per page of a list, shared by its buttons) or about its own id;
 * a press updates every cached answer that asked about it at once and reverts them if the call fails.
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
  const queryClient = useQueryClient();
  const group = useContext(FavoriteGroup);
  const inGroup = group !== null && group.length <= FAVORITE_IDS_MAX && group.includes(targetId);
  const input = { type: targetType, targetIds: inGroup ? [...group] : [targetId] };
  const ids = trpc.favorites.ids.useQuery(input, {
    staleTime: 60_000,
    initialData: () => knownAnswer(queryClient, targetType, input.targetIds)?.data,
    initialDataUpdatedAt: () => knownAnswer(queryClient, targetType, input.targetIds)?.at,
    // when the list's pages move (a refetch), the button keeps its last answer until the new one comes
    placeholderData: keepPreviousData,
  });
  const [failed, setFailed] = useState(false);

  const setFavorited = (on: boolean) => setFavoriteInCache(queryClient, targetType, targetId, on);
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
  const disabled = ids.isPending || ids.isPlaceholderData || busy || (mode === 'oneWay' && favorited);

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
