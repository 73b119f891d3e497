import { channelTestResponseSchema } from '@perch/shared';
import { useMutation } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';

/** POST /settings/telegram/test: sends a test message to `chatId` (normalised already). */
export async function testTelegram(chatId: string): Promise<void> {
  await apiClient.post('/settings/telegram/test', { chat_id: chatId }, channelTestResponseSchema);
}

export function useTestTelegramMutation() {
  return useMutation({ mutationKey: ['settings', 'test', 'telegram'], mutationFn: testTelegram });
}
