import { describe, expect, it, vi } from 'vitest';
import { runOnFakeClock } from '@/test/fake-clock';
import { ApiError, NETWORK_ERROR_CODE, TIMEOUT_CODE } from '../api-client';
import {
  RetryBudget,
  categorizeFailure,
  decideRetry,
  isRetryableFailure,
  maxRetriesFor,
  retryDelayMs,
} from './retry-policy';

const http = (status: number, retryAfterMs?: number) =>
  new ApiError(status, `HTTP ${status}`, `HTTP_${status}`, undefined, undefined, retryAfterMs);
const network = new ApiError(0, 'offline', NETWORK_ERROR_CODE);
const timeout = new ApiError(0, 'timeout', TIMEOUT_CODE);
const middle = () => 0.5;

runOnFakeClock(new Date('2026-01-01T00:00:00Z'));

describe('categorizeFailure and maxRetriesFor', () => {
  it('puts the endpoint first, then the failure', () => {
    expect(categorizeFailure('/health', http(500))).toBe('health');
    expect(categorizeFailure('/api/v1/auth/check', network)).toBe('auth');
    expect(categorizeFailure('/handles/x/backfill-progress', http(503))).toBe('progress');
    expect(categorizeFailure('/handles?page=2', http(429))).toBe('handles');
    expect(categorizeFailure('/analytics/profile', http(429))).toBe('rateLimited');
    expect(categorizeFailure('/analytics/profile', http(502))).toBe('server');
    expect(categorizeFailure('/analytics/profile', network)).toBe('network');
    expect(categorizeFailure(undefined, timeout)).toBe('network');
    expect(categorizeFailure('/settings', http(408))).toBe('other');
    expect(categorizeFailure(undefined, new Error('boom'))).toBe('other');
  });

  it('allows the retries of each failure kind', () => {
    expect(maxRetriesFor('health')).toBe(2);
    expect(maxRetriesFor('auth')).toBe(2);
    expect(maxRetriesFor('progress')).toBe(5);
    expect(maxRetriesFor('handles')).toBe(3);
    expect(maxRetriesFor('rateLimited')).toBe(8);
    expect(maxRetriesFor('server')).toBe(5);
    expect(maxRetriesFor('network')).toBe(6);
    expect(maxRetriesFor('other')).toBe(3);
  });
});

describe('isRetryableFailure', () => {
  it('retries 408, 409, 429, 5xx and missing responses only', () => {
    for (const status of [408, 409, 429, 500, 502, 503, 599]) {
      expect(isRetryableFailure(http(status))).toBe(true);
    }
    expect(isRetryableFailure(network)).toBe(true);
    expect(isRetryableFailure(timeout)).toBe(true);
    for (const status of [400, 401, 403, 404, 405, 410, 422]) {
      expect(isRetryableFailure(http(status))).toBe(false);
    }
    expect(isRetryableFailure(new DOMException('aborted', 'AbortError'))).toBe(false);
    expect(isRetryableFailure(new Error('bug'))).toBe(false);
  });
});

describe('retryDelayMs', () => {
  it('starts at 1 s and doubles up to 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 10].map((n) => retryDelayMs(n, network, middle))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('adds at most 20% jitter either way', () => {
    expect(retryDelayMs(0, network, () => 0)).toBe(800);
    expect(retryDelayMs(0, network, () => 0.999_999)).toBe(1_200);
    expect(retryDelayMs(3, network, () => 0.75)).toBe(8_800);
    expect(retryDelayMs(9, network, () => 0)).toBe(24_000);
    expect(retryDelayMs(9, network, () => 0.999_999)).toBe(36_000);
  });

  it('takes another base and longest wait when given, keeping jitter and Retry-After', () => {
    const backoff = { baseMs: 2_000, maxMs: 30_000 };
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelayMs(n, network, middle, backoff))).toEqual([
      2_000, 4_000, 8_000, 16_000, 30_000, 30_000,
    ]);
    expect(retryDelayMs(0, network, () => 0, backoff)).toBe(1_600);
    expect(retryDelayMs(0, http(429, 7_000), middle, backoff)).toBe(7_000);
  });

  it("honours a 429's Retry-After, capped at 5 min", () => {
    expect(retryDelayMs(0, http(429, 7_000), middle)).toBe(7_000);
    expect(retryDelayMs(4, http(429, 0), middle)).toBe(0);
    expect(retryDelayMs(0, http(429, 10 * 60_000), middle)).toBe(300_000);
    expect(retryDelayMs(0, http(503, 7_000), middle)).toBe(1_000);
  });
});

