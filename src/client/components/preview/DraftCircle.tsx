import { lazy, useEffect, useRef } from 'react';
import type { PreviewKind, PreviewMeDto } from '../../../shared/schemas/previews';
import { useSession } from '../../auth/useSession';
import { trpc } from '../../trpc';
import { joinAfterSignIn } from './joinKey';

/*
 * The preview circle's parts of a draft's page (issue #30). The owner's panel, the feedback thread
 * and the guest's continue page bring the shared schemas (zod): they load when a draft's page needs
 * them, never with a released item's page for its public.
 */
export const CirclePanel = lazy(() => import('./CirclePanel').then((m) => ({ default: m.CirclePanel })));
export const FeedbackThread = lazy(() => import('./FeedbackThread').then((m) => ({ default: m.FeedbackThread })));
export const GuestContinue = lazy(() => import('./GuestContinue').then((m) => ({ default: m.GuestContinue })));

export type CircleView =
  /** Not a draft, or the owner's own: nothing of the circle's view. */
  | { state: 'none' }
  /** Asking what this person is to the draft. */
  | { state: 'loading' }
  /** A signed-out person with an email invite, who has not said who they are: the continue page. */
  | { state: 'continue' }
  /**
   * A member of the circle or a link's holder. `signInToWrite`: signed out, holding an email invite
   * sent to an address that has an account: feedback goes under that account, so they sign in to give it.
   */
  | { state: 'member'; me: PreviewMeDto; signInToWrite: boolean };

/**
 * What the person looking at a draft they do not own is to it (`previews.me`). Anyone else who
 * gets a draft (an admin) sees it as it is. Someone who went to sign in from the continue page
 * comes back signed in: their account is then tied to the invite (`previews.join`), once.
 */
export function useCircleView(kind: PreviewKind, id: string, draft: boolean, isOwner: boolean): CircleView {
  const session = useSession();
  const enabled = draft && !isOwner && !session.isLoading;
  const me = trpc.previews.me.useQuery({ kind, id }, { enabled, retry: false });
  const utils = trpc.useUtils();
  const { mutate: join } = trpc.previews.join.useMutation({ onSuccess: (next) => utils.previews.me.setData({ kind, id }, next) });
  const joined = useRef(false);
  const user = session.user;
  const via = me.data?.via;
  useEffect(() => {
    if (!user || via !== 'member' || joined.current) return;
    let asked = false;
    try {
      asked = sessionStorage.getItem(joinAfterSignIn(id)) === '1';
      if (asked) sessionStorage.removeItem(joinAfterSignIn(id));
    } catch {
      // no storage: nothing was asked
    }
    if (!asked) return;
    joined.current = true;
    join({ kind, id, data: { name: (user.name || user.username || 'Member').slice(0, 60) } });
  }, [user, via, id, kind, join]);

  if (!draft || isOwner) return { state: 'none' };
  if (session.isLoading || me.isPending) return { state: 'loading' };
  if (me.isError) return { state: 'none' };
  if (me.data.needsName) return { state: 'continue' };
  // a commenter's invite sent to an account's address: signed out, its holder reads and signs in to write (the server says they may not write yet)
  const signInToWrite = !user && me.data.via === 'member' && me.data.role === 'commenter' && me.data.name === null && !me.data.needsName;
  return { state: 'member', me: me.data, signInToWrite };
}
