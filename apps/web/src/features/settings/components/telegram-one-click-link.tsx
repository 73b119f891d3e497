import { Button, Group, Loader, Paper, Stack, Text } from '@mantine/core';
import { IconBrandTelegram, IconExternalLink } from '@tabler/icons-react';
import { SETTINGS_TEXTS } from '../utils/settings-messages';

export interface OneClickLinkProps {
  botUsername: string | null;
  link: { url: string; instructions: string } | null;
  expired: boolean;
  creating: boolean;
  onCreate: () => void;
  onCancel: () => void;
}

/** 'Connect with one click': a t.me link to the bot, then a wait for the chat to be linked. */
export function OneClickLink({
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