describe('RetryBudget', () => {
  it('allows 50 retries per rolling minute', () => {
    const budget = new RetryBudget();
    for (let i = 0; i < 25; i += 1) expect(budget.tryAcquire()).toBe(true);
    vi.advanceTimersByTime(30_000);
    for (let i = 0; i < 25; i += 1) expect(budget.tryAcquire()).toBe(true);
    expect(budget.remaining()).toBe(0);
    expect(budget.tryAcquire()).toBe(false);
    vi.advanceTimersByTime(29_999);
    expect(budget.tryAcquire()).toBe(false);
    vi.advanceTimersByTime(1);
    expect(budget.remaining()).toBe(25);
    vi.advanceTimersByTime(30_000);
    expect(budget.remaining()).toBe(50);
  });
});

describe('decideRetry', () => {
  it('retries under the category limit with the backoff delay', () => {
    const budget = new RetryBudget();
    expect(
      decideRetry({ path: '/health', error: network, retriesSoFar: 0, budget, random: middle }),
    ).toEqual({ retry: true, delayMs: 1_000 });
    expect(
      decideRetry({ path: '/health', error: network, retriesSoFar: 1, budget, random: middle }),
    ).toEqual({ retry: true, delayMs: 2_000 });
    expect(decideRetry({ path: '/health', error: network, retriesSoFar: 2, budget })).toEqual({
      retry: false,
    });
    expect(decideRetry({ error: http(429), retriesSoFar: 7, budget, random: middle })).toEqual({
      retry: true,
      delayMs: 30_000,
    });
    expect(decideRetry({ error: http(429), retriesSoFar: 8, budget })).toEqual({ retry: false });
    expect(budget.remaining()).toBe(47);
  });

  it("lets a call's own limit and backoff replace its category's", () => {
    const budget = new RetryBudget();
    const handleList = {
      path: '/handles',
      maxRetries: 4,
      backoff: { baseMs: 2_000, maxMs: 30_000 },
    };
    // The handles category alone stops after 3 retries.
    expect(decideRetry({ path: '/handles', error: http(503), retriesSoFar: 3, budget })).toEqual({
      retry: false,
    });
    expect(
      decideRetry({ ...handleList, error: http(503), retriesSoFar: 3, budget, random: middle }),
    ).toEqual({ retry: true, delayMs: 16_000 });
    expect(decideRetry({ ...handleList, error: http(503), retriesSoFar: 4, budget })).toEqual({
      retry: false,
    });
    // Still never a final failure, and still out of the shared budget.
    expect(decideRetry({ ...handleList, error: http(404), retriesSoFar: 0, budget })).toEqual({
      retry: false,
    });
    expect(budget.remaining()).toBe(49);
  });

  it('never retries a final failure and spends nothing on it', () => {
    const budget = new RetryBudget();
    expect(decideRetry({ error: http(404), retriesSoFar: 0, budget })).toEqual({ retry: false });
    expect(decideRetry({ error: http(401), retriesSoFar: 0, budget })).toEqual({ retry: false });
    expect(budget.remaining()).toBe(50);
  });

  it('stops every caller once the shared budget is spent', () => {
    const budget = new RetryBudget();
    for (let i = 0; i < 50; i += 1) {
      expect(decideRetry({ error: network, retriesSoFar: 0, budget }).retry).toBe(true);
    }
    expect(decideRetry({ path: '/handles', error: http(500), retriesSoFar: 0, budget })).toEqual({
      retry: false,
    });
    vi.advanceTimersByTime(60_000);
    expect(decideRetry({ error: network, retriesSoFar: 0, budget }).retry).toBe(true);
  });
});
