import { notificationPreferencesResponseSchema, type NotificationPreferences } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { notificationPreferencesQueryKey } from './get-notification-preferences';

/** One of the kinds of post a user can have forwarded or not. */
export type ForwardedKind = keyof NotificationPreferences;

export interface PreferenceChange {
  kind: ForwardedKind;
  enabled: boolean;
}

/** PUT /settings/notifications with one preference; the server answers all of them. */
export async function saveNotificationPreference({
  kind,
  enabled,
}: PreferenceChange): Promise<NotificationPreferences> {
  const data = await apiClient.put(
    '/settings/notifications',
    { [kind]: enabled },
    notificationPreferencesResponseSchema,
  );
  return data.preferences;
}

function withPreference(
  preferences: NotificationPreferences | undefined,
  kind: ForwardedKind,
  enabled: boolean,
): NotificationPreferences | undefined {
  return preferences ? { ...preferences, [kind]: enabled } : preferences;
}

/**
 * Saves a switch as soon as it is flipped: shown at once, and on a failure only that switch goes
 * back, so another one flipped meanwhile keeps its new state.
 */
export function useSaveNotificationPreferenceMutation() {
  const queryClient = useQueryClient();
  return useMutation<NotificationPreferences, Error, PreferenceChange>({
    mutationKey: ['settings', 'notification-preferences', 'save'],
    mutationFn: saveNotificationPreference,
    onMutate: async ({ kind, enabled }) => {
      await queryClient.cancelQueries({ queryKey: notificationPreferencesQueryKey });
      queryClient.setQueryData<NotificationPreferences>(
        notificationPreferencesQueryKey,
        (current) => withPreference(current, kind, enabled),
      );
    },
    onSuccess: (saved, { kind }) => {
      queryClient.setQueryData<NotificationPreferences>(
        notificationPreferencesQueryKey,
        (current) => withPreference(current, kind, saved[kind]),
      );
    },
    onError: (_error, { kind, enabled }) => {
      queryClient.setQueryData<NotificationPreferences>(
        notificationPreferencesQueryKey,
        (current) => withPreference(current, kind, !enabled),
      );
    },
  });
}
