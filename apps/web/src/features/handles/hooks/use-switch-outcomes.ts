import { useCallback, useEffect, useRef, useState } from 'react';
import type { HandleChannel } from '../api/set-handle-notifications';
import type { SwitchRefusal } from '../components/forwarding-notes';
import { ERROR_MESSAGE_MS, SUCCESS_MESSAGE_MS } from '../utils/handle-messages';
import type { ToggleOutcome } from './use-notification-toggles';

/**
 * Where the outcome of a switch goes: beside that switch, in its handle's row, never above the
 * list (a line there would move every switch from under the pointer while the person goes on
 * switching). A refusal stays (one per handle) until it is dismissed or that switch next
 * succeeds; another switch of the handle that succeeds, even answered later, leaves it where it
 * is. A success is said for 3 s (the newest per handle). An outcome without a handle or channel
 * goes to the panel's message line.
 */
export function useSwitchOutcomes(showMessage: (outcome: ToggleOutcome, shownMs: number) => void) {
  const [refusals, setRefusals] = useState<ReadonlyMap<number, SwitchRefusal>>(new Map());
  const [successes, setSuccesses] = useState<ReadonlyMap<number, string>>(new Map());
  const successTimers = useRef(new Map<number, ReturnType<typeof setTimeout>>());
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
  const showSuccess = useCallback((id: number, text: string) => {
    const timers = successTimers.current;
    clearTimeout(timers.get(id));
    setSuccesses((current) => new Map(current).set(id, text));
    timers.set(
      id,
      setTimeout(() => {
        timers.delete(id);
        setSuccesses((current) => {
          const next = new Map(current);
          next.delete(id);
          return next;
        });
      }, SUCCESS_MESSAGE_MS),
    );
  }, []);
  useEffect(() => {
    const timers = successTimers.current;
    return () => {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    };
  }, []);
  const handleToggleOutcome = useCallback(
    (outcome: ToggleOutcome) => {
      if (outcome.handleId !== undefined && outcome.channel) {
        if (outcome.kind === 'error') {
          setRefusal(outcome.handleId, { channel: outcome.channel, text: outcome.text });
          return;
        }
        clearRefusal(outcome.handleId, outcome.channel);
        showSuccess(outcome.handleId, outcome.text);
        return;
      }
      showMessage(outcome, outcome.kind === 'error' ? ERROR_MESSAGE_MS : SUCCESS_MESSAGE_MS);
    },
    [showMessage, setRefusal, clearRefusal, showSuccess],
  );
  return {
    refusalOf: (id: number) => refusals.get(id) ?? null,
    successOf: (id: number) => successes.get(id) ?? null,
    dismiss: (id: number) => clearRefusal(id),
    handleToggleOutcome,
  };
}
