import { webhookEndpointListSchema, type WebhookEndpointList } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';

export const webhooksQueryKey = ['settings', 'webhooks'] as const;

/** GET /webhooks: the user's endpoints (never their secrets) and how many they may keep. */
export function getWebhooks(signal?: AbortSignal): Promise<WebhookEndpointList> {
  return apiClient.get('/webhooks', webhookEndpointListSchema, { signal });
}

export function webhooksQueryOptions() {
  return queryOptions({
    queryKey: webhooksQueryKey,
    queryFn: ({ signal }) => getWebhooks(signal),
  });
}

export function useWebhooksQuery() {
  return useQuery(webhooksQueryOptions());
}
