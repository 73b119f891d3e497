import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './api-client';
import {
  decideRetry,
  globalRetryBudget,
  retryDelayMs,
  type RetryBudget,
} from './resilience/retry-policy';

export interface QueryRetryOptions {
  /** The retry allowance drawn on; defaults to the app-wide budget. */
  budget?: RetryBudget;
  /** Source of jitter, for tests; returns [0, 1). */
  random?: () => number;
}

function pathOf(error: unknown): string | undefined {
  return error instanceof ApiError ? error.path : undefined;
}

/**
 * Whether a failed query should be tried again (doc 2 §9.5): a retryable failure (no response,
 * 408, 409, 429, 5xx) under its category's limit, with a retry left in the shared budget.
 * `failureCount` is the retries already made, as TanStack Query passes it.
 */
export function shouldRetryQuery(
  failureCount: number,
  error: unknown,
  budget: RetryBudget = globalRetryBudget,
): boolean {
  return decideRetry({ path: pathOf(error), error, retriesSoFar: failureCount, budget }).retry;
}

/** Wait before the next retry: 1 s doubling to 30 s with jitter; a 429's Retry-After wins. */
export function queryRetryDelay(
  failureCount: number,
  error: unknown,
  random: () => number = Math.random,
): number {
  return retryDelayMs(failureCount, error, random);
}

/** Query cache defaults of doc 2 §9.5 (stale 10 s, kept 5 min, retries by the retry policy). */
export function createQueryClient(options: QueryRetryOptions = {}): QueryClient {
  const budget = options.budget ?? globalRetryBudget;
  const random = options.random ?? Math.random;
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        gcTime: 5 * 60_000,
        retry: (failureCount, error) => shouldRetryQuery(failureCount, error, budget),
        retryDelay: (failureCount, error) => queryRetryDelay(failureCount, error, random),
        refetchOnWindowFocus: true,
        networkMode: 'online',
      },
      mutations: { retry: false },
    },
  });
}
