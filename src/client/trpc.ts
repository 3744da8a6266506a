import { QueryCache, QueryClient } from '@tanstack/react-query';
import { httpBatchLink } from '@trpc/client';
import { createTRPCReact } from '@trpc/react-query';
import superjson from 'superjson';
import type { AppRouter } from '../server/trpc/router';
import { isAuthError, isClientError } from './lib/errors';

export const trpc = createTRPCReact<AppRouter>();

/** React Query key prefix of the session check (`auth.me`). */
const ME_PATH = ['auth', 'me'];
export function isSessionQueryKey(key: readonly unknown[]): boolean {
  const path = key[0];
  return Array.isArray(path) && path.length === ME_PATH.length && path.every((p, i) => p === ME_PATH[i]);
}

export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({
    onError(err, query) {
      // The session check answered 401/403: signed out. Drop everything cached for the old session
      // (useSession reads the error as "no user").
      if (isSessionQueryKey(query.queryKey) && isAuthError(err)) {
        queryClient.removeQueries({ predicate: (q) => !isSessionQueryKey(q.queryKey) });
      }
    },
  }),
  defaultOptions: {
    queries: {
      // a 4xx will not change by asking again; other failures get two more tries
      retry: (failureCount, err) => !isClientError(err) && failureCount < 2,
      refetchOnWindowFocus: false,
      staleTime: 30_000,
    },
    mutations: { retry: false },
  },
});

/** Same-origin calls: the browser sends the httpOnly session cookie by itself; no token is stored here. */
export const trpcClient = trpc.createClient({
  links: [httpBatchLink({ url: '/trpc', transformer: superjson, maxItems: 10, maxURLLength: 2083 })],
});
