import {
  MAX_HANDLES_PER_USER,
  handleInputSchema,
  isTemporaryHandleId,
  normalizeHandle,
  type Handle,
} from '@perch/shared';
import { ApiError } from '@/lib/api-client';
import { INVALID_HANDLE_ID_CODE } from '../api/remove-handle';

/** How long an inline message of the handle actions shows: a success 3 s, an error 7 s. */
export const SUCCESS_MESSAGE_MS = 3_000;
export const ERROR_MESSAGE_MS = 7_000;
/** How long '@x data collection completed!' shows when the Collecting overlay comes off. */
export const COMPLETED_MESSAGE_MS = 5_000;

/** Texts of the handle actions (docs/spec-notes.md, Error texts). */
export const HANDLE_TEXTS = {
  inputPlaceholder: 'Enter handle without @',
  invalidHandle: 'Invalid Twitter handle provided',
  limitReached: `Handle limit reached (${MAX_HANDLES_PER_USER})`,
  addFailed: 'Failed to add handle',
  removeFailed: 'Failed to remove handle - please try again',
  /** The demo panel's own removal fallback, without the cross mark of the handle panel. */
  demoRemoveFailed: 'Failed to remove handle',
  removeConfirm: 'Are you sure you want to remove this handle?',
  alreadyMonitoring: (name: string) => `Already monitoring @${name}`,
  alreadyAdding: (name: string) => `Already adding @${name}`,
  added: (name: string) => `@${name} added successfully!`,
  removed: (name: string) => `@${name} removed.`,
  completed: (name: string) => `@${name} data collection completed!`,
  /** The Webhooks switch's fallback, worded as the Telegram and Discord switches' ones. */
  webhookToggleFailed: 'Failed to toggle webhook notification',
} as const;

/** The name a handle entry is known by. */
export function handleName(handle: Pick<Handle, 'handle'>): string {
  return handle.handle;
}

/** The entry with this name (case-insensitive), if any. */
export function findHandle(handles: readonly Handle[], name: string): Handle | undefined {
  const wanted = normalizeHandle(name).toLowerCase();
  if (!wanted) return undefined;
  return handles.find((entry) => entry.handle.toLowerCase() === wanted);
}

/** The live hint under the input: 'Already monitoring @x' or 'Already adding @x', or null. */
export function duplicateHint(handles: readonly Handle[], input: string): string | null {
  const existing = findHandle(handles, input);
  if (!existing) return null;
  return isTemporaryHandleId(existing.id)
    ? HANDLE_TEXTS.alreadyAdding(existing.handle)
    : HANDLE_TEXTS.alreadyMonitoring(existing.handle);
}

/** Why the input cannot be added, checked before any call; null when it may be sent. */
export function addBlocker(handles: readonly Handle[], input: string): string | null {
  const duplicate = duplicateHint(handles, input);
  if (duplicate) return duplicate;
  if (handles.length >= MAX_HANDLES_PER_USER) return HANDLE_TEXTS.limitReached;
  if (!handleInputSchema.safeParse(input).success) return HANDLE_TEXTS.invalidHandle;
  return null;
}

/** The text of a failed add: 409 is 'Already monitoring @x', else the server's words. */
export function addErrorText(error: unknown, name: string): string {
  if (error instanceof ApiError) {
    if (error.status === 409) return HANDLE_TEXTS.alreadyMonitoring(normalizeHandle(name));
    return error.serverMessage ?? error.message ?? HANDLE_TEXTS.addFailed;
  }
  return HANDLE_TEXTS.addFailed;
}

/** Why the server (or the id guard) refused a removal, when it said so. */
function removeRefusal(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  return error.serverMessage ?? (error.code === INVALID_HANDLE_ID_CODE ? error.message : undefined);
}

/** The text of a failed removal, with the spec's cross mark. */
export function removeErrorText(error: unknown): string {
  return `❌ ${removeRefusal(error) ?? HANDLE_TEXTS.removeFailed}`;
}

/** The demo panel's text of a failed removal: the server's words or 'Failed to remove handle'. */
export function demoRemoveErrorText(error: unknown): string {
  return removeRefusal(error) ?? HANDLE_TEXTS.demoRemoveFailed;
}
