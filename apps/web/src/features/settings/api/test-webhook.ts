import { webhookTestResultSchema, type WebhookTestResult } from '@perch/shared';
import { useMutation } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';

/**
 * POST /webhooks/{id}/test: one signed test request. The answer is 200 whether or not the
 * endpoint accepted it; `ok` and `message` say how it answered.
 */
export function testWebhook(id: number): Promise<WebhookTestResult> {
  return apiClient.post(`/webhooks/${id}/test`, undefined, webhookTestResultSchema);
}

export function useTestWebhookMutation() {
  return useMutation({ mutationKey: ['settings', 'webhooks', 'test'], mutationFn: testWebhook });
}
