import {
  MAX_RETRIES_BY_CATEGORY,
  RETRY_BACKOFF_MAX_MS,
  RETRY_BASE_DELAY_MS,
  RETRY_BUDGET_MAX,
  RETRY_BUDGET_WINDOW_MS,
  RETRY_DELAY_CAP_MS,
  RETRY_JITTER_RATIO,
  RETRYABLE_CLIENT_STATUSES,
} from '@perch/shared';
import { ApiError, isNetworkError } from '../api-error';
import { RollingAllowance } from './rolling-allowance';

/** The kind of a failure, which sets how often it is retried. */
export type ErrorCategory = keyof typeof MAX_RETRIES_BY_CATEGORY;

const RETRYABLE_CLIENT = new Set(RETRYABLE_CLIENT_STATUSES);

function pathnameOf(path: string): string {
  return (path.split('?')[0] ?? path).toLowerCase();
}

/**
 * The category of a failed call. The endpoint decides first (health, auth, progress, handles),
 * then the failure itself (429, 5xx, no response); anything else is 'other'.
 */
export function categorizeFailure(path: string | undefined, error: unknown): ErrorCategory {
  const pathname = path === undefined ? '' : pathnameOf(path);
  if (pathname.includes('/health')) return 'health';
  if (pathname.includes('/auth/')) return 'auth';
  if (pathname.includes('progress')) return 'progress';
  if (pathname.includes('/handles')) return 'handles';
  if (isNetworkError(error)) return 'network';
  if (error instanceof ApiError) {
    if (error.status === 429) return 'rateLimited';
    if (error.status >= 500) return 'server';
  }
  return 'other';
}

/** Most retries of a failure of this category. */
export function maxRetriesFor(category: ErrorCategory): number {
  return MAX_RETRIES_BY_CATEGORY[category];
}

/**
 * Whether a failure is worth another try: no response (offline, timeout), 408, 409, 429 and
 * 5xx. Never 401, 404 or any other 4xx, and never a failure that is not an ApiError
 * (a cancellation, a bug).
 */
export function isRetryableFailure(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  if (isNetworkError(error)) return true;
  return RETRYABLE_CLIENT.has(error.status) || (error.status >= 500 && error.status < 600);
}

/** A doubling backoff: the first wait and the longest one, before jitter. */
export interface RetryBackoff {
  baseMs: number;
  maxMs: number;
}

/** The backoff: 1 s doubling up to 30 s. */
export const DEFAULT_RETRY_BACKOFF: RetryBackoff = {
  baseMs: RETRY_BASE_DELAY_MS,
  maxMs: RETRY_BACKOFF_MAX_MS,
};

/**
 * Wait before retry number `retryIndex` (0 for the first retry): 1 s doubling up to 30 s (or
 * the given backoff), then ±20% jitter (`random` returns [0, 1)). A 429's Retry-After replaces
 * the backoff. No delay exceeds 5 min.
 */
export function retryDelayMs(
  retryIndex: number,
  error: unknown,
  random: () => number = Math.random,
  { baseMs, maxMs }: RetryBackoff = DEFAULT_RETRY_BACKOFF,
): number {
  if (error instanceof ApiError && error.status === 429 && error.retryAfterMs !== undefined) {
    return Math.min(error.retryAfterMs, RETRY_DELAY_CAP_MS);
  }
  const backoff = Math.min(baseMs * 2 ** Math.max(0, retryIndex), maxMs);
  const jitter = 1 + (random() * 2 - 1) * RETRY_JITTER_RATIO;
  return Math.min(Math.round(backoff * jitter), RETRY_DELAY_CAP_MS);
}

export interface RetryBudgetOptions {
  max?: number;
  windowMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/** A rolling-window allowance of retries (50 per minute by default), shared by its callers. */
export class RetryBudget extends RollingAllowance {
  constructor(options: RetryBudgetOptions = {}) {
    super(options.max ?? RETRY_BUDGET_MAX, options.windowMs ?? RETRY_BUDGET_WINDOW_MS, options.now);
  }

  /** Spends one retry; false (nothing spent) when the window's allowance is used up. */
  tryAcquire(): boolean {
    return this.tryUse();
  }

  /** Forgets every retry spent: the whole allowance is back. */
  reset(): void {
    this.clear();
  }
}

/** The budget every retry of the app draws on. */
export const globalRetryBudget = new RetryBudget();

export interface RetryContext {
  /** The API path of the failed call, when known. */
  path?: string;
  error: unknown;
  /** Retries already made for this call. */
  retriesSoFar: number;
  /**
   * Most retries of this call, in place of its category's limit: for a call whose own rule
   * differs, like the handle list's load (5 attempts).
   */
  maxRetries?: number;
  /** The call's own backoff, in place of 1 s doubling up to 30 s. */
  backoff?: RetryBackoff;
  budget?: RetryBudget;
  random?: () => number;
}

export type RetryDecision = { retry: false } | { retry: true; delayMs: number };

/**
 * Whether and when to retry a failed call: a retryable failure, under its category's limit (or
 * the call's own `maxRetries`), with a retry left in the shared budget (spent only when the
 * answer is yes).
 */
export function decideRetry(context: RetryContext): RetryDecision {
  const { error, retriesSoFar } = context;
  if (!isRetryableFailure(error)) return { retry: false };
  const limit = context.maxRetries ?? maxRetriesFor(categorizeFailure(context.path, error));
  if (retriesSoFar >= limit) return { retry: false };
  if (!(context.budget ?? globalRetryBudget).tryAcquire()) return { retry: false };
  return {
    retry: true,
    delayMs: retryDelayMs(retriesSoFar, error, context.random, context.backoff),
  };
}
