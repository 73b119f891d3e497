import { useEffect, useEffectEvent, useState } from 'react';
import {
  INITIAL_OVERLAY_STATE,
  nextOverlayDeadline,
  nextOverlayState,
  type OverlayInput,
  type OverlayState,
} from '../utils/collecting-overlay';

/**
 * Runs the collecting overlay's state machine for the selected handle: it re-evaluates when the
 * inputs change and when a deadline passes (the 60 s forced clear, the end of the 5 s notice),
 * and calls `onCompleted` once each time a collection completes.
 */
export function useCollectingOverlay(
  input: Omit<OverlayInput, 'now'>,
  onCompleted?: (handle: string) => void,
): OverlayState {
  const { handle, record, progress, hasData } = input;
  const [state, setState] = useState<OverlayState>(INITIAL_OVERLAY_STATE);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    setState((previous) =>
      nextOverlayState(previous, { handle, record, progress, hasData, now: Date.now() }),
    );
  }, [handle, record, progress, hasData, tick]);

  useEffect(() => {
    const deadline = nextOverlayDeadline(state);
    if (deadline === null) return;
    const timer = setTimeout(
      () => setTick((count) => count + 1),
      Math.max(0, deadline - Date.now()),
    );
    return () => clearTimeout(timer);
  }, [state]);

  const announce = useEffectEvent((name: string) => onCompleted?.(name));
  const { completedAt, handle: stateHandle } = state;
  useEffect(() => {
    if (completedAt !== null && stateHandle !== null) announce(stateHandle);
  }, [completedAt, stateHandle]);

  // Until the effect has run for a newly selected handle, nothing of the previous one shows.
  const key = handle?.toLowerCase() ?? null;
  return state.handle === key ? state : { ...INITIAL_OVERLAY_STATE, handle: key };
}
