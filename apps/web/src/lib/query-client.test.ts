import { RETRY_BUDGET_MAX, RETRY_BUDGET_WINDOW_MS } from '@perch/shared';
import type { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { expectCallsOverTime, runOnFakeClock } from '@/test/fake-clock';
import { ApiClient, ApiError, NETWORK_ERROR_CODE } from './api-client';
import { createQueryClient, queryRetryDelay, retryUpTo, shouldRetryQuery } from './query-client';
import { ErrorStormDetector } from './resilience/error-storm';
import { RetryBudget, globalRetryBudget } from './resilience/retry-policy';

const middle = () => 0.5;
const http = (status: number, path?: string, retryAfterMs?: number) =>
  new ApiError(
    status,
    `HTTP ${status}`,
    `HTTP_${status}`,
    undefined,
    undefined,
    retryAfterMs,
    path,
  );
const network = (path?: string) =>
  new ApiError(0, 'offline', NETWORK_ERROR_CODE, undefined, undefined, undefined, path);

function failure(status: number, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ success: false, message: 'nope', code: `HTTP_${status}` }), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

function success(data: unknown): Response {
  return new Response(JSON.stringify({ success: true, data }), {
    status: 200,
    headers: { 'Content-Type': 'application/json' },
  });
}

/** Runs one query through the client to its end, letting every retry wait pass. */
async function settle(queryClient: QueryClient, path: string, api: ApiClient) {
  const result = queryClient.fetchQuery({ queryKey: [path], queryFn: () => api.get(path) }).then(
    (data) => ({ data, error: undefined }),
    (error: unknown) => ({ data: undefined, error }),
  );
  await vi.advanceTimersByTimeAsync(10 * 60_000);
  return result;
}

runOnFakeClock(new Date('2026-01-01T00:00:00Z'), {
  toFake: ['setTimeout', 'clearTimeout', 'Date'],
});

describe('ApiError path', () => {
  it('carries the called path for HTTP and network failures', async () => {
    const api = new ApiClient({
      fetch: vi
        .fn<typeof fetch>()
        .mockResolvedValueOnce(failure(503))
        .mockRejectedValueOnce(new TypeError('Failed to fetch')),
    });
    await expect(api.get('/handles?page=2')).rejects.toMatchObject({
      status: 503,
      path: '/handles?page=2',
    });
    await expect(api.get('/analytics/profile')).rejects.toMatchObject({
      code: NETWORK_ERROR_CODE,
      path: '/analytics/profile',
    });
  });

  it('stays optional for errors built by hand', () => {
    expect(new ApiError(500, 'boom', 'HTTP_500').path).toBeUndefined();
  });
});

describe('shouldRetryQuery', () => {
  it('never retries 401, 404 or another final 4xx', () => {
    const budget = new RetryBudget();
    for (const status of [400, 401, 403, 404, 422]) {
      expect(shouldRetryQuery(0, http(status, '/analytics/profile'), budget)).toBe(false);
    }
    expect(budget.remaining()).toBe(RETRY_BUDGET_MAX);
  });

  it('retries 408, 409 and 429, and not a failure that is no ApiError', () => {
    const budget = new RetryBudget();
    for (const status of [408, 409, 429]) {
      expect(shouldRetryQuery(0, http(status, '/settings'), budget)).toBe(true);
    }
    expect(shouldRetryQuery(0, new Error('bug'), budget)).toBe(false);
  });

  it('limits retries by the category of the path and the failure', () => {
    const budget = new RetryBudget();
    expect(shouldRetryQuery(2, http(503, '/handles'), budget)).toBe(true);
    expect(shouldRetryQuery(3, http(503, '/handles'), budget)).toBe(false);
    expect(shouldRetryQuery(5, network('/analytics/profile'), budget)).toBe(true);
    expect(shouldRetryQuery(6, network('/analytics/profile'), budget)).toBe(false);
    expect(shouldRetryQuery(4, http(502, '/analytics/profile'), budget)).toBe(true);
    expect(shouldRetryQuery(5, http(502, '/analytics/profile'), budget)).toBe(false);
  });
});

