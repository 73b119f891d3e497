import {
  applyProgressUpdate,
  backfillProgressSchema,
  isProgressComplete,
  type ProgressState,
} from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { ApiError, apiClient } from '@/lib/api-client';
import { PROGRESS_POLL_MS } from '@/lib/polling/intervals';
import { pollMeta } from '@/lib/polling/poll-gate';
import { handleKeys } from './handle-keys';

const STOP_STATUSES: ReadonlySet<ProgressState['status']> = new Set(['error', 'failed']);

/** What a 404 means: the handle has no backfill (yet): idle, 0 %, no data. */
export const IDLE_PROGRESS: ProgressState = {
  progress: 0,
  status: 'idle',
  totalTweets: 0,
  hasData: false,
  isComplete: false,
  completionAcknowledged: false,
  message: '',
  estimatedCompletion: null,
};

/** GET /handles/{handle}/backfill-progress, read as the client's progress state. */
export async function getBackfillProgress(
  handle: string,
  signal?: AbortSignal,
): Promise<ProgressState> {
  try {
    const data = await apiClient.get(
      `/handles/${encodeURIComponent(handle)}/backfill-progress`,
      backfillProgressSchema,
      { signal },
    );
    return { ...data, completionAcknowledged: false };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return IDLE_PROGRESS;
    throw error;
  }
}

function isProgressState(value: unknown): value is ProgressState {
  return typeof value === 'object' && value !== null && 'progress' in value && 'status' in value;
}

/**
 * Polls every 2 s until the backfill is over; each reading is merged into the last one with
 * the progress rules (no jumps back, no regressions after completion).
 */
export function backfillProgressQueryOptions(handle: string) {
  return queryOptions({
    queryKey: handleKeys.backfillProgress(handle),
    queryFn: ({ signal }) => getBackfillProgress(handle, signal),
    refetchInterval: (query) => {
      const data = query.state.data;
      if (data && (isProgressComplete(data) || STOP_STATUSES.has(data.status))) return false;
      return PROGRESS_POLL_MS;
    },
    // A running backfill's progress goes on even with auto refresh off (priority high).
    meta: pollMeta('high'),
    structuralSharing: (previous: unknown, next: unknown) => {
      if (!isProgressState(next)) return next;
      return applyProgressUpdate(isProgressState(previous) ? previous : undefined, next);
    },
  });
}

export function useBackfillProgressQuery(handle: string, enabled: boolean) {
  return useQuery({ ...backfillProgressQueryOptions(handle), enabled });
}
