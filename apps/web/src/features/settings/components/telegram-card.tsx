import { Button, Divider, Group, Loader, Paper, Stack, Text } from '@mantine/core';
import { SETTINGS_MESSAGES, telegramChatIdSchema, type Settings } from '@perch/shared';
import { IconBrandTelegram, IconExternalLink } from '@tabler/icons-react';
import type { FormEvent } from 'react';
import { useSaveSettingsMutation } from '../api/save-settings';
import { useTestTelegramMutation } from '../api/test-telegram';
import type { SettingsNotifier } from '../hooks/use-settings-banners';
import { useSingleFlight } from '../hooks/use-single-flight';
import { useTelegramLink } from '../hooks/use-telegram-link';
import { SETTINGS_TEXTS, refusalOr, telegramTestErrorText } from '../utils/settings-messages';
import { ConnectionBadge, channelState } from './connection-badge';
import { ChannelNotices } from './channel-notices';
import { ConnectedChannel } from './connected-channel';
import { IdForm, useIdEditor } from './id-form';
import { SettingsCard } from './settings-card';

export interface TelegramCardProps {
  settings: Settings;
  /** Outcomes go to the page's banners. */
  notify: SettingsNotifier;
}

/** The chat id rule: the normalised id, or the text saying what is wrong. */
function checkChatId(input: string): { chatId: string } | { error: string } {
  const parsed = telegramChatIdSchema.safeParse(input);
  if (parsed.success) return { chatId: parsed.data };
  return { error: parsed.error.issues[0]?.message ?? SETTINGS_MESSAGES.telegramChatIdRequired };
}

/**
 * The Telegram card: connected (the chat id with Change, Test and
 * Disconnect) or the form (Chat ID, Save, Test, Cancel only when connected), plus one-click
 * linking through the bot when the server offers it, and the reason delivery stopped.
 */
export function TelegramCard({ settings, notify }: TelegramCardProps) {
  const editor = useIdEditor();
  const { editing, input } = editor;
  const saveMutation = useSaveSettingsMutation();
  const testMutation = useTestTelegramMutation();
  const testFlight = useSingleFlight();
  const { telegram } = settings;
  const connected = settings.telegramConnected && settings.telegram_chat_id !== null;
  const oneClick = useTelegramLink({
    settings,
    onLinked: (chatId) => {
      editor.done();
      notify.success(SETTINGS_MESSAGES.telegramLinkConnected(chatId));
    },
    onError: (error) => notify.error(telegramTestErrorText(error)),
  });

  const showForm = telegram.available && (!connected || editing);
  const state = channelState({ ...telegram, connected });

  const sendTest = (chatId: string) => {
    testFlight.run(() =>
      testMutation.mutateAsync(chatId).then(
        () => notify.success(SETTINGS_MESSAGES.telegramTestSuccess),
        (error: unknown) => notify.error(telegramTestErrorText(error)),
      ),
    );
  };

  const handleSave = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const checked = checkChatId(input);
    if ('error' in checked) {
      editor.fail(checked.error);
      return;
    }
    saveMutation.mutate(
      { telegram_chat_id: checked.chatId },
      {
        onSuccess: () => {
          editor.done();
          notify.success(SETTINGS_MESSAGES.telegramSaved);
        },
        onError: (error) => notify.error(refusalOr(error, SETTINGS_MESSAGES.telegramSaveFailed)),
      },
    );
  };

  const handleFormTest = () => {
    const checked = checkChatId(input);
    if ('error' in checked) {
      editor.fail(checked.error);
      return;
    }
    sendTest(checked.chatId);
  };

  const handleDisconnect = () => {
    saveMutation.mutate(
      { telegram_chat_id: '' },
      {
        onSuccess: () => {
          editor.done();
          notify.success(SETTINGS_MESSAGES.telegramDisconnected);
        },
        onError: () => notify.error(SETTINGS_MESSAGES.telegramDisconnectFailed),
      },
    );
  };

  const handleChange = () => editor.start(settings.telegram_chat_id ?? '');

  const handleCancel = () => {
    editor.cancel();
    oneClick.cancel();
  };

  return (
    <SettingsCard
      title="Telegram"
      icon={IconBrandTelegram}
      color="blue"
      description="Messages from the Perch bot"
      status={<ConnectionBadge state={state} />}
      testId="telegram-card"
    >
      <Stack gap="md">
        <ChannelNotices
          stoppedReason={telegram.stoppedReason}
          connected={connected}
          available={telegram.available}
          unavailableHint={telegram.hint ?? SETTINGS_MESSAGES.telegramUnavailable}
        />
        {!showForm && connected ? (
          <ConnectedChannel
            label="Chat ID"
            value={settings.telegram_chat_id ?? ''}
            color="blue"
            available={telegram.available}
            disconnecting={saveMutation.isPending}
            testing={testFlight.isRunning}
            onDisconnect={handleDisconnect}
            onChange={handleChange}
            onTest={() => sendTest(settings.telegram_chat_id ?? '')}
          />
        ) : null}
        {showForm ? (
          <>
            <IdForm
              editor={editor}
              onSubmit={handleSave}
              field={{
                label: SETTINGS_TEXTS.telegramChatIdLabel,
                description: SETTINGS_TEXTS.telegramChatIdHelp(telegram.botUsername),
                placeholder: 'e.g. 123456789',
                inputMode: 'numeric',
              }}
              color="blue"
              saving={saveMutation.isPending}
              onTest={handleFormTest}
              testing={testFlight.isRunning}
              onCancel={connected ? handleCancel : undefined}
            />
            {telegram.linkAvailable ? (
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
            ) : null}
          </>
        ) : null}
      </Stack>
    </SettingsCard>
  );
}

interface OneClickLinkProps {
  botUsername: string | null;
  link: { url: string; instructions: string } | null;
  expired: boolean;
  creating: boolean;
  onCreate: () => void;
  onCancel: () => void;
}

/** 'Connect with one click': a t.me link to the bot, then a wait for the chat to be linked. */
function OneClickLink({
  botUsername,
  link,
  expired,
  creating,
  onCreate,
  onCancel,
}: OneClickLinkProps) {
  if (link) {
    return (
      <Paper withBorder radius="md" p="sm" data-testid="telegram-link">
        <Stack gap="xs">
          <Text size="sm">{link.instructions}</Text>
          <Group gap="xs">
            <Button
              component="a"
              href={link.url}
              target="_blank"
              rel="noopener noreferrer"
              leftSection={<IconExternalLink size={16} />}
              color="blue"
            >
              Open Telegram
            </Button>
            <Button variant="subtle" color="gray" onClick={onCancel}>
              Stop waiting
            </Button>
          </Group>
          <Group gap={8} role="status" aria-live="polite">
            <Loader size={14} type="dots" />
            <Text size="xs" c="dimmed">
              {SETTINGS_TEXTS.telegramWaiting}
            </Text>
          </Group>
        </Stack>
      </Paper>
    );
  }
  return (
    <Stack gap={6}>
      <Button
        variant="light"
        color="blue"
        leftSection={<IconBrandTelegram size={16} />}
        loading={creating}
        onClick={onCreate}
      >
        Connect with one click
      </Button>
      <Text size="xs" c="dimmed" ta="center">
        {expired ? (
          SETTINGS_TEXTS.telegramLinkExpired
        ) : (
          <>
            Opens{' '}
            {botUsername ? (
              <Text span inherit fw={600}>
                @{botUsername}
              </Text>
            ) : (
              'the Perch bot'
            )}{' '}
            in Telegram: press Start and this page updates by itself.
          </>
        )}
      </Text>
    </Stack>
  );
}
