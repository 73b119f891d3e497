/** Client resilience constants (docs/spec-notes.md, Retries, Resilience). */

/** Retries all callers together may start per rolling window. */
export const RETRY_BUDGET_MAX = 50;
export const RETRY_BUDGET_WINDOW_MS = 60_000;

/** Backoff: 1 s doubling up to 30 s, ±20% jitter; no delay (Retry-After included) above 5 min. */
export const RETRY_BASE_DELAY_MS = 1_000;
export const RETRY_BACKOFF_MAX_MS = 30_000;
export const RETRY_JITTER_RATIO = 0.2;
export const RETRY_DELAY_CAP_MS = 5 * 60_000;

/** Most retries of one failing call, by the kind of failure. */
export const MAX_RETRIES_BY_CATEGORY = {
  health: 2,
  auth: 2,
  progress: 5,
  handles: 3,
  rateLimited: 8,
  server: 5,
  network: 6,
  other: 3,
} as const;

/** Client errors worth another try; every other 4xx is final. */
export const RETRYABLE_CLIENT_STATUSES: readonly number[] = [408, 409, 429];

/** Retry circuit: opens after 10 failures in a 60 s window, stays open 60 s. */
export const CIRCUIT_FAILURE_THRESHOLD = 10;
export const CIRCUIT_WINDOW_MS = 60_000;
export const CIRCUIT_OPEN_MS = 60_000;
/** Failures while half-open that open the circuit again. */
export const CIRCUIT_HALF_OPEN_FAILURE_THRESHOLD = 3;

/** Error storms: 5 repeats of one pattern (first 50 characters) within 60 s. */
export const ERROR_STORM_THRESHOLD = 5;
export const ERROR_STORM_WINDOW_MS = 60_000;
export const ERROR_PATTERN_KEY_LENGTH = 50;
/** The pattern map is trimmed to 50 entries, oldest first, once it holds more than 100. */
export const ERROR_PATTERN_MAP_CAP = 100;
export const ERROR_PATTERN_MAP_TRIM_TO = 50;

/** Sync breaker: more than 5 attempts within 10 s stops syncing. */
export const SYNC_BREAKER_MAX_ATTEMPTS = 5;
export const SYNC_BREAKER_WINDOW_MS = 10_000;

/** A second request to the same endpoint within this gap waits out the remainder. */
export const SAME_ENDPOINT_GAP_MS = 500;

/** Attempts at loading the handle list before giving up. */
export const HANDLES_LOAD_MAX_ATTEMPTS = 5;
