import { SETTINGS_MESSAGES, type Handle, type NotificationChannel } from '@perch/shared';
import { useCallback, useRef, useState } from 'react';
import { refusalText } from '@/lib/failure-text';
import { useSetHandleNotificationsMutation } from '../api/set-handle-notifications';

export interface ToggleOutcome {
  kind: 'success' | 'error';
  text: string;
  /** The handle and channel switched (a refusal is shown beside that switch). */
  handleId?: number;
  channel?: NotificationChannel;
}

const keyOf = (id: number, channel: NotificationChannel) => `${id}:${channel}`;

/** The text of a refused toggle: the server's ('Please connect Telegram in Settings first'). */
export function toggleErrorText(error: unknown, channel: NotificationChannel): string {
  return refusalText(error, SETTINGS_MESSAGES.toggleFailed(channel));
}

/**
 * The per-handle Telegram and Discord switches: optimistic, reverted with the server's reason on
 * failure, and a click on a switch whose request is still in flight is ignored.
 */
export function useNotificationToggles(onOutcome: (outcome: ToggleOutcome) => void) {
  const mutation = useSetHandleNotificationsMutation();
  // The ref answers a double click at once; the state re-renders the busy switches.
  const inFlight = useRef(new Set<string>());
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const { mutateAsync } = mutation;

  const settle = useCallback((key: string) => {
    inFlight.current.delete(key);
    setBusy(new Set(inFlight.current));
  }, []);

  const toggle = useCallback(
    (handle: Handle, channel: NotificationChannel, enabled: boolean): boolean => {
      const key = keyOf(handle.id, channel);
      if (inFlight.current.has(key)) return false;
      inFlight.current.add(key);
      setBusy(new Set(inFlight.current));
      // mutateAsync, not mutate's callbacks: those fire for the latest call only, and two
      // handles may be switched at the same time.
      mutateAsync({ handle, channel, enabled })
        .then(
          (updated) =>
            onOutcome({
              kind: 'success',
              handleId: handle.id,
              channel,
              text: SETTINGS_MESSAGES.toggled(
                channel,
                channel === 'telegram' ? updated.telegram_enabled : updated.discord_enabled,
                updated.handle,
              ),
            }),
          (error: unknown) =>
            onOutcome({
              kind: 'error',
              text: toggleErrorText(error, channel),
              handleId: handle.id,
              channel,
            }),
        )
        .finally(() => settle(key));
      return true;
    },
    [mutateAsync, onOutcome, settle],
  );

  const isBusy = useCallback(
    (id: number, channel: NotificationChannel) => busy.has(keyOf(id, channel)),
    [busy],
  );

  return { toggle, isBusy };
}
