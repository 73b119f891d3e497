import { SETTINGS_CACHE_MS, SETTINGS_FETCH_MIN_GAP_MS } from '@perch/shared';
import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { deferred } from '../test/deferred';
import { makeSettings } from '../test/settings-fixtures';
import { getDeliveries } from './get-deliveries';
import { refreshSettings, settingsQueryOptions } from './get-settings';

const newClient = () =>
  new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });

describe('settings fetch rules', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('skips a refresh within 5 s of the last answer unless forced', async () => {
    vi.useFakeTimers();
    const fetchMock = stubFetch({ 'GET /api/v1/settings': () => ok({ settings: makeSettings() }) });
    const client = newClient();
    await refreshSettings(client);
    expect(requestsTo(fetchMock, 'GET /api/v1/settings')).toHaveLength(1);

    vi.advanceTimersByTime(SETTINGS_FETCH_MIN_GAP_MS - 1);
    await refreshSettings(client);
    expect(requestsTo(fetchMock, 'GET /api/v1/settings')).toHaveLength(1);

    await refreshSettings(client, { force: true });
    expect(requestsTo(fetchMock, 'GET /api/v1/settings')).toHaveLength(2);

    vi.advanceTimersByTime(SETTINGS_FETCH_MIN_GAP_MS);
    await refreshSettings(client);
    expect(requestsTo(fetchMock, 'GET /api/v1/settings')).toHaveLength(3);
    expect(SETTINGS_FETCH_MIN_GAP_MS).toBe(5_000);
  });

  it('does nothing while a fetch is in flight, forced or not', async () => {
    const answer = deferred<Response>();
    const fetchMock = stubFetch({ 'GET /api/v1/settings': () => answer.promise });
    const client = newClient();
    const first = refreshSettings(client, { force: true });
    const second = refreshSettings(client);
    const third = refreshSettings(client, { force: true });
    answer.resolve(ok({ settings: makeSettings({ telegram_chat_id: '1' }) }));
    const answers = await Promise.all([first, second, third]);
    expect(answers.map((settings) => settings?.telegram_chat_id)).toEqual(['1', '1', '1']);
    expect(requestsTo(fetchMock, 'GET /api/v1/settings')).toHaveLength(1);
  });

  it('keeps answers 30 s before a mount or focus fetches again', () => {
    expect(settingsQueryOptions().staleTime).toBe(SETTINGS_CACHE_MS);
    expect(SETTINGS_CACHE_MS).toBe(30_000);
  });

  it('swallows a failed refresh: the query state carries it', async () => {
    stubFetch({ 'GET /api/v1/settings': () => Promise.reject(new TypeError('offline')) });
    const client = newClient();
    await expect(refreshSettings(client)).resolves.toBeUndefined();
    expect(client.getQueryState(settingsQueryOptions().queryKey)?.status).toBe('error');
  });

  it('asks the delivery log for a channel and a limit', async () => {
    const fetchMock = stubFetch({
      'GET /api/v1/settings/deliveries': () => ok({ deliveries: [] }),
    });
    await getDeliveries({ channel: 'telegram', limit: 5 });
    const url = new URL(String(fetchMock.mock.calls[0]?.[0]), 'http://localhost');
    expect(url.searchParams.get('channel')).toBe('telegram');
    expect(url.searchParams.get('limit')).toBe('5');
  });
});
