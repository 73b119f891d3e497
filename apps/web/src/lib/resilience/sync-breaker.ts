import { SYNC_BREAKER_MAX_ATTEMPTS, SYNC_BREAKER_WINDOW_MS } from '@perch/shared';
import { RollingAllowance } from './rolling-allowance';

export interface SyncBreakerOptions {
  /** Attempts allowed within one window (5); one more stops syncing. */
  maxAttempts?: number;
  /** Length of the rolling window (10 s). */
  windowMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/**
 * The sync circuit breaker: more than 5 sync attempts within 10 s stop syncing.
 * The window rolls: a refused attempt is not counted, and syncing resumes once the oldest
 * counted attempt is 10 s old.
 */
export class SyncBreaker extends RollingAllowance {
  constructor(options: SyncBreakerOptions = {}) {
    super(
      options.maxAttempts ?? SYNC_BREAKER_MAX_ATTEMPTS,
      options.windowMs ?? SYNC_BREAKER_WINDOW_MS,
      options.now,
    );
  }

  /** Whether syncing is stopped now (another attempt would be one too many). */
  isStopped(): boolean {
    return this.remaining() <= 0;
  }

  /** Counts a sync attempt and returns true, or returns false while syncing is stopped. */
  tryAttempt(): boolean {
    return this.tryUse();
  }

  reset(): void {
    this.clear();
  }
}
