/**
 * Resilience numbers whose exact boundary the module tests next to this file leave open (see
 * docs/resilience-numbers.md for the whole table).
 */
import { QueryClient, type Query } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { VisibilityController, shouldRefetchAfterReconnect } from './visibility';

/** A focus or online manager the test drives. */
function fakeManager() {
  const listeners = new Set<(value: boolean) => void>();
  return {
    subscribe(listener: (value: boolean) => void) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    emit(value: boolean) {
      for (const listener of [...listeners]) listener(value);
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(0);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('hidden page checked every 60 s', () => {
  let queryClient: QueryClient;
  let focus: ReturnType<typeof fakeManager>;
  let controller: VisibilityController;
  let log: ReturnType<typeof vi.fn<(message: string) => void>>;

  beforeEach(() => {
    queryClient = new QueryClient();
    focus = fakeManager();
    log = vi.fn<(message: string) => void>();
    controller = new VisibilityController(queryClient, {
      log,
      focusManager: focus,
      onlineManager: fakeManager(),
    });
    controller.start();
  });
  afterEach(() => {
    controller.stop();
    queryClient.clear();
  });

  it('logs at the first check past 5 min (6 min) and cancels at the first past 10 min (11 min)', async () => {
    const cancel = vi.spyOn(queryClient, 'cancelQueries');
    focus.emit(false);
    await vi.advanceTimersByTimeAsync(6 * 60_000 - 1);
    expect(log).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(5 * 60_000 - 1);
    expect(cancel).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(cancel).toHaveBeenCalledTimes(1);
  });
});

describe('reconnect refetch for fewer than 3 errors', () => {
  const failedQuery = (fetchFailureCount: number) =>
    ({ state: { status: 'error', fetchFailureCount } }) as unknown as Query;

  it('refetches failed queries with 1 or 2 errors, not 3', () => {
    expect(shouldRefetchAfterReconnect(failedQuery(1))).toBe(true);
    expect(shouldRefetchAfterReconnect(failedQuery(2))).toBe(true);
    expect(shouldRefetchAfterReconnect(failedQuery(3))).toBe(false);
  });

  it('refetches a query that failed twice 1 s after a reconnect (lowest delay)', async () => {
    const queryClient = new QueryClient();
    const online = fakeManager();
    const controller = new VisibilityController(queryClient, {
      random: () => 0,
      focusManager: fakeManager(),
      onlineManager: online,
    });
    controller.start();
    const twice = vi.fn(() => Promise.reject(new Error('down')));
    const thrice = vi.fn(() => Promise.reject(new Error('down')));
    const prefetched = Promise.all([
      queryClient.prefetchQuery({ queryKey: ['twice'], queryFn: twice, retry: 1, retryDelay: 0 }),
      queryClient.prefetchQuery({ queryKey: ['thrice'], queryFn: thrice, retry: 2, retryDelay: 0 }),
    ]);
    await vi.advanceTimersByTimeAsync(10);
    await prefetched;
    expect(queryClient.getQueryState(['twice'])?.fetchFailureCount).toBe(2);
    expect(queryClient.getQueryState(['thrice'])?.fetchFailureCount).toBe(3);

    online.emit(true);
    await vi.advanceTimersByTimeAsync(999);
    expect(twice).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(twice.mock.calls.length).toBeGreaterThan(2);
    expect(thrice).toHaveBeenCalledTimes(3);
    controller.stop();
    queryClient.clear();
  });
});
