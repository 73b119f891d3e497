import {
  BACKFILL_STATUSES,
  isHandleCollecting,
  isProgressComplete,
  isTemporaryHandleId,
  type BackfillStatus,
  type Handle,
  type ProgressState,
} from '@perch/shared';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useEffectEvent } from 'react';
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
 * `onCompleted` is told once it completed.
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
  const announceCompletion = useEffectEvent(() => onCompleted?.(handle.handle));

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

  return collecting ? withProgress(handle, progress) : handle;
}
