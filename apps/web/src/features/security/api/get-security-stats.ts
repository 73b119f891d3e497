import { securityStatsSchema, type SecurityStats, type SecurityTimeRange } from '@perch/shared';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { SECURITY_REFRESH_MS } from '@/lib/polling/intervals';
import { orWhenNotFound } from './not-found';
import { securityQueryKeys } from './security-query-keys';

/**
 * GET /security/stats?timeRange: sign-in counts, live sessions, refused requests and the risk
 * level with its reasons; null when the server has no security area (404).
 */
export function getSecurityStats(
  timeRange: SecurityTimeRange,
  signal?: AbortSignal,
): Promise<SecurityStats | null> {
  const search = new URLSearchParams({ timeRange });
  return orWhenNotFound(
    apiClient.get(`/security/stats?${search.toString()}`, securityStatsSchema, { signal }),
    null,
  );
}

/** Refreshed every 60 s; a new range keeps the last numbers until its own arrive. */
export function securityStatsQueryOptions(timeRange: SecurityTimeRange) {
  return queryOptions({
    queryKey: securityQueryKeys.stats(timeRange),
    queryFn: ({ signal }) => getSecurityStats(timeRange, signal),
    refetchInterval: SECURITY_REFRESH_MS,
    placeholderData: keepPreviousData,
  });
}

export function useSecurityStatsQuery(timeRange: SecurityTimeRange) {
  return useQuery(securityStatsQueryOptions(timeRange));
}
