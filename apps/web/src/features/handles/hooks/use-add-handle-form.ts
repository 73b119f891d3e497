import {
  DEFAULT_BACKFILL_DAYS,
  MAX_HANDLES_PER_USER,
  normalizeHandle,
  type Handle,
} from '@perch/shared';
import { useIsMutating } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTimedMessage } from '@/lib/use-timed-message';
import { useAddHandleMutation } from '../api/add-handle';
import { handleMutationKeys } from '../api/handle-keys';
import {
  ERROR_MESSAGE_MS,
  HANDLE_TEXTS,
  SUCCESS_MESSAGE_MS,
  addBlocker,
  addErrorText,
  duplicateHint,
} from '../utils/handle-messages';

export interface UseAddHandleFormOptions {
  handles: readonly Handle[];
  /** Called with the name as soon as the optimistic entry exists (the dashboard switches to it). */
  onAdding?: (name: string) => void;
}

/**
 * State and rules of an add-handle form: the input, the backfill period, the live duplicate
 * hint, when Add is disabled (empty, 10 handles, an action running) and the timed messages.
 */
export function useAddHandleForm({ handles, onAdding }: UseAddHandleFormOptions) {
  const [input, setInput] = useState('');
  const [backfillDays, setBackfillDays] = useState<number>(DEFAULT_BACKFILL_DAYS);
  const { message, show, clear } = useTimedMessage();
  const addMutation = useAddHandleMutation();
  const handleActionsRunning = useIsMutating({ mutationKey: handleMutationKeys.listChanges }) > 0;

  const name = normalizeHandle(input);
  const hint = duplicateHint(handles, input);
  const atLimit = handles.length >= MAX_HANDLES_PER_USER;
  const canSubmit = name !== '' && !atLimit && !handleActionsRunning;

  const submit = (rawName: string = input) => {
    const target = normalizeHandle(rawName);
    if (target === '') return;
    const blocker = addBlocker(handles, rawName);
    if (blocker) {
      show({ kind: 'error', text: blocker }, ERROR_MESSAGE_MS);
      return;
    }
    clear();
    if (rawName === input) setInput('');
    addMutation.mutate(
      { username: target, backfillDays },
      {
        onSuccess: (handle) => {
          show({ kind: 'success', text: HANDLE_TEXTS.added(handle.handle) }, SUCCESS_MESSAGE_MS);
        },
        onError: (error) => {
          show({ kind: 'error', text: addErrorText(error, target) }, ERROR_MESSAGE_MS);
        },
      },
    );
    onAdding?.(target);
  };

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (canSubmit) submit();
  };

  return {
    input,
    setInput,
    backfillDays,
    setBackfillDays,
    hint,
    atLimit,
    canSubmit,
    isAdding: addMutation.isPending,
    busy: handleActionsRunning,
    message,
    showMessage: show,
    clearMessage: clear,
    submit,
    handleSubmit,
  };
}

export type AddHandleFormState = ReturnType<typeof useAddHandleForm>;
