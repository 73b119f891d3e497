import type { ReauthenticateRequest } from '@perch/shared';
import { useCallback, useEffect, useRef, useState } from 'react';
import { apiClient, type ApiClient } from '@/lib/api-client';
import { failureReason } from '@/lib/failure-text';
import { useReauthenticateMutation } from '../api/reauthenticate';

/** The failure line of the dialog when the server gives no words of its own. */
const CONFIRM_FAILED = 'Could not confirm it is you. Please try again.';

export interface StepUp {
  /** A sensitive change waits for the person to confirm it is them. */
  open: boolean;
  /** Sends the proof; once accepted, the change goes again and the dialog closes. */
  confirm: (proof: ReauthenticateRequest) => void;
  /** Gives up: the change fails with the server's refusal. */
  cancel: () => void;
  pending: boolean;
  /** Why the last proof was refused (a wrong password, too many tries), or null. */
  error: string | null;
}

/**
 * The step-up of sensitive changes (two-factor sign-in, notification channels): while mounted,
 * a change the server refuses with 403 REAUTH_REQUIRED opens the dialog instead of failing, and
 * is sent again once the person has given their password or a code. Changes refused at the same
 * time wait for the one dialog.
 */
export function useStepUp(client: ApiClient = apiClient): StepUp {
  const [waiting, setWaiting] = useState(false);
  const settleRef = useRef<((confirmed: boolean) => void) | null>(null);
  const askedRef = useRef<Promise<boolean> | null>(null);
  const mutation = useReauthenticateMutation();
  const { mutate, reset } = mutation;

  useEffect(() => {
    const onReauthRequired = () => {
      askedRef.current ??= new Promise<boolean>((resolve) => {
        settleRef.current = resolve;
        setWaiting(true);
      });
      return askedRef.current;
    };
    client.configure({ onReauthRequired });
    return () => {
      client.configure({ onReauthRequired: null });
      settleRef.current?.(false);
      settleRef.current = null;
      askedRef.current = null;
    };
  }, [client]);

  const settle = useCallback(
    (confirmed: boolean) => {
      settleRef.current?.(confirmed);
      settleRef.current = null;
      askedRef.current = null;
      setWaiting(false);
      reset();
    },
    [reset],
  );

  const confirm = useCallback(
    (proof: ReauthenticateRequest) => mutate(proof, { onSuccess: () => settle(true) }),
    [mutate, settle],
  );
  const cancel = useCallback(() => settle(false), [settle]);

  return {
    open: waiting,
    confirm,
    cancel,
    pending: mutation.isPending,
    error: mutation.error ? failureReason(mutation.error, CONFIRM_FAILED) : null,
  };
}