describe('shouldRetryQuery with a limit of its own', () => {
  it("replaces the category's limit, and nothing else", () => {
    const budget = new RetryBudget();
    expect(shouldRetryQuery(3, http(503, '/handles'), budget)).toBe(false);
    expect(shouldRetryQuery(3, http(503, '/handles'), budget, undefined, { maxRetries: 4 })).toBe(
      true,
    );
    expect(shouldRetryQuery(4, http(503, '/handles'), budget, undefined, { maxRetries: 4 })).toBe(
      false,
    );
    expect(shouldRetryQuery(0, http(404, '/handles'), budget, undefined, { maxRetries: 4 })).toBe(
      false,
    );
  });
});

describe('retryUpTo', () => {
  it("retries a query up to its own limit, on its client's budget", async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => failure(503));
    const api = new ApiClient({ fetch: fetchMock });
    const budget = new RetryBudget();
    const queryClient = createQueryClient({ budget, random: middle });

    const result = queryClient
      .fetchQuery({
        queryKey: ['handles'],
        queryFn: () => api.get('/handles'),
        retry: retryUpTo(4, queryClient),
      })
      .catch((error: unknown) => error);
    // Retries after 1, 2, 4 and 8 s: all within the budget's minute.
    await vi.advanceTimersByTimeAsync(30_000);

    expect(await result).toMatchObject({ status: 503, path: '/handles' });
    // 5 attempts, where the handles category alone allows 4.
    expect(fetchMock).toHaveBeenCalledTimes(5);
    expect(budget.remaining()).toBe(RETRY_BUDGET_MAX - 4);
  });

  it("stops at its client's spent budget and at an error storm", () => {
    const budget = new RetryBudget({ max: 1 });
    const stormDetector = new ErrorStormDetector();
    const queryClient = createQueryClient({ budget, stormDetector });
    const retry = retryUpTo(4, queryClient);

    expect(retry(0, http(503, '/handles'))).toBe(true);
    expect(retry(1, http(503, '/handles'))).toBe(false);

    const other = createQueryClient({ budget: new RetryBudget(), stormDetector });
    for (let i = 0; i < 5; i += 1) stormDetector.record({ message: 'HTTP 502', status: 502 });
    expect(retryUpTo(4, other)(0, http(502, '/handles'))).toBe(false);
    expect(retryUpTo(4, other)(0, http(503, '/handles'))).toBe(true);
  });

  it('never retries a final failure, with or without a client', () => {
    expect(retryUpTo(4)(0, http(401, '/handles'))).toBe(false);
    expect(retryUpTo(4, createQueryClient())(0, http(404, '/handles'))).toBe(false);
  });
});

describe('queryRetryDelay', () => {
  it('starts at 1 s and doubles up to 30 s, with jitter', () => {
    const error = http(503, '/analytics/profile');
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => queryRetryDelay(n, error, middle))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000,
    ]);
    expect(queryRetryDelay(0, error, () => 0)).toBe(800);
    expect(queryRetryDelay(0, error, () => 0.999_999)).toBe(1_200);
  });

  it('waits as long as a 429 Retry-After asks', () => {
    expect(queryRetryDelay(0, http(429, '/analytics/profile', 7_000), middle)).toBe(7_000);
  });
});

