import {
  DEFAULT_BACKFILL_DAYS,
  MAX_HANDLES_PER_USER,
  handleInputSchema,
  normalizeHandle,
  type Handle,
} from '@perch/shared';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '@/lib/api-client';
import type { TimedMessage } from '@/lib/use-timed-message';
import { useAddHandleMutation } from '../api/add-handle';
import { handleKeys } from '../api/handle-keys';
import { DEMO_TEXTS, demoBackfillDays } from '../utils/demo-handle';
import { HANDLE_TEXTS, addErrorText, findHandle } from '../utils/handle-messages';

/** After an add the list is fetched at once and again this much later. */
export const DEMO_REFETCH_AFTER_ADD_MS = 1_000;

export interface UseDemoAddHandleFormOptions {
  handles: readonly Handle[];
  /** Shows the outcome of an add. */
  onMessage: (message: TimedMessage) => void;
  /** Called when the add is sent, with the name (the panel records activity and selects it). */
  onAdding: (name: string) => void;
}

/** The text of a failed demo add: 'Handle already exists' on a 409, else the server's words. */
export function demoAddErrorText(error: unknown, name: string): string {
  if (error instanceof ApiError && error.status === 409) return DEMO_TEXTS.alreadyExists;
  return addErrorText(error, name);
}

/**
 * The demo panel's add form: the handle, the backfill days (1 to 90, 15 when left empty), the
 * demo's limit and duplicate texts, and the shared optimistic add of the handles feature.
 */
export function useDemoAddHandleForm({
  handles,
  onMessage,
  onAdding,
}: UseDemoAddHandleFormOptions) {
  const [input, setInput] = useState('');
  const [days, setDays] = useState<number | string>(DEFAULT_BACKFILL_DAYS);
  const addMutation = useAddHandleMutation();
  const queryClient = useQueryClient();
  const refetchTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => () => clearTimeout(refetchTimer.current), []);

  const name = normalizeHandle(input);
  const atLimit = handles.length >= MAX_HANDLES_PER_USER;
  const duplicate = name !== '' && findHandle(handles, name) !== undefined;
  const canSubmit = name !== '' && !atLimit && !duplicate && !addMutation.isPending;

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (name === '' || addMutation.isPending) return;
    const blocker = atLimit
      ? DEMO_TEXTS.limitReached
      : duplicate
        ? DEMO_TEXTS.alreadyExists
        : handleInputSchema.safeParse(name).success
          ? null
          : HANDLE_TEXTS.invalidHandle;
    if (blocker) {
      onMessage({ kind: 'error', text: blocker });
      return;
    }
    setInput('');
    addMutation.mutate(
      { username: name, backfillDays: demoBackfillDays(days) },
      {
        onSuccess: (handle) => {
          onMessage({ kind: 'success', text: HANDLE_TEXTS.added(handle.handle) });
          clearTimeout(refetchTimer.current);
          refetchTimer.current = setTimeout(
            () => void queryClient.invalidateQueries({ queryKey: handleKeys.list }),
            DEMO_REFETCH_AFTER_ADD_MS,
          );
        },
        onError: (error) => onMessage({ kind: 'error', text: demoAddErrorText(error, name) }),
      },
    );
    onAdding(name);
  };

  return {
    input,
    setInput,
    days,
    setDays,
    atLimit,
    duplicate,
    canSubmit,
    isAdding: addMutation.isPending,
    handleSubmit,
  };
}
