import {
  handleNotificationsResponseSchema,
  type Handle,
  type HandleNotificationsRequest,
  type NotificationChannel,
} from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { handleKeys, handleMutationKeys } from './handle-keys';

/** Where a handle's new posts can go: a messaging service, or the user's webhooks. */
export type HandleChannel = NotificationChannel | 'webhook';

export interface HandleNotificationChange {
  handle: Handle;
  channel: HandleChannel;
  enabled: boolean;
}

const FIELD = {
  telegram: 'telegram_enabled',
  discord: 'discord_enabled',
  webhook: 'webhook_enabled',
} as const satisfies Record<HandleChannel, keyof Handle>;

const REQUEST_FIELD = {
  telegram: 'telegramEnabled',
  discord: 'discordEnabled',
  webhook: 'webhookEnabled',
} as const satisfies Record<HandleChannel, keyof HandleNotificationsRequest>;

/** Whether a handle notifies on a channel (an older server leaves the webhooks' flag out). */
export function notifiesOn(handle: Handle, channel: HandleChannel): boolean {
  return handle[FIELD[channel]] ?? false;
}

/** PUT /handles/{id}/notifications: switches one channel on or off for one handle. */
export async function setHandleNotifications({
  handle,
  channel,
  enabled,
}: HandleNotificationChange): Promise<Handle> {
  const body: HandleNotificationsRequest = { [REQUEST_FIELD[channel]]: enabled };
  const data = await apiClient.put(
    `/handles/${handle.id}/notifications`,
    body,
    handleNotificationsResponseSchema,
  );
  return data.handle;
}

function setFlag(
  handles: Handle[] | undefined,
  id: number,
  channel: HandleChannel,
  enabled: boolean,
): Handle[] | undefined {
  return handles?.map((entry) =>
    entry.id === id ? { ...entry, [FIELD[channel]]: enabled } : entry,
  );
}

/**
 * Switches a channel for a handle optimistically (docs/spec-notes.md, Handle actions): the list
 * shows the new state at once, the server's handle replaces it, and a refusal puts the switch
 * back. Only that switch is reverted, so other changes made meanwhile stay.
 */
export function useSetHandleNotificationsMutation() {
  const queryClient = useQueryClient();
  return useMutation<Handle, Error, HandleNotificationChange>({
    mutationKey: handleMutationKeys.notifications,
    mutationFn: setHandleNotifications,
    onMutate: async ({ handle, channel, enabled }) => {
      await queryClient.cancelQueries({ queryKey: handleKeys.list });
      queryClient.setQueryData<Handle[]>(handleKeys.list, (handles) =>
        setFlag(handles, handle.id, channel, enabled),
      );
    },
    onSuccess: (updated, { channel }) => {
      queryClient.setQueryData<Handle[]>(handleKeys.list, (handles) =>
        setFlag(handles, updated.id, channel, notifiesOn(updated, channel)),
      );
    },
    onError: (_error, { handle, channel, enabled }) => {
      queryClient.setQueryData<Handle[]>(handleKeys.list, (handles) =>
        setFlag(handles, handle.id, channel, !enabled),
      );
    },
  });
}
