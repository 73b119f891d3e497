import { Anchor, CloseButton, Group, Stack, Text } from '@mantine/core';
import {
  forwardingBlocker,
  webhookForwardingBlocker,
  type ForwardingSettings,
  type Handle,
} from '@perch/shared';
import {
  IconAlertCircle,
  IconAlertTriangle,
  IconCircleCheck,
  type Icon,
} from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { notifiesOn, type HandleChannel } from '../api/set-handle-notifications';

const CHANNELS: readonly HandleChannel[] = ['telegram', 'discord', 'webhook'];

/** Why a channel's new posts cannot arrive now, or null. */
const blockerOf = (settings: ForwardingSettings, channel: HandleChannel) =>
  channel === 'webhook' ? webhookForwardingBlocker(settings) : forwardingBlocker(settings, channel);

/** A refused switch of one handle: the channel and the server's reason. */
export interface SwitchRefusal {
  channel: HandleChannel;
  text: string;
}

/** The id of a switch's note, for the switch's aria-describedby. */
export const forwardingNoteId = (handleId: number, channel: HandleChannel) =>
  `forwarding-note-${handleId}-${channel}`;

/** The notes of the channels of `handle` that are switched on but cannot deliver. */
export function blockedChannels(
  handle: Handle,
  settings: ForwardingSettings | undefined,
): { channel: HandleChannel; text: string }[] {
  if (!settings) return [];
  return CHANNELS.flatMap((channel) => {
    const text = notifiesOn(handle, channel) ? blockerOf(settings, channel) : null;
    return text ? [{ channel, text }] : [];
  });
}

function SettingsLink() {
  return (
    <Anchor component={Link} to="/settings" size="xs" fw={600} style={{ whiteSpace: 'nowrap' }}>
      Open Settings
    </Anchor>
  );
}

/**
 * One note: an icon and the text in the note's colour, the way to Settings (unless `settled`:
 * nothing is left to do there), then `children`.
 */
function NoteLine({
  icon: NoteIcon,
  color,
  text,
  settled = false,
  children,
  ...line
}: {
  icon: Icon;
  color: 'red' | 'yellow' | 'green';
  text: string;
  settled?: boolean;
  children?: ReactNode;
  id?: string;
  role?: string;
  'data-testid': string;
}) {
  return (
    <Group gap={6} wrap="nowrap" align="flex-start" {...line}>
      <NoteIcon
        size={14}
        color={`var(--mantine-color-${color}-5)`}
        aria-hidden
        style={{ flexShrink: 0, marginTop: 2 }}
      />
      <Text size="xs" c={`${color}.4`} style={{ flex: 1 }}>
        {text}
        {settled ? null : (
          <>
            {' '}
            <SettingsLink />
          </>
        )}
      </Text>
      {children}
    </Group>
  );
}

export interface ForwardingNotesProps {
  handle: Handle;
  /** The user's settings; until they load, nothing is said. */
  settings: ForwardingSettings | undefined;
  /** The last refused switch of this handle, shown beside the switches. */
  refusal?: SwitchRefusal | null;
  onDismissRefusal?: () => void;
  /** What the last switch of this handle that succeeded did, for a few seconds. */
  success?: string | null;
}

/**
 * Under a handle's switches: what a switch just did, why a switch that is on will not deliver
 * ('Connect your X account in Settings to receive notifications'), and a refused switch's
 * reason, the last two with the way to Settings. Nothing when every switched-on channel
 * delivers and no switch was just used.
 */
export function ForwardingNotes({
  handle,
  settings,
  refusal,
  onDismissRefusal,
  success,
}: ForwardingNotesProps) {
  const blocked = blockedChannels(handle, settings);
  if (blocked.length === 0 && !refusal && !success) return null;
  // Switches blocked for the same reason (no X account) say it once.
  const notes = blocked.filter(
    (note, index) => blocked.findIndex((other) => other.text === note.text) === index,
  );
  return (
    <Stack gap={4} mt={6} data-testid="forwarding-notes">
      {success ? (
        <NoteLine
          icon={IconCircleCheck}
          color="green"
          text={success}
          settled
          role="status"
          data-testid="switch-success"
        />
      ) : null}
      {refusal ? (
        <NoteLine
          icon={IconAlertCircle}
          color="red"
          text={refusal.text}
          role="alert"
          data-testid="switch-refusal"
        >
          {onDismissRefusal ? (
            <CloseButton size="xs" aria-label="Dismiss" onClick={onDismissRefusal} />
          ) : null}
        </NoteLine>
      ) : null}
      {notes.map((note) => (
        <NoteLine
          key={note.channel}
          icon={IconAlertTriangle}
          color="yellow"
          text={note.text}
          id={forwardingNoteId(handle.id, note.channel)}
          data-testid="forwarding-reason"
        />
      ))}
    </Stack>
  );
}
