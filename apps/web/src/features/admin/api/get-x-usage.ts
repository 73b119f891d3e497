import { xUsageSummarySchema, type XUsageSummary } from '@perch/shared';
import { useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { X_USAGE_POLL_MS } from '@/lib/polling/intervals';
import { adminQueryOptions } from './admin-query';

/** Under the admin prefix, so refreshing the admin area refreshes it too. */
export const xUsageQueryKey = ['admin', 'x-usage'] as const;

/**
 * GET /admin/x-usage: what reading from X cost today and this month, per handle too, the daily
 * budget and what it cuts, the state of the X credentials and the rate limits left.
 */
export function getXUsage(signal?: AbortSignal): Promise<XUsageSummary> {
  return apiClient.get('/admin/x-usage', xUsageSummarySchema, { signal });
}

/**
 * Polled every 30 s, so the banner notices refused credentials or a spent budget without a
 * reload; TanStack Query pauses the interval while the tab is hidden. The usage card and the
 * page's banner share this one entry.
 */
export function xUsageQueryOptions() {
  return adminQueryOptions(xUsageQueryKey, getXUsage, {
    refetchInterval: X_USAGE_POLL_MS,
    refetchIntervalInBackground: false,
  });
}

export function useXUsageQuery() {
  return useQuery(xUsageQueryOptions());
}