describe('createQueryClient', () => {
  it('keeps the query cache defaults', () => {
    const defaults = createQueryClient().getDefaultOptions();
    expect(defaults.queries).toMatchObject({
      staleTime: 10_000,
      gcTime: 5 * 60_000,
      refetchOnWindowFocus: true,
      networkMode: 'online',
    });
    expect(defaults.mutations?.retry).toBe(false);
  });

  it('does not retry a 401 or a 404', async () => {
    for (const status of [401, 404]) {
      const fetchMock = vi.fn<typeof fetch>(async () => failure(status));
      const api = new ApiClient({ fetch: fetchMock, redirectToLogin: () => {} });
      const queryClient = createQueryClient({ budget: new RetryBudget(), random: middle });

      const { error } = await settle(queryClient, '/analytics/profile', api);

      expect(error).toMatchObject({ status });
      expect(fetchMock).toHaveBeenCalledTimes(1);
    }
  });

  it('retries a 503 on /handles at most 3 times', async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => failure(503));
    const api = new ApiClient({ fetch: fetchMock });
    const queryClient = createQueryClient({ budget: new RetryBudget(), random: middle });

    const { error } = await settle(queryClient, '/handles', api);

    expect(error).toMatchObject({ status: 503, path: '/handles' });
    expect(fetchMock).toHaveBeenCalledTimes(4);
  });

  it('retries a network error on /analytics 6 times, backing off', async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => {
      throw new TypeError('Failed to fetch');
    });
    const api = new ApiClient({ fetch: fetchMock });
    const queryClient = createQueryClient({ budget: new RetryBudget(), random: middle });

    const result = queryClient
      .fetchQuery({ queryKey: ['profile'], queryFn: () => api.get('/analytics/profile') })
      .catch((error: unknown) => error);
    await expectCallsOverTime(fetchMock, [
      [0, 1],
      [999, 1],
      [1, 2],
    ]);
    await vi.advanceTimersByTimeAsync(10 * 60_000);

    expect(await result).toMatchObject({ code: NETWORK_ERROR_CODE, path: '/analytics/profile' });
    expect(fetchMock).toHaveBeenCalledTimes(7);
  });

  it('honours Retry-After on a 429', async () => {
    const fetchMock = vi
      .fn<typeof fetch>()
      .mockResolvedValueOnce(failure(429, { 'Retry-After': '7' }))
      .mockResolvedValueOnce(success({ ok: true }));
    const api = new ApiClient({ fetch: fetchMock });
    const queryClient = createQueryClient({ budget: new RetryBudget(), random: middle });

    const result = queryClient.fetchQuery({
      queryKey: ['profile'],
      queryFn: () => api.get('/analytics/profile'),
    });
    await expectCallsOverTime(fetchMock, [
      [6_999, 1],
      [1, 2],
    ]);

    await expect(result).resolves.toEqual({ ok: true });
  });

  it('stops retrying once the global budget of 50 a minute is spent', async () => {
    // Test files share a worker's modules: the budget may hold retries spent by another file.
    globalRetryBudget.reset();
    expect(globalRetryBudget.remaining()).toBe(RETRY_BUDGET_MAX);
    const fetchMock = vi.fn<typeof fetch>(async () => {
      throw new TypeError('Failed to fetch');
    });
    const api = new ApiClient({ fetch: fetchMock });
    const queryClient = createQueryClient({ random: middle });

    // Nine queries could retry 6 times each (54), but all of them share 50 retries.
    const results = Array.from({ length: 9 }, (_, index) =>
      queryClient
        .fetchQuery({
          queryKey: ['analytics', index],
          queryFn: () => api.get(`/analytics/${index}`),
        })
        .catch((error: unknown) => error),
    );
    // Retries are granted at 0, 1, 3, 7 and 15 s (45), then 5 of the 9 at 31 s.
    await vi.advanceTimersByTimeAsync(RETRY_BUDGET_WINDOW_MS - 1_000);
    expect(globalRetryBudget.remaining()).toBe(0);
    expect(shouldRetryQuery(0, network('/analytics/profile'))).toBe(false);

    await vi.advanceTimersByTimeAsync(5_000);
    await Promise.all(results);
    expect(fetchMock).toHaveBeenCalledTimes(9 + RETRY_BUDGET_MAX);

    // A minute after the last retries were granted, the allowance is back.
    await vi.advanceTimersByTimeAsync(RETRY_BUDGET_WINDOW_MS);
    expect(globalRetryBudget.remaining()).toBe(RETRY_BUDGET_MAX);
    expect(shouldRetryQuery(0, network('/analytics/profile'))).toBe(true);
  });
});
