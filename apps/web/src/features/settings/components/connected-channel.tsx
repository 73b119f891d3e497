import { Button, Group, type MantineColor } from '@mantine/core';
import { TestButton } from './id-form';
import { SavedId } from './saved-id';

export interface ConnectedChannelProps {
  /** 'Chat ID', 'User ID'. */
  label: string;
  value: string;
  color: MantineColor;
  /** The server can reach the service (a bot token is set): Change and Test are offered. */
  available: boolean;
  disconnecting: boolean;
  testing: boolean;
  onDisconnect: () => void;
  onChange: () => void;
  onTest: () => void;
}

/** A connected Telegram or Discord channel: its saved id with Disconnect, Change and Test. */
export function ConnectedChannel({
  label,
  value,
  color,
  available,
  disconnecting,
  testing,
  onDisconnect,
  onChange,
  onTest,
}: ConnectedChannelProps) {
  return (
    <>
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
        <SavedId label={label} value={value} />
        <Button
          variant="subtle"
          color="red.5"
          size="compact-sm"
          onClick={onDisconnect}
          loading={disconnecting}
        >
          Disconnect
        </Button>
      </Group>
      {available ? (
        <Group gap="xs">
          <Button variant="default" onClick={onChange}>
            Change
          </Button>
          <TestButton color={color} testing={testing} onTest={onTest} />
        </Group>
      ) : null}
    </>
  );
}
