import { deletedResponseSchema } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { webhookHandlesQueryKey } from './get-webhook-handles';
import { forgetWebhook } from './webhook-cache';

/** DELETE /webhooks/{id}: the endpoint receives nothing more, and its secret is gone. */
export async function deleteWebhook(id: number): Promise<void> {
  await apiClient.delete(`/webhooks/${id}`, deletedResponseSchema);
}

export function useDeleteWebhookMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['settings', 'webhooks', 'delete'],
    mutationFn: deleteWebhook,
    onSuccess: (_answer, id) => {
      forgetWebhook(queryClient, id);
      // Without endpoints left the server may switch the handles' webhooks off: read them again.
      void queryClient.invalidateQueries({ queryKey: webhookHandlesQueryKey });
    },
  });
}
