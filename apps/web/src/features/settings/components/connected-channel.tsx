import { Button, Group, type MantineColor } from '@mantine/core';
import type { ChannelId } from '../hooks/use-channel-id';
import { TestButton } from './id-form';
import { SavedId } from './saved-id';

export interface ConnectedChannelProps {
  /** 'Chat ID', 'User ID'. */
  label: string;
  value: string;
  color: MantineColor;
  /** The server can reach the service (a bot token is set): Change and Test are offered. */
  available: boolean;
  /** The card's stored value and what it does with it. */
  channel: ChannelId;
}

/** A connected Telegram or Discord channel: its saved id with Disconnect, Change and Test. */
export function ConnectedChannel({
  label,
  value,
  color,
  available,
  channel,
}: ConnectedChannelProps) {
  return (
    <>
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
        <SavedId label={label} value={value} />
        <Button
          variant="subtle"
          color="red.5"
          size="compact-sm"
          onClick={channel.disconnect}
          loading={channel.saving}
        >
          Disconnect
        </Button>
      </Group>
      {available ? (
        <Group gap="xs">
          <Button variant="default" onClick={channel.change}>
            Change
          </Button>
          <TestButton color={color} testing={channel.testing} onTest={channel.testStored} />
        </Group>
      ) : null}
    </>
  );
}
