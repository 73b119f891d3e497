import { webhookSecretSchema, type WebhookEndpointInput, type WebhookSecret } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { storeWebhook } from './webhook-cache';

/**
 * POST /webhooks: saves an endpoint once the server has checked its address. The answer is the
 * only one that holds the secret.
 */
export function createWebhook(body: WebhookEndpointInput): Promise<WebhookSecret> {
  return apiClient.post('/webhooks', body, webhookSecretSchema);
}

export function useCreateWebhookMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['settings', 'webhooks', 'create'],
    mutationFn: createWebhook,
    onSuccess: ({ endpoint }) => storeWebhook(queryClient, endpoint),
  });
}
