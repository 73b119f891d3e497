import {
  queryOptions,
  useMutation,
  useQueryClient,
  type QueryClient,
  type QueryKey,
  type UseQueryOptions,
} from '@tanstack/react-query';

/** How often an admin query is fetched again on its own. */
export type AdminPolling<T, K extends QueryKey> = Pick<
  UseQueryOptions<T, Error, T, K>,
  'refetchInterval' | 'refetchIntervalInBackground'
>;

/** The cache entry of one admin GET: `get` is handed the query's abort signal. */
export function adminQueryOptions<T, K extends QueryKey>(
  queryKey: K,
  get: (signal: AbortSignal) => Promise<T>,
  polling: AdminPolling<T, K> = {},
) {
  return queryOptions({ queryKey, queryFn: ({ signal }) => get(signal), ...polling });
}

/**
 * An admin change; after a success `refresh` brings the cached lists up to date (the mutation
 * stays pending until the promise it returns settles).
 */
export function useAdminMutation<V, R>(
  mutationKey: QueryKey,
  mutationFn: (variables: V) => Promise<R>,
  refresh: (queryClient: QueryClient, answer: R, variables: V) => unknown,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey,
    mutationFn,
    onSuccess: (answer, variables) => refresh(queryClient, answer, variables),
  });
}
