import { feedsSchema, type Feeds } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';

export const feedsQueryKey = ['settings', 'feeds'] as const;

/** GET /settings/feeds: the RSS and JSON feed addresses of the user's handles. */
export async function getFeeds(signal?: AbortSignal): Promise<Feeds> {
  return apiClient.get('/settings/feeds', feedsSchema, { signal });
}

export function feedsQueryOptions() {
  return queryOptions({
    queryKey: feedsQueryKey,
    queryFn: ({ signal }) => getFeeds(signal),
    // Fetched again whenever the page opens: a handle added on the dashboard shows at once.
    staleTime: 0,
  });
}

export function useFeedsQuery() {
  return useQuery(feedsQueryOptions());
}
