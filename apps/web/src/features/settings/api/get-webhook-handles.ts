import { handleListResponseSchema, type Handle } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';

/**
 * The handles as the Webhooks card sees them. A key of this page's own: the dashboard's list
 * polls and retries by rules of its own, and this card only needs the names and switches.
 */
export const webhookHandlesQueryKey = ['settings', 'webhook-handles'] as const;

/** GET /handles: the user's handles, each with whether its posts go to the webhooks. */
export async function getWebhookHandles(signal?: AbortSignal): Promise<Handle[]> {
  const data = await apiClient.get('/handles', handleListResponseSchema, { signal });
  return data.handles;
}

export function webhookHandlesQueryOptions() {
  return queryOptions({
    queryKey: webhookHandlesQueryKey,
    queryFn: ({ signal }) => getWebhookHandles(signal),
    // Fetched again whenever the page opens: a handle added on the dashboard shows at once.
    staleTime: 0,
  });
}

export function useWebhookHandlesQuery() {
  return useQuery(webhookHandlesQueryOptions());
}
