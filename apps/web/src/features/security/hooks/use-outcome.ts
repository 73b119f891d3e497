import { SUCCESS_BANNER_MS } from '@perch/shared';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';

export interface Outcome {
  kind: 'success' | 'error';
  text: string;
  /** A second, smaller line: why it failed, in the server's words. */
  details?: string;
}

export interface OutcomeState {
  outcome: Outcome | null;
  success: (text: string) => void;
  error: (text: string, details?: string) => void;
  dismiss: () => void;
}

/**
 * The outcome of a card's last action: a success leaves by itself after 5 s, an
 * error stays until dismissed or replaced.
 */
export function useOutcome(): OutcomeState {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const stopTimer = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
  }, []);

  useEffect(() => stopTimer, [stopTimer]);

  const dismiss = useCallback(() => {
    stopTimer();
    setOutcome(null);
  }, [stopTimer]);

  const success = useCallback(
    (text: string) => {
      stopTimer();
      setOutcome({ kind: 'success', text });
      timer.current = setTimeout(() => {
        timer.current = null;
        setOutcome(null);
      }, SUCCESS_BANNER_MS);
    },
    [stopTimer],
  );

  const error = useCallback(
    (text: string, details?: string) => {
      stopTimer();
      setOutcome({ kind: 'error', text, details: details === text ? undefined : details });
    },
    [stopTimer],
  );

  return useMemo(() => ({ outcome, success, error, dismiss }), [outcome, success, error, dismiss]);
}
