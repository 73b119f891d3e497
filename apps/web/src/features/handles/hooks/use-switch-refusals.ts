import { useCallback, useState } from 'react';
import type { SwitchRefusal } from '../components/forwarding-notes';
import { ERROR_MESSAGE_MS, SUCCESS_MESSAGE_MS } from '../utils/handle-messages';
import type { ToggleOutcome } from './use-notification-toggles';

/**
 * Where the outcome of a switch goes: a refusal beside that switch (one per handle, until it is
 * dismissed or the switch next succeeds), anything else to the panel's message line.
 */
export function useSwitchRefusals(showMessage: (outcome: ToggleOutcome, shownMs: number) => void) {
  const [refusals, setRefusals] = useState<ReadonlyMap<number, SwitchRefusal>>(new Map());
  const setRefusal = useCallback((id: number, refusal: SwitchRefusal | null) => {
    setRefusals((current) => {
      if (!refusal && !current.has(id)) return current;
      const next = new Map(current);
      if (refusal) next.set(id, refusal);
      else next.delete(id);
      return next;
    });
  }, []);
  const handleToggleOutcome = useCallback(
    (outcome: ToggleOutcome) => {
      if (outcome.handleId !== undefined && outcome.channel) {
        setRefusal(
          outcome.handleId,
          outcome.kind === 'error' ? { channel: outcome.channel, text: outcome.text } : null,
        );
        if (outcome.kind === 'error') return;
      }
      showMessage(outcome, outcome.kind === 'error' ? ERROR_MESSAGE_MS : SUCCESS_MESSAGE_MS);
    },
    [showMessage, setRefusal],
  );
  return {
    refusalOf: (id: number) => refusals.get(id) ?? null,
    dismiss: (id: number) => setRefusal(id, null),
    handleToggleOutcome,
  };
}
