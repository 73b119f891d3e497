import { Group, Switch, Text } from '@mantine/core';
import type { Handle } from '@perch/shared';
import { IconBrandDiscord, IconBrandTelegram, IconWebhook, type Icon } from '@tabler/icons-react';
import { notifiesOn, type HandleChannel } from '../api/set-handle-notifications';

const CHANNELS: {
  channel: HandleChannel;
  /** Beside the switch. */
  label: string;
  /** In the switch's accessible name, 'Webhook notifications for @nasa'. */
  name: string;
  color: string;
  icon: Icon;
}[] = [
  {
    channel: 'telegram',
    label: 'Telegram',
    name: 'Telegram',
    color: 'blue',
    icon: IconBrandTelegram,
  },
  {
    channel: 'discord',
    label: 'Discord',
    name: 'Discord',
    color: 'indigo',
    icon: IconBrandDiscord,
  },
  // Cyan, as the per-handle switches of the Webhooks card in Settings.
  { channel: 'webhook', label: 'Webhooks', name: 'Webhook', color: 'cyan', icon: IconWebhook },
];

export interface NotificationSwitchesProps {
  handle: Handle;
  /** A temporary (still being added) handle cannot be switched yet. */
  disabled?: boolean;
  isBusy: (id: number, channel: HandleChannel) => boolean;
  onToggle: (handle: Handle, channel: HandleChannel, enabled: boolean) => void;
  /** The id of the note that explains why a switched-on channel cannot deliver, if any. */
  describedBy?: (channel: HandleChannel) => string | undefined;
}

/**
 * A handle's Telegram, Discord and Webhooks switches. They wrap onto a second line when the row
 * is too narrow for all three (a phone, or a card of the two-column grid), under the first
 * switch rather than under the 'Notify' label.
 */
export function NotificationSwitches({
  handle,
  disabled = false,
  isBusy,
  onToggle,
  describedBy,
}: NotificationSwitchesProps) {
  return (
    <Group gap="sm" wrap="nowrap" align="flex-start" data-testid="notification-switches">
      <Text size="xs" c="dimmed" visibleFrom="xs">
        Notify
      </Text>
      <Group gap="sm" wrap="wrap" miw={0} style={{ rowGap: 6 }}>
        {CHANNELS.map(({ channel, label, name, color, icon: ChannelIcon }) => {
          const checked = notifiesOn(handle, channel);
          return (
            <Switch
              key={channel}
              size="xs"
              color={color}
              checked={checked}
              disabled={disabled}
              aria-busy={isBusy(handle.id, channel) || undefined}
              aria-label={`${name} notifications for @${handle.handle}`}
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
    </Group>
  );
}
