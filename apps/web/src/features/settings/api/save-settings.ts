import { settingsResponseSchema, type SaveSettingsRequest, type Settings } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { settingsQueryKey } from './get-settings';
import { storeAndRefetchLinked } from './linked-queries';

/**
 * POST /settings: any of telegram_chat_id, discord_user_id and twitter_username; an empty
 * string disconnects that one. Answers the settings as they now are.
 */
export async function saveSettings(body: SaveSettingsRequest): Promise<Settings> {
  const data = await apiClient.post('/settings', body, settingsResponseSchema);
  return data.settings;
}

/** Saves settings; the answer replaces the cached settings (the 30 s cache is cleared). */
export function useSaveSettingsMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['settings', 'save'],
    mutationFn: saveSettings,
    // Disconnecting the last channel (or Twitter) stops the bot on the server.
    onSuccess: (settings) => storeAndRefetchLinked(queryClient, settingsQueryKey, settings),
  });
}
