import { feedsSchema, type Feeds } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { feedsQueryKey } from './get-feeds';

/** POST /settings/feeds/regenerate: new addresses; the old ones stop working at once. */
export function regenerateFeeds(): Promise<Feeds> {
  return apiClient.post('/settings/feeds/regenerate', undefined, feedsSchema);
}

export function useRegenerateFeedsMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['settings', 'feeds', 'regenerate'],
    mutationFn: regenerateFeeds,
    onSuccess: (feeds) => queryClient.setQueryData(feedsQueryKey, feeds),
  });
}
