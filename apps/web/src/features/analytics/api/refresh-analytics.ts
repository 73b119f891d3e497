import { completeAnalyticsSchema, type CompleteAnalytics } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import {
  analyticsQueryKey,
  analyticsSearch,
  handleAnalyticsQueryKey,
  type AnalyticsParams,
} from './get-complete-analytics';

/**
 * POST /analytics/refresh/{handle}: the server polls the handle at once and answers with the
 * fresh payload. A second refresh of the handle within 5 s is refused with a 429.
 */
export function refreshAnalytics(params: AnalyticsParams): Promise<CompleteAnalytics> {
  return apiClient.post(
    `/analytics/refresh/${encodeURIComponent(params.handle)}?${analyticsSearch(params)}`,
    undefined,
    completeAnalyticsSchema,
  );
}

/**
 * Refreshes one handle's analytics: the answer replaces the cached window, and the handle's
 * other windows are marked stale so that they are fetched again when next shown.
 */
export function useRefreshAnalyticsMutation() {
  const queryClient = useQueryClient();
  return useMutation<CompleteAnalytics, Error, AnalyticsParams>({
    mutationKey: ['analytics', 'refresh'],
    mutationFn: refreshAnalytics,
    onSuccess: async (data, params) => {
      await queryClient.invalidateQueries({
        queryKey: handleAnalyticsQueryKey(params.handle),
        refetchType: 'none',
      });
      queryClient.setQueryData(analyticsQueryKey(params), data);
    },
  });
}
