import {
  webhookEndpointResponseSchema,
  type WebhookEndpoint,
  type WebhookEndpointUpdate,
} from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { storeWebhook } from './webhook-cache';

export interface WebhookChange {
  id: number;
  /** Only what changed; a new address restarts an endpoint whose delivery stopped. */
  changes: WebhookEndpointUpdate;
}

/** PATCH /webhooks/{id}: renames an endpoint, or changes its address or format. */
export async function updateWebhook({ id, changes }: WebhookChange): Promise<WebhookEndpoint> {
  const data = await apiClient.patch(`/webhooks/${id}`, changes, webhookEndpointResponseSchema);
  return data.endpoint;
}

export function useUpdateWebhookMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['settings', 'webhooks', 'update'],
    mutationFn: updateWebhook,
    onSuccess: (endpoint) => storeWebhook(queryClient, endpoint),
  });
}
