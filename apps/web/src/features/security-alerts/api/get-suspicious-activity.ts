import { suspiciousActivityResponseSchema, type SuspiciousActivity } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { ApiError, apiClient } from '@/lib/api-client';
import { SECURITY_REFRESH_MS } from '@/lib/polling/intervals';

export const suspiciousActivityQueryKey = ['security', 'suspicious-activity'] as const;

const NO_ALERTS: SuspiciousActivity = { hasAlerts: false, alerts: [] };

/**
 * GET /security/suspicious-activity: the signed-in user's open alerts. A 404 (a server without
 * the security area) reads as no alerts (docs/spec-notes.md, Error texts).
 */
export async function getSuspiciousActivity(signal?: AbortSignal): Promise<SuspiciousActivity> {
  try {
    return await apiClient.get('/security/suspicious-activity', suspiciousActivityResponseSchema, {
      signal,
    });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return NO_ALERTS;
    throw error;
  }
}

/** Fetched on every signed-in page and again every 60 s. */
export function suspiciousActivityQueryOptions() {
  return queryOptions({
    queryKey: suspiciousActivityQueryKey,
    queryFn: ({ signal }) => getSuspiciousActivity(signal),
    refetchInterval: SECURITY_REFRESH_MS,
  });
}

export function useSuspiciousActivityQuery() {
  return useQuery(suspiciousActivityQueryOptions());
}
