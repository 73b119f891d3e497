import { SUCCESS_BANNER_MS } from '@perch/shared';
import { useCallback, useMemo } from 'react';
import { useTimedMessage } from '@/lib/use-timed-message';

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
 * The outcome of a card's last action: a success leaves by itself after 5 s, an error stays
 * until dismissed or replaced.
 */
export function useOutcome(): OutcomeState {
  const { message: outcome, show, clear } = useTimedMessage<Outcome>();

  const success = useCallback(
    (text: string) => show({ kind: 'success', text }, SUCCESS_BANNER_MS),
    [show],
  );

  const error = useCallback(
    (text: string, details?: string) =>
      show({ kind: 'error', text, details: details === text ? undefined : details }),
    [show],
  );

  return useMemo(
    () => ({ outcome, success, error, dismiss: clear }),
    [outcome, success, error, clear],
  );
}
