import {
  DEFAULT_BACKFILL_DAYS,
  handleResponseSchema,
  normalizeHandle,
  type AddHandleRequest,
  type Handle,
} from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { handleKeys, handleMutationKeys } from './handle-keys';

export interface AddHandleInput {
  /** The handle as typed; leading @ signs are removed. */
  username: string;
  backfillDays?: number;
}

/** POST /handles: starts monitoring a handle; the backfill runs in the background. */
export async function addHandle(input: AddHandleInput): Promise<Handle> {
  const body: AddHandleRequest = {
    username: normalizeHandle(input.username),
    backfill_days: input.backfillDays ?? DEFAULT_BACKFILL_DAYS,
    async: true,
  };
  const data = await apiClient.post('/handles', body, handleResponseSchema);
  return data.handle;
}

let lastTemporaryId = 0;

/** A fresh negative id for an optimistic entry: never one the server could issue. */
export function nextTemporaryHandleId(): number {
  lastTemporaryId -= 1;
  return lastTemporaryId;
}

/** The optimistic entry shown while the server call runs (docs/spec-notes.md, Handle actions). */
export function temporaryHandle(id: number, input: AddHandleInput, now = new Date()): Handle {
  const name = normalizeHandle(input.username);
  const at = now.toISOString();
  return {
    id,
    handle: name,
    twitter_username: name,
    username: name,
    created_at: at,
    added_at: at,
    backfill_days: input.backfillDays ?? DEFAULT_BACKFILL_DAYS,
    backfill_status: 'starting',
    backfill_progress: 0,
    initial_backfill_complete: false,
    backfill_completed_at: null,
    estimated_completion: null,
    total_tweets_collected: 0,
    tweets_count: 0,
    analytics_available: false,
    followers_count: null,
    following_count: null,
    tweet_count: null,
    telegram_enabled: false,
    discord_enabled: false,
    last_error: null,
  };
}

interface AddHandleContext {
  previous: Handle[] | undefined;
  temporaryId: number;
}

/**
 * Adds a handle optimistically: a temporary entry appears at once, the server's handle replaces
 * it on success, and the list is rolled back on failure.
 */
export function useAddHandleMutation() {
  const queryClient = useQueryClient();
  return useMutation<Handle, Error, AddHandleInput, AddHandleContext>({
    mutationKey: handleMutationKeys.add,
    mutationFn: addHandle,
    onMutate: async (input) => {
      await queryClient.cancelQueries({ queryKey: handleKeys.list });
      const previous = queryClient.getQueryData<Handle[]>(handleKeys.list);
      const temporaryId = nextTemporaryHandleId();
      queryClient.setQueryData<Handle[]>(handleKeys.list, (current = []) => [
        ...current,
        temporaryHandle(temporaryId, input),
      ]);
      return { previous, temporaryId };
    },
    onSuccess: (handle, _input, context) => {
      queryClient.setQueryData<Handle[]>(handleKeys.list, (current = []) => {
        const withoutTemporary = current.filter(
          (entry) => entry.id !== context.temporaryId && entry.id !== handle.id,
        );
        const index = current.findIndex((entry) => entry.id === context.temporaryId);
        const next = [...withoutTemporary];
        next.splice(index < 0 ? next.length : Math.min(index, next.length), 0, handle);
        return next;
      });
    },
    onError: (_error, _input, context) => {
      if (!context) return;
      queryClient.setQueryData<Handle[]>(handleKeys.list, (current = []) =>
        current.filter((entry) => entry.id !== context.temporaryId),
      );
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: handleKeys.list }),
  });
}
