import { Stack } from '@mantine/core';
import {
  DISCORD_MESSAGE_CLEAR_MS,
  SETTINGS_MESSAGES,
  discordUserIdSchema,
  type Settings,
} from '@perch/shared';
import { IconBrandDiscord } from '@tabler/icons-react';
import type { FormEvent } from 'react';
import { MessageAlert, type AlertMessage } from '@/components/message-alert';
import { useTimedMessage } from '@/lib/use-timed-message';
import { useSaveSettingsMutation } from '../api/save-settings';
import { useTestDiscordMutation } from '../api/test-discord';
import { useSingleFlight } from '../hooks/use-single-flight';
import { SETTINGS_TEXTS, discordTestErrorText, refusalOr } from '../utils/settings-messages';
import { ConnectionBadge, channelState } from './connection-badge';
import { ChannelNotices } from './channel-notices';
import { ConnectedChannel } from './connected-channel';
import { IdForm, useIdEditor } from './id-form';
import { SettingsCard } from './settings-card';

/** The Discord user id rule: the trimmed id, or the text saying what is wrong. */
function checkUserId(input: string, forTest: boolean): { userId: string } | { error: string } {
  if (forTest && input.trim() === '') {
    return { error: SETTINGS_MESSAGES.discordUserIdRequiredForTest };
  }
  const parsed = discordUserIdSchema.safeParse(input);
  if (parsed.success) return { userId: parsed.data };
  return { error: parsed.error.issues[0]?.message ?? SETTINGS_MESSAGES.discordUserIdRequired };
}

/**
 * The Discord card: connected (the user id with Change, Test and Disconnect)
 * or the form (User ID, Save, Test, Cancel only when connected). Its messages stay in the card
 * and clear after 4 s.
 */
export function DiscordCard({ settings }: { settings: Settings }) {
  const editor = useIdEditor();
  const { editing, input } = editor;
  const { message, show, clear } = useTimedMessage<AlertMessage>(DISCORD_MESSAGE_CLEAR_MS);
  const saveMutation = useSaveSettingsMutation();
  const testMutation = useTestDiscordMutation();
  const testFlight = useSingleFlight();
  const { discord } = settings;
  const connected = settings.discordConnected && settings.discord_user_id !== null;
  const showForm = discord.available && (!connected || editing);
  const state = channelState({ ...discord, connected });

  const sendTest = (userId: string) => {
    testFlight.run(() =>
      testMutation.mutateAsync(userId).then(
        () => show({ kind: 'success', text: SETTINGS_MESSAGES.discordTestSuccess }),
        (error: unknown) => show({ kind: 'error', ...discordTestErrorText(error) }),
      ),
    );
  };

  const handleSave = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const checked = checkUserId(input, false);
    if ('error' in checked) {
      editor.fail(checked.error);
      return;
    }
    saveMutation.mutate(
      { discord_user_id: checked.userId },
      {
        onSuccess: () => {
          editor.done();
          show({ kind: 'success', text: SETTINGS_MESSAGES.discordSaved });
        },
        onError: (error) =>
          show({ kind: 'error', text: refusalOr(error, SETTINGS_MESSAGES.discordSaveFailed) }),
      },
    );
  };

  const handleFormTest = () => {
    const checked = checkUserId(input, true);
    if ('error' in checked) {
      editor.fail(checked.error);
      return;
    }
    sendTest(checked.userId);
  };

  const handleDisconnect = () => {
    saveMutation.mutate(
      { discord_user_id: '' },
      {
        onSuccess: () => {
          editor.done();
          show({ kind: 'success', text: SETTINGS_MESSAGES.discordDisconnected });
        },
        onError: () => show({ kind: 'error', text: SETTINGS_MESSAGES.discordDisconnectFailed }),
      },
    );
  };

  const handleChange = () => editor.start(settings.discord_user_id ?? '');

  return (
    <SettingsCard
      title="Discord"
      icon={IconBrandDiscord}
      color="indigo"
      description="Direct messages from the Perch bot"
      status={<ConnectionBadge state={state} />}
      testId="discord-card"
    >
      <Stack gap="md">
        <ChannelNotices
          stoppedReason={discord.stoppedReason}
          connected={connected}
          available={discord.available}
          unavailableHint={discord.hint ?? SETTINGS_MESSAGES.discordUnavailable}
        />
        {!showForm && connected ? (
          <ConnectedChannel
            label="User ID"
            value={settings.discord_user_id ?? ''}
            color="indigo"
            available={discord.available}
            disconnecting={saveMutation.isPending}
            testing={testFlight.isRunning}
            onDisconnect={handleDisconnect}
            onChange={handleChange}
            onTest={() => sendTest(settings.discord_user_id ?? '')}
          />
        ) : null}
        {showForm ? (
          <IdForm
            editor={editor}
            onSubmit={handleSave}
            field={{
              label: SETTINGS_TEXTS.discordUserIdLabel,
              description: SETTINGS_TEXTS.discordUserIdHelp,
              placeholder: 'e.g. 123456789012345678',
              inputMode: 'numeric',
            }}
            color="indigo"
            saving={saveMutation.isPending}
            onTest={handleFormTest}
            testing={testFlight.isRunning}
            onCancel={connected ? editor.cancel : undefined}
          />
        ) : null}
        <MessageAlert message={message} onDismiss={clear} testId="discord-message" />
      </Stack>
    </SettingsCard>
  );
}
