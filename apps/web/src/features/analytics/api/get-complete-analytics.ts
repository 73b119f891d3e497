import { completeAnalyticsSchema, type CompleteAnalytics } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { ANALYTICS_COLLECTING_POLL_MS } from '@/lib/polling/intervals';
import { backgroundRefreshMs } from '@/lib/preferences/preferences';
import { isStillCollecting } from '../utils/analytics-data';

/** The server caches analytics; a payload is fresh for a minute (refresh forces a new one). */
export const ANALYTICS_STALE_MS = 60_000;

/** Which analytics: a handle over a period (days) with day and hour buckets in a time zone. */
export interface AnalyticsParams {
  handle: string;
  period: number;
  timezone: string;
}

/** ['analytics', handle (lower case), period, timezone]: one cache entry per window. */
export function analyticsQueryKey({ handle, period, timezone }: AnalyticsParams) {
  return ['analytics', handle.toLowerCase(), period, timezone] as const;
}

/** Every analytics query of one handle, whatever the window. */
export function handleAnalyticsQueryKey(handle: string) {
  return ['analytics', handle.toLowerCase()] as const;
}

/**
 * `?period=30&timezone=Europe%2FBerlin&compare=previous`: the dashboard always asks for the
 * previous period too, since every summary card shows its change against it.
 */
export function analyticsSearch({ period, timezone }: AnalyticsParams): string {
  return new URLSearchParams({ period: String(period), timezone, compare: 'previous' }).toString();
}

/**
 * GET /analytics/complete/{handle}: every analytics block of the window in one payload, with the
 * previous period's summary and daily series.
 */
export function getCompleteAnalytics(
  params: AnalyticsParams,
  signal?: AbortSignal,
): Promise<CompleteAnalytics> {
  return apiClient.get(
    `/analytics/complete/${encodeURIComponent(params.handle)}?${analyticsSearch(params)}`,
    completeAnalyticsSchema,
    { signal },
  );
}

/**
 * Every 5 s while the handle is still collecting; once its data is ready, at the person's refresh
 * interval (new tweets keep arriving; unchanged answers stretch the interval by themselves).
 */
export function analyticsPollInterval(data: CompleteAnalytics | undefined): number | false {
  if (!data) return false;
  return isStillCollecting(data) ? ANALYTICS_COLLECTING_POLL_MS : backgroundRefreshMs();
}

/** The payload is polled while the handle is still collecting, then left alone. */
export function completeAnalyticsQueryOptions(params: AnalyticsParams) {
  return queryOptions({
    queryKey: analyticsQueryKey(params),
    queryFn: ({ signal }) => getCompleteAnalytics(params, signal),
    staleTime: ANALYTICS_STALE_MS,
    refetchInterval: (query) => analyticsPollInterval(query.state.data),
  });
}

/**
 * The selected handle's analytics (nothing is fetched without `params`). Switching the period
 * keeps the previous window on screen until the new one arrives; switching the handle never
 * shows another handle's numbers.
 */
export function useCompleteAnalyticsQuery(params: AnalyticsParams | null) {
  const fallback: AnalyticsParams = { handle: '', period: 0, timezone: '' };
  return useQuery({
    ...completeAnalyticsQueryOptions(params ?? fallback),
    enabled: params !== null,
    placeholderData: (previous, previousQuery) =>
      params && previousQuery?.queryKey[1] === params.handle.toLowerCase() ? previous : undefined,
  });
}
