import {
  handleNotificationsResponseSchema,
  type Handle,
  type HandleNotificationsRequest,
} from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { webhookHandlesQueryKey } from './get-webhook-handles';

export interface HandleWebhookChange {
  handle: Handle;
  enabled: boolean;
}

/** Whether a handle's new posts go to the user's webhooks (an older server leaves it out). */
export function sendsToWebhooks(handle: Handle): boolean {
  return handle.webhook_enabled ?? false;
}

/** PUT /handles/{id}/notifications with webhookEnabled: one handle's posts to the webhooks. */
export async function setHandleWebhook({ handle, enabled }: HandleWebhookChange): Promise<Handle> {
  const body: HandleNotificationsRequest = { webhookEnabled: enabled };
  const data = await apiClient.put(
    `/handles/${handle.id}/notifications`,
    body,
    handleNotificationsResponseSchema,
  );
  return data.handle;
}

function withFlag(handles: Handle[] | undefined, id: number, enabled: boolean) {
  return handles?.map((entry) =>
    entry.id === id ? { ...entry, webhook_enabled: enabled } : entry,
  );
}

/**
 * Switches a handle's webhooks optimistically, like the dashboard's Telegram and Discord
 * switches: the new state shows at once, the server's answer replaces it, and a refusal puts
 * only that switch back.
 */
export function useSetHandleWebhookMutation() {
  const queryClient = useQueryClient();
  return useMutation<Handle, Error, HandleWebhookChange>({
    mutationKey: ['settings', 'handle-webhook'],
    mutationFn: setHandleWebhook,
    onMutate: async ({ handle, enabled }) => {
      await queryClient.cancelQueries({ queryKey: webhookHandlesQueryKey });
      queryClient.setQueryData<Handle[]>(webhookHandlesQueryKey, (handles) =>
        withFlag(handles, handle.id, enabled),
      );
    },
    onSuccess: (updated) => {
      queryClient.setQueryData<Handle[]>(webhookHandlesQueryKey, (handles) =>
        withFlag(handles, updated.id, sendsToWebhooks(updated)),
      );
    },
    onError: (_error, { handle, enabled }) => {
      queryClient.setQueryData<Handle[]>(webhookHandlesQueryKey, (handles) =>
        withFlag(handles, handle.id, !enabled),
      );
    },
  });
}
