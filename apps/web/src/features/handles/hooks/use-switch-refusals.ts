import { useCallback, useState } from 'react';
import type { HandleChannel } from '../api/set-handle-notifications';
import type { SwitchRefusal } from '../components/forwarding-notes';
import { ERROR_MESSAGE_MS, SUCCESS_MESSAGE_MS } from '../utils/handle-messages';
import type { ToggleOutcome } from './use-notification-toggles';

/**
 * Where the outcome of a switch goes: a refusal beside that switch (one per handle, until it is
 * dismissed or that switch next succeeds), anything else to the panel's message line. Another
 * switch of the handle that succeeds, even answered later, leaves the refusal where it is.
 */
export function useSwitchRefusals(showMessage: (outcome: ToggleOutcome, shownMs: number) => void) {
  const [refusals, setRefusals] = useState<ReadonlyMap<number, SwitchRefusal>>(new Map());
  const setRefusal = useCallback((id: number, refusal: SwitchRefusal) => {
    setRefusals((current) => new Map(current).set(id, refusal));
  }, []);
  /** Takes the handle's refusal away (only when it is `channel`'s, if given). */
  const clearRefusal = useCallback((id: number, channel?: HandleChannel) => {
    setRefusals((current) => {
      const shown = current.get(id);
      if (!shown || (channel && shown.channel !== channel)) return current;
      const next = new Map(current);
      next.delete(id);
      return next;
    });
  }, []);
  const handleToggleOutcome = useCallback(
    (outcome: ToggleOutcome) => {
      if (outcome.handleId !== undefined && outcome.channel) {
        if (outcome.kind === 'error') {
          setRefusal(outcome.handleId, { channel: outcome.channel, text: outcome.text });
          return;
        }
        clearRefusal(outcome.handleId, outcome.channel);
      }
      showMessage(outcome, outcome.kind === 'error' ? ERROR_MESSAGE_MS : SUCCESS_MESSAGE_MS);
    },
    [showMessage, setRefusal, clearRefusal],
  );
  return {
    refusalOf: (id: number) => refusals.get(id) ?? null,
    dismiss: (id: number) => clearRefusal(id),
    handleToggleOutcome,
  };
}
