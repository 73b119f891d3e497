import { challengeStatusResponseSchema, type ChallengeStatus } from '@perch/shared';
import { useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { CHALLENGE_POLL_MS, CHALLENGE_REFETCH_AFTER_SUBMIT_MS } from '@/lib/polling/intervals';
import { adminQueryOptions } from './admin-query';

/** Under the admin prefix, so refreshing the admin area refreshes it too. */
export const challengeStatusQueryKey = ['admin', 'twitter-challenge'] as const;

/** GET /admin/twitter-challenge-status: whether the collector account waits for a code. */
export function getChallengeStatus(signal?: AbortSignal): Promise<ChallengeStatus> {
  return apiClient.get('/admin/twitter-challenge-status', challengeStatusResponseSchema, {
    signal,
  });
}

/**
 * How often the status is fetched: every 30 s, and every 5 s while a submitted code
 * is being checked, so the answer shows soon after a submit.
 */
export function challengePollInterval(status: ChallengeStatus | undefined): number {
  return status?.status === 'CODE_SUBMITTED'
    ? CHALLENGE_REFETCH_AFTER_SUBMIT_MS
    : CHALLENGE_POLL_MS;
}

export function challengeStatusQueryOptions() {
  return adminQueryOptions(challengeStatusQueryKey, getChallengeStatus, {
    refetchInterval: (query) => challengePollInterval(query.state.data),
  });
}

export function useChallengeStatusQuery() {
  return useQuery(challengeStatusQueryOptions());
}
