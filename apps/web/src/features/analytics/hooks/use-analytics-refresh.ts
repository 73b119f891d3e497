import { ANALYTICS_MESSAGES, REFRESH_MIN_GAP_MS } from '@perch/shared';
import { useRef } from 'react';
import { ApiError } from '@/lib/api-client';
import { useTimedMessage } from '@/lib/use-timed-message';
import { type AnalyticsParams } from '../api/get-complete-analytics';
import { useRefreshAnalyticsMutation } from '../api/refresh-analytics';

/** How long a refresh notice stays. */
export const REFRESH_NOTICE_MS = 4_000;

export interface RefreshNotice {
  kind: 'success' | 'info' | 'error';
  text: string;
}

export type RefreshBlock = 'in-progress' | 'throttled';

/**
 * Why a refresh may not start now (blocked within 5 s of the last one and while
 * another runs), or null when it may.
 */
export function refreshBlock(
  isRefreshing: boolean,
  lastRefreshAt: number | undefined,
  now: number,
): RefreshBlock | null {
  if (lastRefreshAt !== undefined && now - lastRefreshAt < REFRESH_MIN_GAP_MS) return 'throttled';
  if (isRefreshing) return 'in-progress';
  return null;
}

/** The text of a failed refresh: the server's word on a 429, else the catalogue's. */
export function refreshErrorText(error: unknown): string {
  if (error instanceof ApiError && error.status === 429) {
    return error.serverMessage ?? ANALYTICS_MESSAGES.refreshThrottled;
  }
  return ANALYTICS_MESSAGES.refreshFailed;
}

/**
 * The Refresh action of the analytics view: one refresh at a time, at most one per handle
 * every 5 s; each outcome is told in a short notice.
 */
export function useAnalyticsRefresh(params: AnalyticsParams | null) {
  const mutation = useRefreshAnalyticsMutation();
  const lastRefreshAt = useRef(new Map<string, number>());
  const { message: notice, show: showNotice } = useTimedMessage<RefreshNotice>(REFRESH_NOTICE_MS);

  const handleRefresh = () => {
    if (!params) return;
    const key = params.handle.toLowerCase();
    const now = Date.now();
    const block = refreshBlock(mutation.isPending, lastRefreshAt.current.get(key), now);
    if (block) {
      showNotice({
        kind: 'info',
        text:
          block === 'in-progress'
            ? ANALYTICS_MESSAGES.refreshInProgress
            : ANALYTICS_MESSAGES.refreshThrottled,
      });
      return;
    }
    lastRefreshAt.current.set(key, now);
    mutation.mutate(params, {
      onSuccess: () => showNotice({ kind: 'success', text: ANALYTICS_MESSAGES.refreshed }),
      onError: (error) => showNotice({ kind: 'error', text: refreshErrorText(error) }),
    });
  };

  return { handleRefresh, isRefreshing: mutation.isPending, notice };
}
