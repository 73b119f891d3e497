import { notificationPreferencesResponseSchema, type NotificationPreferences } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';

export const notificationPreferencesQueryKey = ['settings', 'notification-preferences'] as const;

/** GET /settings/notifications: whether replies, reposts and quotes are forwarded. */
export async function getNotificationPreferences(
  signal?: AbortSignal,
): Promise<NotificationPreferences> {
  const data = await apiClient.get(
    '/settings/notifications',
    notificationPreferencesResponseSchema,
    {
      signal,
    },
  );
  return data.preferences;
}

export function notificationPreferencesQueryOptions() {
  return queryOptions({
    queryKey: notificationPreferencesQueryKey,
    queryFn: ({ signal }) => getNotificationPreferences(signal),
  });
}

export function useNotificationPreferencesQuery() {
  return useQuery(notificationPreferencesQueryOptions());
}
