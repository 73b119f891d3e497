import {
  CIRCUIT_FAILURE_THRESHOLD,
  CIRCUIT_HALF_OPEN_FAILURE_THRESHOLD,
  CIRCUIT_OPEN_MS,
  CIRCUIT_WINDOW_MS,
} from '@perch/shared';

/** States of the retry circuit (docs/spec-notes.md, Client resilience). */
export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** Failures within one window that open a closed circuit (10). */
  failureThreshold?: number;
  /** Length of a failure-counting window (60 s). */
  windowMs?: number;
  /** How long the circuit stays open before it lets a trial through (60 s). */
  openMs?: number;
  /** Failures while half-open that open the circuit again (3). */
  halfOpenFailureThreshold?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/**
 * The retry circuit: closed lets calls through and counts failures per 60 s window; 10 in one
 * window open it. Open refuses calls for 60 s, then turns half-open: calls go through again, a
 * success closes the circuit, 3 failures open it again. A success while closed does not clear
 * the window's count; only the end of the window does.
 */
export class CircuitBreaker {
  private readonly failureThreshold: number;
  private readonly windowMs: number;
  private readonly openMs: number;
  private readonly halfOpenFailureThreshold: number;
  private readonly now: () => number;
  private current: CircuitState = 'closed';
  private failures = 0;
  private windowStart = 0;
  private openedAt = 0;
  private readonly listeners = new Set<() => void>();
  private halfOpenTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: CircuitBreakerOptions = {}) {
    this.failureThreshold = options.failureThreshold ?? CIRCUIT_FAILURE_THRESHOLD;
    this.windowMs = options.windowMs ?? CIRCUIT_WINDOW_MS;
    this.openMs = options.openMs ?? CIRCUIT_OPEN_MS;
    this.halfOpenFailureThreshold =
      options.halfOpenFailureThreshold ?? CIRCUIT_HALF_OPEN_FAILURE_THRESHOLD;
    this.now = options.now ?? (() => Date.now());
  }

  /** The state now; an open circuit whose time is up reads as half-open. */
  get state(): CircuitState {
    if (this.current === 'open' && this.now() - this.openedAt >= this.openMs) {
      this.current = 'half-open';
      this.failures = 0;
      this.windowStart = this.now();
    }
    return this.current;
  }

  /** Called when the circuit opens, turns half-open (at the end of the 60 s) or closes. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether a call may go out now (closed or half-open). */
  canRequest(): boolean {
    return this.state !== 'open';
  }

  recordSuccess(): void {
    if (this.state === 'half-open') this.close();
  }

  recordFailure(): void {
    const state = this.state;
    if (state === 'open') return;
    const now = this.now();
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.failures = 0;
    }
    this.failures += 1;
    const threshold = state === 'half-open' ? this.halfOpenFailureThreshold : this.failureThreshold;
    if (this.failures >= threshold) this.open(now);
  }

  /** Back to closed with clean counters. */
  reset(): void {
    this.close();
  }

  private open(now: number): void {
    this.current = 'open';
    this.openedAt = now;
    this.failures = 0;
    clearTimeout(this.halfOpenTimer);
    // The state turns half-open by itself when read; the timer only tells the listeners.
    this.halfOpenTimer = setTimeout(() => this.notify(), this.openMs);
    this.notify();
  }

  private close(): void {
    const wasClosed = this.current === 'closed';
    this.current = 'closed';
    this.failures = 0;
    this.windowStart = this.now();
    clearTimeout(this.halfOpenTimer);
    this.halfOpenTimer = undefined;
    if (!wasClosed) this.notify();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
