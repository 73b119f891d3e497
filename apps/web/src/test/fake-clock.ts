import { QueryClient } from '@tanstack/react-query';
import { afterEach, beforeEach, vi } from 'vitest';

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
