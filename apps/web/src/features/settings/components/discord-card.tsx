import {
  DISCORD_MESSAGE_CLEAR_MS,
  SETTINGS_MESSAGES,
  discordUserIdSchema,
  type Settings,
} from '@perch/shared';
import { IconBrandDiscord } from '@tabler/icons-react';
import { MessageAlert, type AlertMessage } from '@/components/message-alert';
import { useTimedMessage } from '@/lib/use-timed-message';
import { useTestDiscordMutation } from '../api/test-discord';
import { schemaCheck, useChannelId, type IdCheck } from '../hooks/use-channel-id';
import { SETTINGS_TEXTS, discordTestErrorText } from '../utils/settings-messages';
import { MessengerCard } from './messenger-card';

const checkSavedUserId = schemaCheck(discordUserIdSchema, SETTINGS_MESSAGES.discordUserIdRequired);

/** The Discord user id rule: the trimmed id, or the text saying what is wrong. */
function checkUserId(input: string, forTest: boolean): IdCheck {
  if (forTest && input.trim() === '') {
    return { error: SETTINGS_MESSAGES.discordUserIdRequiredForTest };
  }
  return checkSavedUserId(input);
}

/**
 * The Discord card: connected (the user id with Change, Test and Disconnect)
 * or the form (User ID, Save, Test, Cancel only when connected). Its messages stay in the card
 * and clear after 4 s.
 */
export function DiscordCard({ settings }: { settings: Settings }) {
  const { message, show, clear } = useTimedMessage<AlertMessage>(DISCORD_MESSAGE_CLEAR_MS);
  const testMutation = useTestDiscordMutation();
  const { discord } = settings;
  const connected = settings.discordConnected && settings.discord_user_id !== null;
  const channel = useChannelId({
    field: 'discord_user_id',
    stored: settings.discord_user_id,
    check: checkUserId,
    texts: {
      saved: SETTINGS_MESSAGES.discordSaved,
      saveFailed: SETTINGS_MESSAGES.discordSaveFailed,
      disconnected: SETTINGS_MESSAGES.discordDisconnected,
      disconnectFailed: () => SETTINGS_MESSAGES.discordDisconnectFailed,
    },
    report: show,
    test: {
      send: testMutation.mutateAsync,
      succeeded: SETTINGS_MESSAGES.discordTestSuccess,
      failed: discordTestErrorText,
    },
  });

  return (
    <MessengerCard
      title="Discord"
      icon={IconBrandDiscord}
      color="indigo"
      description="Direct messages from the Perch bot"
      testId="discord-card"
      status={discord}
      unavailableText={SETTINGS_MESSAGES.discordUnavailable}
      valueLabel="User ID"
      value={settings.discord_user_id}
      channel={channel}
      connected={connected}
      field={{
        label: SETTINGS_TEXTS.discordUserIdLabel,
        description: SETTINGS_TEXTS.discordUserIdHelp,
        placeholder: 'e.g. 123456789012345678',
        inputMode: 'numeric',
      }}
      footer={<MessageAlert message={message} onDismiss={clear} testId="discord-message" />}
    />
  );
}
