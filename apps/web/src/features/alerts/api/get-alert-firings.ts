import { alertFiringListSchema, type AlertFiringList } from '@perch/shared';
import { infiniteQueryOptions, keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { alertKeys } from './alert-keys';

/**
 * Firings a page of the history: fewer than the API's default of 50, so a page of cards on a
 * phone stays a few screens long.
 */
export const FIRINGS_PAGE_SIZE = 20;

export interface AlertFiringsParams {
  /** One handle's firings; all of them when null. */
  handle: string | null;
  limit?: number;
  /** Firings older than this id: the previous page's `next_before`. */
  before?: number;
}

/** GET /alerts/firings: the user's firings, newest first. */
export function getAlertFirings(
  { handle, limit = FIRINGS_PAGE_SIZE, before }: AlertFiringsParams,
  signal?: AbortSignal,
): Promise<AlertFiringList> {
  const query = new URLSearchParams({ limit: String(limit) });
  if (handle) query.set('handle', handle);
  if (before !== undefined) query.set('before', String(before));
  return apiClient.get(`/alerts/firings?${query.toString()}`, alertFiringListSchema, { signal });
}

/**
 * The history's pages, one more each time it asks, following `next_before`. The last filter's
 * firings stay on screen while another handle's load.
 */
export function alertFiringsQueryOptions(handle: string | null, limit = FIRINGS_PAGE_SIZE) {
  return infiniteQueryOptions({
    queryKey: alertKeys.firingPages(handle, limit),
    queryFn: ({ pageParam, signal }) =>
      getAlertFirings({ handle, limit, before: pageParam ?? undefined }, signal),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => last.next_before ?? undefined,
    placeholderData: keepPreviousData,
  });
}

export function useAlertFiringsQuery(handle: string | null, limit = FIRINGS_PAGE_SIZE) {
  return useInfiniteQuery(alertFiringsQueryOptions(handle, limit));
}
