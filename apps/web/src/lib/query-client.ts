import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './api-client';

const MAX_QUERY_RETRIES = 3;
const MAX_RETRY_DELAY_MS = 30_000;
/** Client errors worth another try (doc 1 §4, Resilience). */
const RETRYABLE_CLIENT_STATUSES = new Set([408, 409, 429]);

/** Whether a failed query should be tried again: never for a definite client error. */
export function shouldRetryQuery(failureCount: number, error: unknown): boolean {
  if (failureCount >= MAX_QUERY_RETRIES) return false;
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) {
    return RETRYABLE_CLIENT_STATUSES.has(error.status);
  }
  return true;
}

/** Query cache defaults of doc 2 §9.5 (stale 10 s, kept 5 min, backoff up to 30 s). */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        gcTime: 5 * 60_000,
        retry: shouldRetryQuery,
        retryDelay: (attempt) => Math.min(1000 * 2 ** attempt, MAX_RETRY_DELAY_MS),
        refetchOnWindowFocus: true,
        networkMode: 'online',
      },
      mutations: { retry: false },
    },
  });
}
