import { QueryClient } from '@tanstack/react-query';
import { afterEach, beforeEach, expect, vi, type MockInstance } from 'vitest';

/**
 * For the spec-number tests: every test runs on fake timers from time 0 with a fresh query cache,
 * cleared afterwards. Call at the top of a file; the getter returns the current test's cache.
 */
export function fakeClockWithQueryClient(): () => QueryClient {
  let queryClient: QueryClient;
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(0);
    queryClient = new QueryClient();
  });
  afterEach(() => {
    queryClient.clear();
    vi.useRealTimers();
  });
  return () => queryClient;
}

/**
 * Runs every test of the enclosing suite (or file, at the top level) on fake timers (`timers`
 * says which, all by default) set to `start`, and puts real timers back afterwards.
 */
export function runOnFakeClock(
  start: number | Date = 0,
  timers?: Parameters<typeof vi.useFakeTimers>[0],
): void {
  beforeEach(() => {
    vi.useFakeTimers(timers);
    vi.setSystemTime(start);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

/**
 * Moves fake time on step by step: after each step of `advanceMs`, `mock` has been called
 * `calls` times in all.
 */
export async function expectCallsOverTime(
  mock: MockInstance,
  steps: readonly (readonly [advanceMs: number, calls: number])[],
): Promise<void> {
  for (const [advanceMs, calls] of steps) {
    await vi.advanceTimersByTimeAsync(advanceMs);
    expect(mock).toHaveBeenCalledTimes(calls);
  }
}
