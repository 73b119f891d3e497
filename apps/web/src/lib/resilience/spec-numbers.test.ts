/**
 * Request and resilience numbers whose behaviour the module tests next to this file leave open
 * (see docs/resilience-numbers.md for the whole table).
 */
import { QueryObserver } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiClient, ApiError, NETWORK_ERROR_CODE, TIMEOUT_CODE } from '../api-client';
import { createQueryClient } from '../query-client';
import { CircuitBreaker } from './circuit-breaker';
import { RetryBudget, decideRetry } from './retry-policy';

const http = (status: number) => new ApiError(status, `HTTP ${status}`, `HTTP_${status}`);
const network = new ApiError(0, 'offline', NETWORK_ERROR_CODE);
const middle = () => 0.5;

function failure(status: number): Response {
  return new Response(JSON.stringify({ success: false, message: 'nope', code: `HTTP_${status}` }), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
});
afterEach(() => {
  vi.useRealTimers();
});

describe('request timeout 15 s', () => {
  it('gives a request up at 15 s, not before', async () => {
    const fetchMock = vi.fn<typeof fetch>(
      (_input, init) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () =>
            reject(new DOMException('aborted', 'AbortError')),
          );
        }),
    );
    const api = new ApiClient({ fetch: fetchMock });
    let outcome: unknown;
    void api.get('/slow').catch((error: unknown) => {
      outcome = error;
    });
    await vi.advanceTimersByTimeAsync(14_999);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toMatchObject({ status: 0, code: TIMEOUT_CODE, path: '/slow' });
  });
});

describe('max retries by category', () => {
  const decide = (path: string, error: unknown, retriesSoFar: number) =>
    decideRetry({ path, error, retriesSoFar, budget: new RetryBudget(), random: middle }).retry;

  it('retries an auth call 2 times', () => {
    expect(decide('/auth/check', network, 1)).toBe(true);
    expect(decide('/auth/check', network, 2)).toBe(false);
  });

  it('retries a progress call 5 times', () => {
    expect(decide('/handles/nasa/backfill-progress', http(503), 4)).toBe(true);
    expect(decide('/handles/nasa/backfill-progress', http(503), 5)).toBe(false);
  });

  it('retries any other retryable failure 3 times', () => {
    expect(decide('/settings', http(408), 2)).toBe(true);
    expect(decide('/settings', http(408), 3)).toBe(false);
    expect(decide('/settings', http(409), 3)).toBe(false);
  });
});

describe('circuit failures are counted per 60 s', () => {
  it('still counts a failure 59.999 s into the window', () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 9; i += 1) breaker.recordFailure();
    vi.advanceTimersByTime(59_999);
    breaker.recordFailure();
    expect(breaker.state).toBe('open');
  });

  it('starts a new count at 60 s', () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 9; i += 1) breaker.recordFailure();
    vi.advanceTimersByTime(60_000);
    breaker.recordFailure();
    expect(breaker.state).toBe('closed');
  });
});

describe('query cache defaults', () => {
  it('retries a query failing with a retryable 4xx 3 times (the "other" limit)', async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => failure(408));
    const api = new ApiClient({ fetch: fetchMock });
    const queryClient = createQueryClient({ budget: new RetryBudget(), random: middle });
    const result = queryClient
      .fetchQuery({ queryKey: ['settings'], queryFn: () => api.get('/settings') })
      .catch((error: unknown) => error);
    // Backoff 1 s, 2 s, 4 s (random 0.5: no jitter).
    await vi.advanceTimersByTimeAsync(0);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetchMock).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(fetchMock).toHaveBeenCalledTimes(4);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(await result).toMatchObject({ status: 408, path: '/settings' });
    expect(fetchMock).toHaveBeenCalledTimes(4);
  });

  it('treats data as fresh for 10 s: a new observer refetches only from 10 s on', async () => {
    const queryClient = createQueryClient({ budget: new RetryBudget(), random: middle });
    const queryFn = vi.fn(async () => 'fresh');
    queryClient.setQueryData(['fresh'], 'cached');

    vi.advanceTimersByTime(9_999);
    const early = new QueryObserver(queryClient, { queryKey: ['fresh'], queryFn });
    const stopEarly = early.subscribe(() => undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(queryFn).not.toHaveBeenCalled();
    stopEarly();

    await vi.advanceTimersByTimeAsync(1);
    const late = new QueryObserver(queryClient, { queryKey: ['fresh'], queryFn });
    const stopLate = late.subscribe(() => undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(queryFn).toHaveBeenCalledTimes(1);
    stopLate();
    queryClient.clear();
  });

  it('keeps an unused query for 5 min', async () => {
    const queryClient = createQueryClient({ budget: new RetryBudget(), random: middle });
    queryClient.setQueryData(['kept'], 'value');
    await vi.advanceTimersByTimeAsync(5 * 60_000 - 1);
    expect(queryClient.getQueryData(['kept'])).toBe('value');
    await vi.advanceTimersByTimeAsync(1);
    expect(queryClient.getQueryCache().find({ queryKey: ['kept'] })).toBeUndefined();
  });
});
