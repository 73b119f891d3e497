import { Divider } from '@mantine/core';
import { SETTINGS_MESSAGES, telegramChatIdSchema, type Settings } from '@perch/shared';
import { IconBrandTelegram } from '@tabler/icons-react';
import { useTestTelegramMutation } from '../api/test-telegram';
import { schemaCheck, useChannelId } from '../hooks/use-channel-id';
import { reportOnBanners, type SettingsNotifier } from '../hooks/use-settings-banners';
import { useTelegramLink } from '../hooks/use-telegram-link';
import { SETTINGS_TEXTS, telegramTestErrorText } from '../utils/settings-messages';
import { MessengerCard } from './messenger-card';
import { OneClickLink } from './telegram-one-click-link';

export interface TelegramCardProps {
  settings: Settings;
  /** Outcomes go to the page's banners. */
  notify: SettingsNotifier;
}

/** The chat id rule: the normalised id, or the text saying what is wrong. */
const checkChatId = schemaCheck(telegramChatIdSchema, SETTINGS_MESSAGES.telegramChatIdRequired);

/**
 * The Telegram card: connected (the chat id with Change, Test and
 * Disconnect) or the form (Chat ID, Save, Test, Cancel only when connected), plus one-click
 * linking through the bot when the server offers it, and the reason delivery stopped.
 */
export function TelegramCard({ settings, notify }: TelegramCardProps) {
  const testMutation = useTestTelegramMutation();
  const { telegram } = settings;
  const connected = settings.telegramConnected && settings.telegram_chat_id !== null;
  const channel = useChannelId({
    field: 'telegram_chat_id',
    stored: settings.telegram_chat_id,
    check: checkChatId,
    texts: {
      saved: SETTINGS_MESSAGES.telegramSaved,
      saveFailed: SETTINGS_MESSAGES.telegramSaveFailed,
      disconnected: SETTINGS_MESSAGES.telegramDisconnected,
      disconnectFailed: () => SETTINGS_MESSAGES.telegramDisconnectFailed,
    },
    report: reportOnBanners(notify),
    test: {
      send: testMutation.mutateAsync,
      succeeded: SETTINGS_MESSAGES.telegramTestSuccess,
      failed: (error) => ({ text: telegramTestErrorText(error) }),
    },
  });
  const oneClick = useTelegramLink({
    settings,
    onLinked: (chatId) => {
      channel.editor.done();
      notify.success(SETTINGS_MESSAGES.telegramLinkConnected(chatId));
    },
    onError: (error) => notify.error(telegramTestErrorText(error)),
  });

  const handleCancel = () => {
    channel.editor.cancel();
    oneClick.cancel();
  };

  return (
    <MessengerCard
      title="Telegram"
      icon={IconBrandTelegram}
      color="blue"
      description="Messages from the Perch bot"
      testId="telegram-card"
      status={telegram}
      unavailableText={SETTINGS_MESSAGES.telegramUnavailable}
      valueLabel="Chat ID"
      value={settings.telegram_chat_id}
      channel={channel}
      connected={connected}
      field={{
        label: SETTINGS_TEXTS.telegramChatIdLabel,
        description: SETTINGS_TEXTS.telegramChatIdHelp(telegram.botUsername),
        placeholder: 'e.g. 123456789',
        inputMode: 'numeric',
      }}
      onCancel={handleCancel}
      afterForm={
        telegram.linkAvailable ? (
          <>
            <Divider label="or" labelPosition="center" />
            <OneClickLink
              botUsername={telegram.botUsername}
              link={oneClick.link}
              expired={oneClick.expired}
              creating={oneClick.isCreating}
              onCreate={oneClick.create}
              onCancel={oneClick.cancel}
            />
          </>
        ) : null
      }
    />
  );
}
