import { QueryClient, QueryObserver, focusManager, onlineManager } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  VisibilityController,
  backgroundAction,
  reconnectRefetchDelay,
  returnAction,
} from './visibility';

describe('returnAction', () => {
  it('is hibernation over 30 s hidden, a stale refresh over 5 s, else nothing', () => {
    expect(returnAction(5_000)).toBe('none');
    expect(returnAction(5_001)).toBe('refresh-stale');
    expect(returnAction(30_000)).toBe('refresh-stale');
    expect(returnAction(30_001)).toBe('hibernation');
  });
});

describe('backgroundAction', () => {
  it('logs over 5 min and cancels over 10 min', () => {
    expect(backgroundAction(300_000)).toBe('none');
    expect(backgroundAction(300_001)).toBe('log');
    expect(backgroundAction(600_000)).toBe('log');
    expect(backgroundAction(600_001)).toBe('cancel');
  });
});

describe('reconnectRefetchDelay', () => {
  it('is between 1 and 3 s', () => {
    expect(reconnectRefetchDelay(() => 0)).toBe(1_000);
    expect(reconnectRefetchDelay(() => 0.5)).toBe(2_000);
    expect(reconnectRefetchDelay(() => 0.9999999)).toBe(3_000);
  });
});

describe('VisibilityController', () => {
  let queryClient: QueryClient;
  let controller: VisibilityController;
  let log: ReturnType<typeof vi.fn<(message: string) => void>>;

  beforeEach(() => {
    vi.useFakeTimers();
    queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    log = vi.fn<(message: string) => void>();
    controller = new VisibilityController(queryClient, { log, random: () => 0.5 });
    controller.start();
  });

  afterEach(() => {
    controller.stop();
    queryClient.clear();
    focusManager.setFocused(undefined);
    onlineManager.setOnline(true);
    vi.useRealTimers();
  });

  async function hideFor(ms: number): Promise<void> {
    focusManager.setFocused(false);
    await vi.advanceTimersByTimeAsync(ms);
    focusManager.setFocused(true);
    await vi.advanceTimersByTimeAsync(0);
  }

  /** An active query (one observer) whose fetches are counted. */
  async function activeQuery(key: string) {
    const queryFn = vi.fn(() => Promise.resolve(key));
    const observer = new QueryObserver(queryClient, { queryKey: [key], queryFn });
    const unsubscribe = observer.subscribe(() => undefined);
    await vi.advanceTimersByTimeAsync(0);
    return { queryFn, unsubscribe };
  }

  it('invalidates every query after more than 30 s hidden', async () => {
    queryClient.setQueryData(['a'], 1);
    queryClient.setQueryData(['b'], 2);
    await hideFor(30_000);
    expect(queryClient.getQueryState(['a'])?.isInvalidated).toBe(false);
    await hideFor(30_001);
    expect(queryClient.getQueryState(['a'])?.isInvalidated).toBe(true);
    expect(queryClient.getQueryState(['b'])?.isInvalidated).toBe(true);
  });

  it('refetches stale active queries after more than 5 s hidden, not after 5 s', async () => {
    const { queryFn, unsubscribe } = await activeQuery('stale');
    expect(queryFn).toHaveBeenCalledTimes(1);
    await hideFor(5_000);
    expect(queryFn).toHaveBeenCalledTimes(1);
    await hideFor(5_001);
    expect(queryFn).toHaveBeenCalledTimes(2);
    expect(queryClient.getQueryState(['stale'])?.isInvalidated).toBe(false);
    unsubscribe();
  });

  it('logs after 5 min in the background and cancels queries after 10 min, checking every 60 s', async () => {
    const observer = new QueryObserver(queryClient, {
      queryKey: ['slow'],
      queryFn: ({ signal }) =>
        new Promise<string>((resolve) => {
          const timer = setTimeout(() => resolve('late'), 30 * 60_000);
          signal.addEventListener('abort', () => clearTimeout(timer));
        }),
    });
    const unsubscribe = observer.subscribe(() => undefined);
    focusManager.setFocused(false);
    await vi.advanceTimersByTimeAsync(300_000);
    expect(log).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(log).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(240_000);
    expect(queryClient.getQueryState(['slow'])?.fetchStatus).toBe('fetching');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(queryClient.getQueryState(['slow'])?.fetchStatus).toBe('idle');
    expect(log).toHaveBeenCalledTimes(1);
    unsubscribe();
  });

  it('refetches failed queries with fewer than 3 failures 1-3 s after a reconnect', async () => {
    const once = vi.fn(() => Promise.reject(new Error('down')));
    const thrice = vi.fn(() => Promise.reject(new Error('down')));
    await queryClient.prefetchQuery({ queryKey: ['once'], queryFn: once });
    const prefetched = queryClient.prefetchQuery({
      queryKey: ['thrice'],
      queryFn: thrice,
      retry: 2,
      retryDelay: 0,
    });
    await vi.advanceTimersByTimeAsync(10);
    await prefetched;
    expect(queryClient.getQueryState(['once'])?.fetchFailureCount).toBe(1);
    expect(queryClient.getQueryState(['thrice'])?.fetchFailureCount).toBe(3);
    queryClient.setQueryData(['fine'], 'ok');

    onlineManager.setOnline(false);
    onlineManager.setOnline(true);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(once).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(once).toHaveBeenCalledTimes(2);
    expect(thrice).toHaveBeenCalledTimes(3);
  });

  it('stops listening on stop', async () => {
    controller.stop();
    queryClient.setQueryData(['a'], 1);
    await hideFor(60_000);
    expect(queryClient.getQueryState(['a'])?.isInvalidated).toBe(false);
  });
});
