import { alertFiringListSchema, type AlertFiringList } from '@perch/shared';
import { infiniteQueryOptions, keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { ALERTS_POLL_MS } from '@/lib/polling/intervals';
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
 * firings stay on screen while another handle's load. The server says nothing live when an
 * alert fires, so the pages are read again every minute while the page is open; a firing that
 * moves to a newer page meanwhile shows once (see the history's list).
 */
export function alertFiringsQueryOptions(handle: string | null, limit = FIRINGS_PAGE_SIZE) {
  return infiniteQueryOptions({
    queryKey: alertKeys.firingPages(handle, limit),
    queryFn: ({ pageParam, signal }) =>
      getAlertFirings({ handle, limit, before: pageParam ?? undefined }, signal),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => last.next_before ?? undefined,
    placeholderData: keepPreviousData,
    refetchInterval: ALERTS_POLL_MS,
  });
}

export function useAlertFiringsQuery(handle: string | null, limit = FIRINGS_PAGE_SIZE) {
  return useInfiniteQuery(alertFiringsQueryOptions(handle, limit));
}
