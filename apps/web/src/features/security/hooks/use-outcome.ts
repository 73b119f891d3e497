import { SUCCESS_BANNER_MS } from '@perch/shared';
import { useCallback, useMemo } from 'react';
import { failureReason } from '@/lib/failure-text';
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
  /** An error titled `text`, with why `cause` failed (or `text` again when it does not say). */
  failed: (text: string, cause: unknown) => void;
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

  const failed = useCallback(
    (text: string, cause: unknown) => error(text, failureReason(cause, text)),
    [error],
  );

  return useMemo(
    () => ({ outcome, success, error, failed, dismiss: clear }),
    [outcome, success, error, failed, clear],
  );
}
