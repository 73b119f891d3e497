/**
 * Request and resilience numbers whose behaviour the module tests next to this file leave open
 * (see docs/resilience-numbers.md for the whole table).
 */
import { QueryObserver } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { expectCallsOverTime, runOnFakeClock } from '@/test/fake-clock';
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

runOnFakeClock(new Date('2026-01-01T00:00:00Z'), {
  toFake: ['setTimeout', 'clearTimeout', 'Date'],
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
  it.each([
    { name: 'still counts a failure 59.999 s into the window', after: 59_999, state: 'open' },
    { name: 'starts a new count at 60 s', after: 60_000, state: 'closed' },
  ])('$name', ({ after, state }) => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < 9; i += 1) breaker.recordFailure();
    vi.advanceTimersByTime(after);
    breaker.recordFailure();
    expect(breaker.state).toBe(state);
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
    await expectCallsOverTime(fetchMock, [
      [0, 1],
      [1_000, 2],
      [1_999, 2],
      [1, 3],
      [4_000, 4],
    ]);
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
