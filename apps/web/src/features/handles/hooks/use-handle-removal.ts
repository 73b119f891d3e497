import type { Handle } from '@perch/shared';
import { useState } from 'react';
import type { TimedMessage } from '@/lib/use-timed-message';
import { useRemoveHandleMutation } from '../api/remove-handle';
import {
  ERROR_MESSAGE_MS,
  HANDLE_TEXTS,
  SUCCESS_MESSAGE_MS,
  removeErrorText,
} from '../utils/handle-messages';

export interface HandleRemovalOptions {
  /** The handles as listed. */
  list: readonly Handle[];
  /** The selected handle's lower-case name, or null. */
  selected: string | null;
  onSelect: (handle: string | null) => void;
  showMessage: (message: TimedMessage, shownMs: number) => void;
}

/**
 * Removal behind a confirmation: the handle waiting for it and, once confirmed, the removal.
 * A removed selection moves to the first remaining handle (or none), and back if the server
 * refuses.
 */
export function useHandleRemoval({ list, selected, onSelect, showMessage }: HandleRemovalOptions) {
  const removeMutation = useRemoveHandleMutation();
  const [pending, setPending] = useState<Handle | null>(null);

  const confirm = () => {
    const target = pending;
    setPending(null);
    if (!target) return;
    const remaining = list.filter((entry) => entry.id !== target.id);
    const wasSelected = selected === target.handle.toLowerCase();
    if (wasSelected) onSelect(remaining[0]?.handle ?? null);
    removeMutation.mutate(target, {
      onSuccess: () =>
        showMessage(
          { kind: 'success', text: HANDLE_TEXTS.removed(target.handle) },
          SUCCESS_MESSAGE_MS,
        ),
      onError: (removeError) => {
        if (wasSelected) onSelect(target.handle);
        showMessage({ kind: 'error', text: removeErrorText(removeError) }, ERROR_MESSAGE_MS);
      },
    });
  };

  return { pending, ask: setPending, cancel: () => setPending(null), confirm };
}
