import { afterEach, beforeEach, vi } from 'vitest';

/**
 * For a suite whose requests go through the API client: the CSRF cookie it sends back on writes
 * is set before each test, and real timers are back after each (for tests that switch to fake
 * ones). Call inside the `describe`, or at the top of a file.
 */
export function apiTestHooks(): void {
  beforeEach(() => {
    document.cookie = 'perch_csrf=csrf; path=/';
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}
