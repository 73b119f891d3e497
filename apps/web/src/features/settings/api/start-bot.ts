import { botStatusSchema, type BotStatus, type Settings } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { botStatusQueryKey } from './get-bot-status';
import { settingsQueryKey } from './get-settings';

/** POST /bot/start: starts the user's forwarder (refused until X and a channel are connected). */
export function startBot(): Promise<BotStatus> {
  return apiClient.post('/bot/start', undefined, botStatusSchema);
}

/** Starts the bot; its answer updates the bot status and the settings' botRunning. */
export function useStartBotMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['settings', 'bot-start'],
    mutationFn: startBot,
    onSuccess: (status) => {
      queryClient.setQueryData(botStatusQueryKey, status);
      queryClient.setQueryData<Settings>(settingsQueryKey, (settings) =>
        settings ? { ...settings, botRunning: status.botRunning } : settings,
      );
    },
  });
}
