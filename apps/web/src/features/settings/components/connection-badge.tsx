import { Badge } from '@mantine/core';

export type ConnectionState = 'connected' | 'not-connected' | 'unavailable' | 'stopped';

const LOOK: Record<ConnectionState, { label: string; color: string; variant: string }> = {
  connected: { label: 'Connected', color: 'green', variant: 'light' },
  'not-connected': { label: 'Not connected', color: 'gray', variant: 'outline' },
  unavailable: { label: 'Unavailable', color: 'orange', variant: 'light' },
  stopped: { label: 'Stopped', color: 'red', variant: 'light' },
};

/** The state of a channel or account, next to its card's title. */
export function ConnectionBadge({ state }: { state: ConnectionState }) {
  const look = LOOK[state];
  return (
    <Badge
      color={look.color}
      variant={look.variant}
      size="md"
      radius="sm"
      tt="none"
      style={{ flexShrink: 0 }}
      data-testid="connection-state"
    >
      {look.label}
    </Badge>
  );
}

/** Which badge a channel gets from what the server says about it. */
export function channelState(channel: {
  available: boolean;
  connected: boolean;
  stoppedReason: string | null;
}): ConnectionState {
  if (!channel.available) return 'unavailable';
  if (!channel.connected) return 'not-connected';
  return channel.stoppedReason ? 'stopped' : 'connected';
}
