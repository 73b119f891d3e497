import { SETTINGS_MESSAGES, type Handle } from '@perch/shared';
import { useCallback, useRef, useState } from 'react';
import { refusalText } from '@/lib/failure-text';
import {
  notifiesOn,
  useSetHandleNotificationsMutation,
  type HandleChannel,
} from '../api/set-handle-notifications';
import { HANDLE_TEXTS } from '../utils/handle-messages';

export interface ToggleOutcome {
  kind: 'success' | 'error';
  text: string;
  /** The handle and channel switched (a refusal is shown beside that switch). */
  handleId?: number;
  channel?: HandleChannel;
}

const keyOf = (id: number, channel: HandleChannel) => `${id}:${channel}`;

/**
 * The text of a refused toggle: the server's ('Please connect Telegram in Settings first', 'Add
 * a webhook in Settings first.'), or that the switch failed when the server gave no reason.
 */
export function toggleErrorText(error: unknown, channel: HandleChannel): string {
  const fallback =
    channel === 'webhook'
      ? HANDLE_TEXTS.webhookToggleFailed
      : SETTINGS_MESSAGES.toggleFailed(channel);
  return refusalText(error, fallback);
}

/**
 * The per-handle Telegram, Discord and Webhooks switches: optimistic, reverted with the server's
 * reason on failure, and a click on a switch whose request is still in flight is ignored.
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
    (handle: Handle, channel: HandleChannel, enabled: boolean): boolean => {
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
                notifiesOn(updated, channel),
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
    (id: number, channel: HandleChannel) => busy.has(keyOf(id, channel)),
    [busy],
  );

  return { toggle, isBusy };
}
