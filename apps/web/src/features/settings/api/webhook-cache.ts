import type { WebhookEndpoint, WebhookEndpointList } from '@perch/shared';
import type { QueryClient } from '@tanstack/react-query';
import { webhooksQueryKey } from './get-webhooks';

/**
 * Puts the server's answer for one endpoint into the cached list (appended when new), so the
 * card shows it at once without fetching the whole list again.
 */
export function storeWebhook(queryClient: QueryClient, endpoint: WebhookEndpoint): void {
  queryClient.setQueryData<WebhookEndpointList>(webhooksQueryKey, (list) => {
    if (!list) return list;
    const known = list.endpoints.some((entry) => entry.id === endpoint.id);
    return {
      ...list,
      endpoints: known
        ? list.endpoints.map((entry) => (entry.id === endpoint.id ? endpoint : entry))
        : [...list.endpoints, endpoint],
    };
  });
}

/** Takes a deleted endpoint out of the cached list. */
export function forgetWebhook(queryClient: QueryClient, id: number): void {
  queryClient.setQueryData<WebhookEndpointList>(webhooksQueryKey, (list) =>
    list ? { ...list, endpoints: list.endpoints.filter((entry) => entry.id !== id) } : list,
  );
}
