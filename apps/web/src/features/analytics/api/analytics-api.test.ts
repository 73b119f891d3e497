import { ANALYTICS_MESSAGES, REFRESH_MIN_GAP_MS } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { ANALYTICS_COLLECTING_POLL_MS } from '@/lib/polling/intervals';
import { fail, ok, stubFetch } from '@/test/fetch-stub';
import { refreshBlock, refreshErrorText } from '../hooks/use-analytics-refresh';
import { makeCompleteAnalytics } from '../test/analytics-fixtures';
import {
  analyticsPollInterval,
  analyticsQueryKey,
  getCompleteAnalytics,
} from './get-complete-analytics';
import { refreshAnalytics } from './refresh-analytics';

const params = { handle: 'NASA', period: 7, timezone: 'America/New_York' };

describe('analytics API', () => {
  it('keys the cache by lower-case handle, period and time zone', () => {
    expect(analyticsQueryKey(params)).toEqual(['analytics', 'nasa', 7, 'America/New_York']);
  });

  it('asks for the complete payload with period, time zone and the previous period', async () => {
    const fetchMock = stubFetch({
      'GET /api/v1/analytics/complete/NASA': () => ok(makeCompleteAnalytics('nasa')),
    });
    await expect(getCompleteAnalytics(params)).resolves.toMatchObject({ handle: 'nasa' });
    const url = new URL(String(fetchMock.mock.calls[0]?.[0]), 'http://localhost');
    expect(url.searchParams.get('period')).toBe('7');
    expect(url.searchParams.get('timezone')).toBe('America/New_York');
    expect(url.searchParams.get('compare')).toBe('previous');
  });

  it("passes the server's 404 on", async () => {
    stubFetch({
      'GET /api/v1/analytics/complete/ghost': () => fail(404, 'Handle not found', 'NOT_FOUND'),
    });
    const failure = getCompleteAnalytics({ ...params, handle: 'ghost' });
    await expect(failure).rejects.toBeInstanceOf(ApiError);
    await expect(failure).rejects.toMatchObject({ status: 404, message: 'Handle not found' });
  });

  it('rejects a payload that breaks the contract', async () => {
    stubFetch({ 'GET /api/v1/analytics/complete/NASA': () => ok({ handle: 'nasa' }) });
    await expect(getCompleteAnalytics(params)).rejects.toMatchObject({
      message: 'Invalid response format',
    });
  });

  it('polls every 5 s while the handle is collecting, then at the refresh preference', () => {
    expect(analyticsPollInterval(undefined)).toBe(false);
    const collecting = makeCompleteAnalytics('nasa', { analytics_status: 'collecting' });
    expect(analyticsPollInterval(collecting)).toBe(ANALYTICS_COLLECTING_POLL_MS);
    expect(ANALYTICS_COLLECTING_POLL_MS).toBe(5_000);
    expect(analyticsPollInterval(makeCompleteAnalytics('nasa'))).toBe(30_000);
  });

  it('posts a refresh with the window in the query', async () => {
    document.cookie = 'perch_csrf=csrf; path=/';
    const fetchMock = stubFetch({
      'POST /api/v1/analytics/refresh/NASA': () => ok(makeCompleteAnalytics('nasa')),
    });
    await expect(refreshAnalytics(params)).resolves.toMatchObject({ handle: 'nasa' });
    const [input, init] = fetchMock.mock.calls[0] ?? [];
    expect(init?.method).toBe('POST');
    expect(new URL(String(input), 'http://localhost').search).toBe(
      '?period=7&timezone=America%2FNew_York&compare=previous',
    );
  });
});

describe('refresh rules', () => {
  it('blocks a refresh within 5 s of the last one, and while one runs', () => {
    expect(refreshBlock(false, undefined, 0)).toBeNull();
    expect(refreshBlock(false, 1_000, 1_000 + REFRESH_MIN_GAP_MS - 1)).toBe('throttled');
    expect(refreshBlock(true, 1_000, 1_500)).toBe('throttled');
    expect(refreshBlock(true, 1_000, 1_000 + REFRESH_MIN_GAP_MS)).toBe('in-progress');
    expect(refreshBlock(false, 1_000, 1_000 + REFRESH_MIN_GAP_MS)).toBeNull();
  });

  it("tells a 429 in the server's words, anything else as a failed refresh", () => {
    expect(
      refreshErrorText(new ApiError(429, 'Too soon', 'RATE_LIMITED', undefined, 'Too soon')),
    ).toBe('Too soon');
    expect(refreshErrorText(new ApiError(429, 'Request failed', 'HTTP_429'))).toBe(
      ANALYTICS_MESSAGES.refreshThrottled,
    );
    expect(refreshErrorText(new ApiError(500, 'Boom', 'INTERNAL'))).toBe(
      ANALYTICS_MESSAGES.refreshFailed,
    );
  });
});
