import { type Settings, type TelegramLink } from '@perch/shared';
import { useEffect, useEffectEvent, useState } from 'react';
import { SETTINGS_FETCH_MIN_GAP_MS } from '@/lib/polling/intervals';
import { useCreateTelegramLinkMutation } from '../api/create-telegram-link';
import { useSettingsQuery } from '../api/get-settings';

interface PendingLink {
  link: TelegramLink;
  /** The chat saved when the link was made: a different one means the link worked. */
  chatIdBefore: string | null;
}

export interface TelegramLinkOptions {
  settings: Settings;
  /** The chat was linked through the bot. */
  onLinked: (chatId: string) => void;
  onError: (error: unknown) => void;
}

/**
 * One-click Telegram: asks for a one-time t.me link, then fetches the settings every 5 s (the
 * minimum gap) until the bot reports the chat linked or the link expires.
 */
export function useTelegramLink({ settings, onLinked, onError }: TelegramLinkOptions) {
  const createMutation = useCreateTelegramLinkMutation();
  const [pending, setPending] = useState<PendingLink | null>(null);
  const [expired, setExpired] = useState(false);
  useSettingsQuery({ pollMs: pending ? SETTINGS_FETCH_MIN_GAP_MS : false });

  const linkedChatId =
    pending && settings.telegram_chat_id && settings.telegram_chat_id !== pending.chatIdBefore
      ? settings.telegram_chat_id
      : null;

  const linked = useEffectEvent((chatId: string) => {
    setPending(null);
    onLinked(chatId);
  });
  useEffect(() => {
    if (linkedChatId) linked(linkedChatId);
  }, [linkedChatId]);

  const expiresAt = pending?.link.expiresAt;
  useEffect(() => {
    if (!expiresAt) return;
    const timer = setTimeout(
      () => {
        setPending(null);
        setExpired(true);
      },
      Math.max(0, Date.parse(expiresAt) - Date.now()),
    );
    return () => clearTimeout(timer);
  }, [expiresAt]);

  return {
    link: pending?.link ?? null,
    expired,
    isCreating: createMutation.isPending,
    create: () => {
      setExpired(false);
      createMutation.mutate(undefined, {
        onSuccess: (link) => setPending({ link, chatIdBefore: settings.telegram_chat_id }),
        onError,
      });
    },
    cancel: () => setPending(null),
  };
}
