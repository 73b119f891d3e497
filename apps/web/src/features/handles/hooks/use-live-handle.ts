import {
  BACKFILL_STATUSES,
  isHandleCollecting,
  isHandleReady,
  isProgressComplete,
  isTemporaryHandleId,
  type BackfillStatus,
  type Handle,
  type ProgressState,
} from '@perch/shared';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useEffectEvent, useRef } from 'react';
import {
  backfillProgressQueryOptions,
  useBackfillProgressQuery,
} from '../api/get-backfill-progress';
import { handleKeys } from '../api/handle-keys';

function isBackfillStatus(status: ProgressState['status']): status is BackfillStatus {
  return (BACKFILL_STATUSES as readonly string[]).includes(status);
}

/** The handle with its latest progress reading folded in (the reading wins when newer). */
export function withProgress(handle: Handle, progress: ProgressState | undefined): Handle {
  if (!progress || progress.status === 'idle' || progress.status === 'unknown') return handle;
  return {
    ...handle,
    backfill_status: isBackfillStatus(progress.status)
      ? progress.status
      : progress.status === 'error'
        ? 'failed'
        : handle.backfill_status,
    backfill_progress: progress.progress,
    total_tweets_collected: Math.max(handle.total_tweets_collected, progress.totalTweets),
    last_error: progress.error ?? handle.last_error,
  };
}

/**
 * A handle row's live state: while its backfill runs, its progress is polled every 2 s; when
 * the backfill ends the list is fetched again (docs/spec-notes.md, Progress rules) and
 * `onCompleted` is told once it completed, by the progress poll or by the list.
 */
export function useLiveHandle(handle: Handle, onCompleted?: (handle: string) => void): Handle {
  const queryClient = useQueryClient();
  const collecting = isHandleCollecting(handle) && !isTemporaryHandleId(handle.id);
  const { data: progress } = useBackfillProgressQuery(handle.handle, collecting);
  const finished =
    collecting &&
    progress !== undefined &&
    (isProgressComplete(progress) || progress.status === 'failed' || progress.status === 'error');

  const completed = finished && isProgressComplete(progress);
  /** Seen collecting on screen, and its completion not told yet. */
  const watching = useRef(collecting);
  const announceCompletion = useEffectEvent(() => {
    watching.current = false;
    onCompleted?.(handle.handle);
  });

  useEffect(() => {
    if (finished) void queryClient.invalidateQueries({ queryKey: handleKeys.list });
  }, [finished, queryClient]);

  useEffect(() => {
    if (!completed) return;
    // Acknowledged: later resets or failures of this backfill are ignored (progress rules).
    queryClient.setQueryData<ProgressState>(
      backfillProgressQueryOptions(handle.handle).queryKey,
      (current) => (current ? { ...current, completionAcknowledged: true } : current),
    );
    announceCompletion();
  }, [completed, handle.handle, queryClient]);

  // The list can say Ready before a progress poll reads 100 % (a live event fetched it again):
  // a handle seen collecting that comes back ready has completed all the same.
  const ready = isHandleReady(handle);
  useEffect(() => {
    if (collecting) {
      watching.current = true;
      return;
    }
    if (watching.current && ready) announceCompletion();
    watching.current = false;
  }, [collecting, ready]);

  return collecting ? withProgress(handle, progress) : handle;
}
