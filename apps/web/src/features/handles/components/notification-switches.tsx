import { Group, Switch, Text } from '@mantine/core';
import type { Handle, NotificationChannel } from '@perch/shared';
import { IconBrandDiscord, IconBrandTelegram } from '@tabler/icons-react';
import { notifiesOn } from '../api/set-handle-notifications';

const CHANNELS: {
  channel: NotificationChannel;
  label: string;
  color: string;
  icon: typeof IconBrandTelegram;
}[] = [
  { channel: 'telegram', label: 'Telegram', color: 'blue', icon: IconBrandTelegram },
  { channel: 'discord', label: 'Discord', color: 'indigo', icon: IconBrandDiscord },
];

export interface NotificationSwitchesProps {
  handle: Handle;
  /** A temporary (still being added) handle cannot be switched yet. */
  disabled?: boolean;
  isBusy: (id: number, channel: NotificationChannel) => boolean;
  onToggle: (handle: Handle, channel: NotificationChannel, enabled: boolean) => void;
  /** The id of the note that explains why a switched-on channel cannot deliver, if any. */
  describedBy?: (channel: NotificationChannel) => string | undefined;
}

/** A handle's Telegram and Discord notification switches. */
export function NotificationSwitches({
  handle,
  disabled = false,
  isBusy,
  onToggle,
  describedBy,
}: NotificationSwitchesProps) {
  return (
    <Group gap="sm" wrap="nowrap" data-testid="notification-switches">
      <Text size="xs" c="dimmed" visibleFrom="xs">
        Notify
      </Text>
      {CHANNELS.map(({ channel, label, color, icon: ChannelIcon }) => {
        const checked = notifiesOn(handle, channel);
        return (
          <Switch
            key={channel}
            size="xs"
            color={color}
            checked={checked}
            disabled={disabled}
            aria-busy={isBusy(handle.id, channel) || undefined}
            aria-label={`${label} notifications for @${handle.handle}`}
            aria-describedby={describedBy?.(channel)}
            onChange={(event) => onToggle(handle, channel, event.currentTarget.checked)}
            label={
              <Group gap={4} wrap="nowrap">
                <ChannelIcon size={14} aria-hidden />
                <Text size="xs" span>
                  {label}
                </Text>
              </Group>
            }
            styles={{ label: { paddingInlineStart: 6 } }}
          />
        );
      })}
    </Group>
  );
}
