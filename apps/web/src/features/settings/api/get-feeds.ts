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
    // The addresses change only by Regenerate (or a handle added elsewhere): a minute is fine.
    staleTime: 60_000,
  });
}

export function useFeedsQuery() {
  return useQuery(feedsQueryOptions());
}
