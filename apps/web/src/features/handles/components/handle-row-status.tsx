import { Box, Group, Progress, Text } from '@mantine/core';
import { IconCircleCheck } from '@tabler/icons-react';
import { clampProgress, type ForwardingSettings, type Handle } from '@perch/shared';
import { HandleStatusBadge } from './handle-status-badge';
import { blockedChannels, forwardingNoteId } from './forwarding-notes';
import { NotificationSwitches, type NotificationSwitchesProps } from './notification-switches';

export interface HandleRowStatusProps {
  handle: Handle;
  /** The handle with its latest progress folded in, for the badge. */
  live: Handle;
  /** Still being added: its switches wait for the server's record. */
  temporary: boolean;
  notifications: Pick<NotificationSwitchesProps, 'isBusy' | 'onToggle'>;
  /** The user's settings: a switch that cannot deliver points at the note saying why. */
  forwarding: ForwardingSettings | undefined;
}

/** A row's collection badge and its Telegram, Discord and Webhooks switches. */
export function HandleRowStatus({
  handle,
  live,
  temporary,
  notifications,
  forwarding,
}: HandleRowStatusProps) {
  const blocked = blockedChannels(handle, forwarding);
  // A reason shared by both switches is written once: both point at that one note.
  const describedBy: NotificationSwitchesProps['describedBy'] = (channel) => {
    const text = blocked.find((note) => note.channel === channel)?.text;
    const first = blocked.find((note) => note.text === text);
    return first ? forwardingNoteId(handle.id, first.channel) : undefined;
  };
  return (
    <Group mt={6} justify="space-between" gap="xs" wrap="wrap">
      <Box>
        <HandleStatusBadge handle={live} />
      </Box>
      <NotificationSwitches
        handle={handle}
        disabled={temporary}
        isBusy={notifications.isBusy}
        onToggle={notifications.onToggle}
        describedBy={describedBy}
      />
    </Group>
  );
}

/** The bar of a handle being collected, under its row. */
export function HandleRowProgress({ handle, live }: { handle: Handle; live: Handle }) {
  return (
    <Progress
      mt="xs"
      size="sm"
      value={clampProgress(live.backfill_progress)}
      animated
      striped
      aria-label={`Backfill progress for @${handle.handle}`}
    />
  );
}

/** '@x data collection completed!' where the bar was, for a few seconds after it comes off. */
export function HandleRowCompleted({ text }: { text: string }) {
  return (
    <Group mt="xs" gap={6} wrap="nowrap" c="green" role="status" data-testid="handle-completed">
      <IconCircleCheck size={16} aria-hidden />
      <Text size="sm" c="inherit">
        {text}
      </Text>
    </Group>
  );
}
