import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { UserDto } from '../../shared/schemas/user';
import { isAdmin } from '../../shared/roles';
import { isAuthError } from '../lib/errors';
import { trpc } from '../trpc';

export interface Session {
  /** The signed-in person, or null when signed out (or while loading). */
  user: UserDto | null;
  isSignedIn: boolean;
  isAdmin: boolean;
  /** True until the first session check has answered. */
  isLoading: boolean;
}

/**
 * The one source of "who is signed in": `auth.me` through React Query, so every caller shares
 * one request and one cache entry. The session itself is an httpOnly cookie the client never sees.
 * A 401/403 answer to the check means signed out (trpc.ts drops the other cached data).
 */
export function useSession(): Session {
  const me = trpc.auth.me.useQuery(undefined, { staleTime: 5 * 60_000 });
  const user = isAuthError(me.error) ? null : (me.data ?? null);
  return { user, isSignedIn: user !== null, isAdmin: isAdmin(user), isLoading: me.isPending };
}

/**
 * Logout: ends the session on the server, forgets every cached answer and loads / afresh.
 * A failed call still signs the client out (the cookie may already be gone).
 */
export function useLogout() {
  const queryClient = useQueryClient();
  const mutation = trpc.auth.logout.useMutation();
  const { mutateAsync } = mutation;
  const logout = useCallback(async () => {
    try {
      await mutateAsync();
    } catch {
      // nothing to show: the next page load asks the server who is signed in
    } finally {
      queryClient.clear();
      window.location.assign('/');
    }
  }, [mutateAsync, queryClient]);
  return { logout, isPending: mutation.isPending };
}
