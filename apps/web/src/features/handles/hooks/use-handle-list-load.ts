import { HANDLES_LOAD_MAX_ATTEMPTS, type Handle } from '@perch/shared';
import type { FetchStatus } from '@tanstack/react-query';
import { useEffect } from 'react';
import { handlesLoadFailedText } from '@/lib/resilience/retry-texts';
import { HANDLES_LOAD_ERROR_CLEAR_MS, useHandlesQuery } from '../api/get-handles';

/** How the list's load is going, as the handle lists show it (docs/spec-notes.md, Retries). */
export interface HandleListLoadState {
  /** Nothing to list yet, and a load is under way (or about to start). */
  isLoading: boolean;
  /** 'Failed to load handles (attempt n/5)' while a failed load is tried again, else null. */
  retryText: string | null;
  /** Once the load gave up: a title naming the last attempt, and the error's message. */
  failure: { title: string; message: string } | null;
  /** Whether the failure clears by itself: after the fifth failed attempt. */
  clearsItself: boolean;
}

/** What the list query tells about its load; a subset of TanStack Query's result. */
export interface HandleListQueryReading {
  data: readonly Handle[] | undefined;
  isPending: boolean;
  error: Error | null;
  /** Failed attempts of the current load (TanStack's `failureCount`; 0 once a load starts). */
  failureCount: number;
  fetchStatus: FetchStatus;
}

/**
 * The load state of the handle list. A load that runs (or waits to retry) hides a previous
 * failure: the error shows only once the query has given up, and is gone as soon as the list is
 * fetched again (by Retry, by the 10 s clearing, or by the poll).
 */
export function handleListLoadState(query: HandleListQueryReading): HandleListLoadState {
  const loading = query.fetchStatus !== 'idle';
  const attempt = Math.min(query.failureCount, HANDLES_LOAD_MAX_ATTEMPTS);
  const failure =
    query.error && !loading
      ? { title: handlesLoadFailedText(Math.max(attempt, 1)), message: query.error.message }
      : null;
  return {
    isLoading: query.data === undefined && (query.isPending || loading),
    retryText: loading && attempt > 0 ? handlesLoadFailedText(attempt) : null,
    failure,
    clearsItself: failure !== null && query.failureCount >= HANDLES_LOAD_MAX_ATTEMPTS,
  };
}

/** Wait until an error that happened at `errorAt` clears (never below 0). */
export function errorClearDelayMs(errorAt: number, now: number): number {
  return Math.max(0, errorAt + HANDLES_LOAD_ERROR_CLEAR_MS - now);
}

/**
 * The handle list with its load state, for the lists that show it (sidebar, handle panel).
 * 10 s after the fifth failed attempt the error clears and the list loads afresh; a failure
 * that ended sooner (a 4xx, the retry budget) stays until Retry.
 */
export function useHandleListLoad() {
  const query = useHandlesQuery();
  const state = handleListLoadState(query);
  const { refetch, errorUpdatedAt } = query;
  const { clearsItself } = state;

  useEffect(() => {
    if (!clearsItself) return;
    // Both lists may wait on the same failure: the later one joins the earlier one's load.
    const timer = setTimeout(
      () => void refetch({ cancelRefetch: false }),
      errorClearDelayMs(errorUpdatedAt, Date.now()),
    );
    return () => clearTimeout(timer);
  }, [clearsItself, errorUpdatedAt, refetch]);

  const retry = () => void refetch();
  return { handles: query.data, load: { ...state, retry } };
}
