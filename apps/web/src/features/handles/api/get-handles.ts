import {
  HANDLES_LOAD_MAX_ATTEMPTS,
  handleListResponseSchema,
  isHandleCollecting,
  type Handle,
} from '@perch/shared';
import { queryOptions, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { HANDLES_POLL_COLLECTING_MS } from '@/lib/polling/intervals';
import { backgroundRefreshMs } from '@/lib/preferences/preferences';
import { retryUpTo } from '@/lib/query-client';
import { retryDelayMs, type RetryBackoff } from '@/lib/resilience/retry-policy';
import { handleKeys } from './handle-keys';

/**
 * The list's own load retries: 5 attempts in all, waiting 2 s doubling up to 30 s
 * (with the usual jitter; a 429's Retry-After wins). Every other handle call keeps the 3
 * retries of the "handles" kind (docs/decisions.md, "Handle list retries").
 */
export const HANDLES_LOAD_BACKOFF: RetryBackoff = { baseMs: 2_000, maxMs: 30_000 };
/** After the fifth failed attempt, the error clears (and the list loads afresh) after 10 s. */
export const HANDLES_LOAD_ERROR_CLEAR_MS = 10_000;

/** GET /handles: the handles the signed-in user monitors. */
export async function getHandles(signal?: AbortSignal): Promise<Handle[]> {
  const data = await apiClient.get('/handles', handleListResponseSchema, { signal });
  return data.handles;
}

/**
 * How often the list is fetched again: every 3 s while a backfill runs, else at the person's
 * refresh interval (30 s by default).
 */
export function handlesPollInterval(handles: readonly Handle[] | undefined): number {
  return handles?.some(isHandleCollecting) ? HANDLES_POLL_COLLECTING_MS : backgroundRefreshMs();
}

/**
 * The list query: polled, and retried by its own rule of 5 attempts. Given the QueryClient, the
 * retries draw on that client's budget and error storms (see `retryUpTo`).
 */
export function handlesQueryOptions(queryClient?: QueryClient) {
  return queryOptions({
    queryKey: handleKeys.list,
    queryFn: ({ signal }) => getHandles(signal),
    refetchInterval: (query) => handlesPollInterval(query.state.data),
    retry: retryUpTo(HANDLES_LOAD_MAX_ATTEMPTS - 1, queryClient),
    retryDelay: (failureCount, error) =>
      retryDelayMs(failureCount, error, Math.random, HANDLES_LOAD_BACKOFF),
  });
}

export function useHandlesQuery() {
  const queryClient = useQueryClient();
  return useQuery(handlesQueryOptions(queryClient));
}
