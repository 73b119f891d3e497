import { SYNC_BREAKER_MAX_ATTEMPTS, SYNC_BREAKER_WINDOW_MS } from '@perch/shared';

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
export class SyncBreaker {
  private readonly maxAttempts: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private attempts: number[] = [];

  constructor(options: SyncBreakerOptions = {}) {
    this.maxAttempts = options.maxAttempts ?? SYNC_BREAKER_MAX_ATTEMPTS;
    this.windowMs = options.windowMs ?? SYNC_BREAKER_WINDOW_MS;
    this.now = options.now ?? (() => Date.now());
  }

  /** Whether syncing is stopped now (another attempt would be one too many). */
  isStopped(): boolean {
    this.prune();
    return this.attempts.length >= this.maxAttempts;
  }

  /** Counts a sync attempt and returns true, or returns false while syncing is stopped. */
  tryAttempt(): boolean {
    if (this.isStopped()) return false;
    this.attempts.push(this.now());
    return true;
  }

  reset(): void {
    this.attempts = [];
  }

  private prune(): void {
    const cutoff = this.now() - this.windowMs;
    while (this.attempts.length > 0 && (this.attempts[0] ?? 0) <= cutoff) this.attempts.shift();
  }
}
