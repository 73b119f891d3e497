import { webhookSecretSchema, type WebhookSecret } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { storeWebhook } from './webhook-cache';

/** POST /webhooks/{id}/rotate-secret: a new secret, shown once; the old one stops signing. */
export function rotateWebhookSecret(id: number): Promise<WebhookSecret> {
  return apiClient.post(`/webhooks/${id}/rotate-secret`, undefined, webhookSecretSchema);
}

export function useRotateWebhookSecretMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['settings', 'webhooks', 'rotate-secret'],
    mutationFn: rotateWebhookSecret,
    onSuccess: ({ endpoint }) => storeWebhook(queryClient, endpoint),
  });
}
