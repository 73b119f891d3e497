import type { UseMutationResult } from '@tanstack/react-query';
import { useState } from 'react';
import { failureReason } from '@/lib/failure-text';
import { useAdminNotifier } from './use-admin-banner';

export interface ConfirmedActionOptions<T, V, R> {
  /** What the mutation is sent for the confirmed target; null sends nothing. */
  variables: (target: T) => V | null;
  /** The success banner's text when the server's answer has no message of its own. */
  successText: (target: T, answer: R) => string;
  /** The error banner's text. */
  failureText: (target: T) => string;
  /** Why it failed when the server does not say (the spec's client fallback). */
  failureFallback: (target: T) => string;
}

export interface ConfirmedAction<T> {
  /** The target waiting for an answer to the question; null while none is asked. */
  pending: T | null;
  /** Asks whether to act on the target. */
  ask: (target: T) => void;
  /** Leaves everything as it was. */
  cancel: () => void;
  /** Sends the action for the pending target and reports the outcome on the page's banner. */
  confirm: () => void;
}

/** An admin action behind a confirmation, whose outcome is reported on the page's banner. */
export function useConfirmedAction<T, V, R extends { message?: string }>(
  mutation: Pick<UseMutationResult<R, Error, V>, 'mutate'>,
  { variables, successText, failureText, failureFallback }: ConfirmedActionOptions<T, V, R>,
): ConfirmedAction<T> {
  const notify = useAdminNotifier();
  const [pending, setPending] = useState<T | null>(null);

  const confirm = () => {
    const target = pending;
    setPending(null);
    if (target === null) return;
    const input = variables(target);
    if (input === null) return;
    mutation.mutate(input, {
      onSuccess: (answer) => notify.success(answer.message ?? successText(target, answer)),
      onError: (error) =>
        notify.error(failureText(target), failureReason(error, failureFallback(target))),
    });
  };

  return {
    pending,
    ask: (target) => setPending(() => target),
    cancel: () => setPending(null),
    confirm,
  };
}
