import { channelTestResponseSchema } from '@perch/shared';
import { useMutation } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';

/** POST /settings/discord/test: sends a test direct message to the Discord user `userId`. */
export async function testDiscord(userId: string): Promise<void> {
  await apiClient.post(
    '/settings/discord/test',
    { discord_user_id: userId },
    channelTestResponseSchema,
  );
}

export function useTestDiscordMutation() {
  return useMutation({ mutationKey: ['settings', 'test', 'discord'], mutationFn: testDiscord });
}
