import { handleListResponseSchema, isHandleCollecting, type Handle } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { backgroundRefreshMs } from '@/lib/polling/poll-gate';

/** List poll while any handle is collecting, and otherwise in the demo's simple client (doc 2 §9.3). */
export const HANDLES_POLL_COLLECTING_MS = 3_000;
export const HANDLES_POLL_IDLE_MS = 30_000;

export const handlesQueryKey = ['handles', 'list'] as const;

/** GET /handles: the handles the signed-in user monitors. */
export async function getHandles(signal?: AbortSignal): Promise<Handle[]> {
  const data = await apiClient.get('/handles', handleListResponseSchema, { signal });
  return data.handles;
}

/**
 * How often the list is fetched again: every 3 s while a backfill runs, else at the person's
 * refresh interval (30 s by default; doc 2 §9.3).
 */
export function handlesPollInterval(handles: readonly Handle[] | undefined): number {
  return handles?.some(isHandleCollecting) ? HANDLES_POLL_COLLECTING_MS : backgroundRefreshMs();
}

export function handlesQueryOptions() {
  return queryOptions({
    queryKey: handlesQueryKey,
    queryFn: ({ signal }) => getHandles(signal),
    refetchInterval: (query) => handlesPollInterval(query.state.data),
  });
}

export function useHandlesQuery() {
  return useQuery(handlesQueryOptions());
}
