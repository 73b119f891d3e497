import { telegramLinkSchema, type TelegramLink } from '@perch/shared';
import { useMutation } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';

/**
 * POST /settings/telegram/link: a one-time `t.me/<bot>?start=<code>` link. Opening it and
 * pressing Start links that chat to this user; the server sees it through the bot's updates.
 */
export function createTelegramLink(): Promise<TelegramLink> {
  return apiClient.post('/settings/telegram/link', undefined, telegramLinkSchema);
}

export function useCreateTelegramLinkMutation() {
  return useMutation({
    mutationKey: ['settings', 'telegram-link'],
    mutationFn: createTelegramLink,
  });
}
