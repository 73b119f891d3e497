import { ANALYTICS_MESSAGES, HANDLES_LOAD_MAX_ATTEMPTS } from '@perch/shared';

/**
 * Texts shown while loads are retried or after retries ran out (docs/spec-notes.md, Error texts).
 * The handle-list text names the attempt: 'Failed to load handles (attempt 2/5)'.
 */
export function handlesLoadFailedText(
  attempt: number,
  maxAttempts: number = HANDLES_LOAD_MAX_ATTEMPTS,
): string {
  return `Failed to load handles (attempt ${attempt}/${maxAttempts})`;
}

/** 'Failed to switch to @handle'. */
export function switchHandleFailedText(handle: string): string {
  return `Failed to switch to @${handle.replace(/^@/, '')}`;
}

/** The analytics sections whose failed fetch answers 'Failed to fetch {section} analytics'. */
export type AnalyticsSection = 'profile' | 'posts' | 'engagement' | 'trends';

/** 'Failed to fetch profile analytics' (or posts, engagement, trends). */
export function analyticsSectionFailedText(section: AnalyticsSection): string {
  return `Failed to fetch ${section} analytics`;
}

/**
 * Fixed texts of the error catalogue about failed, retried or stalled loads. The analytics ones are
 * the analytics catalogue's (shared with the server), which the analytics view shows.
 */
export const RETRY_TEXTS = {
  systemNotReady: 'System not ready, please try again',
  analyticsStoreInitFailed: 'Failed to initialize analytics store',
  analyticsLoadFailed: ANALYTICS_MESSAGES.loadFailed,
  analyticsFetchFailed: ANALYTICS_MESSAGES.fetchFailed,
  analyticsRefreshFailed: ANALYTICS_MESSAGES.refreshFailed,
  refreshFailed: 'Failed to refresh data',
  noDataYet: ANALYTICS_MESSAGES.noData,
  dataMismatch: ANALYTICS_MESSAGES.mismatch,
  collectionStuck: ANALYTICS_MESSAGES.stuck,
} as const;
