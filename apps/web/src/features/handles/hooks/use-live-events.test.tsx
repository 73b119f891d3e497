import type { Handle } from '@perch/shared';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { handleTweetsQueryOptions } from '../api/get-handle-tweets';
import { handleKeys } from '../api/handle-keys';
import { makeHandle } from '../test/handle-fixtures';
import { LIVE_EVENTS_URL, useLiveEvents } from './use-live-events';

/** The browser's EventSource, reduced to what the hook uses; tests push events through it. */
class StubEventSource extends EventTarget {
  static instances: StubEventSource[] = [];
  closed = false;

  constructor(readonly url: string) {
    super();
    StubEventSource.instances.push(this);
  }

  close(): void {
    this.closed = true;
  }

  emit(type: string, data: unknown): void {
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    act(() => {
      this.dispatchEvent(new MessageEvent(type, { data: text }));
    });
  }
}

function latestSource(): StubEventSource {
  const source = StubEventSource.instances.at(-1);
  if (!source) throw new Error('no EventSource was opened');
  return source;
}

describe('useLiveEvents', () => {
  let queryClient: QueryClient;
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  );
  const nasa = makeHandle({
    id: 1,
    handle: 'NASA',
    backfill_status: 'in_progress',
    backfill_progress: 10,
    total_tweets_collected: 5,
  });
  const esa = makeHandle({ id: 2, handle: 'esa' });

  beforeEach(() => {
    StubEventSource.instances = [];
    vi.stubGlobal('EventSource', StubEventSource);
    queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    queryClient.setQueryData<Handle[]>(handleKeys.list, [nasa, esa]);
  });

  afterEach(() => {
    vi.unstubAllGlobals();
    queryClient.clear();
  });

  const handles = () => queryClient.getQueryData<Handle[]>(handleKeys.list);

  /** A page of tweets of each handle in the cache; their keys. */
  function cachedTweets() {
    const nasaTweets = handleTweetsQueryOptions({ handle: 'NASA' }).queryKey;
    const esaTweets = handleTweetsQueryOptions({ handle: 'esa' }).queryKey;
    const empty = { tweets: [], page: 1, limit: 20, total: 0, has_more: false };
    queryClient.setQueryData(nasaTweets, empty);
    queryClient.setQueryData(esaTweets, empty);
    return { nasaTweets, esaTweets };
  }

  it('opens the stream only while signed in and closes it on sign-out and unmount', () => {
    const { rerender, unmount } = renderHook(({ userId }) => useLiveEvents(userId), {
      wrapper,
      initialProps: { userId: null as number | null },
    });
    expect(StubEventSource.instances).toHaveLength(0);

    rerender({ userId: 7 });
    expect(StubEventSource.instances).toHaveLength(1);
    expect(latestSource().url).toBe(LIVE_EVENTS_URL);
    expect(LIVE_EVENTS_URL).toBe('/api/v1/events');

    rerender({ userId: null });
    expect(StubEventSource.instances[0]?.closed).toBe(true);

    rerender({ userId: 8 });
    expect(StubEventSource.instances).toHaveLength(2);
    unmount();
    expect(StubEventSource.instances[1]?.closed).toBe(true);
  });

  it('updates the handle in the list in place on handle.progress', () => {
    renderHook(() => useLiveEvents(7), { wrapper });
    latestSource().emit('handle.progress', {
      handleId: 1,
      username: 'NASA',
      status: 'in_progress',
      progress: 42,
      totalTweets: 80,
      estimatedCompletion: '2025-03-01T02:00:00.000Z',
    });
    expect(handles()).toEqual([
      {
        ...nasa,
        backfill_progress: 42,
        total_tweets_collected: 80,
        estimated_completion: '2025-03-01T02:00:00.000Z',
      },
      esa,
    ]);
    expect(queryClient.getQueryState(handleKeys.list)?.isInvalidated).toBe(false);
  });

  it('sets the status on handle.status and has the list and the progress read again', () => {
    const progressKey = handleKeys.backfillProgress('nasa');
    queryClient.setQueryData(progressKey, { progress: 10 });
    renderHook(() => useLiveEvents(7), { wrapper });
    latestSource().emit('handle.status', {
      handleId: 1,
      username: 'NASA',
      status: 'failed',
      error: 'Rate limited',
    });
    expect(handles()?.[0]).toMatchObject({ backfill_status: 'failed', last_error: 'Rate limited' });
    expect(handles()?.[1]).toBe(esa);
    expect(queryClient.getQueryState(handleKeys.list)?.isInvalidated).toBe(true);
    expect(queryClient.getQueryState(progressKey)?.isInvalidated).toBe(true);
  });

  it("has that handle's tweets read again on tweet.new", () => {
    const { nasaTweets, esaTweets } = cachedTweets();
    renderHook(() => useLiveEvents(7), { wrapper });
    latestSource().emit('tweet.new', { handleId: 1, username: 'NASA', tweet: { id: '9' } });
    expect(queryClient.getQueryState(nasaTweets)?.isInvalidated).toBe(true);
    expect(queryClient.getQueryState(esaTweets)?.isInvalidated).toBe(false);
  });

  it("has that handle's tweets read again when one of the user's alerts fired on it", () => {
    const { nasaTweets, esaTweets } = cachedTweets();
    renderHook(() => useLiveEvents(7), { wrapper });
    latestSource().emit('alert.fired', { handleId: 2, userId: 7, firingId: 5 });
    expect(queryClient.getQueryState(esaTweets)?.isInvalidated).toBe(true);
    expect(queryClient.getQueryState(nasaTweets)?.isInvalidated).toBe(false);
  });

  it("hands the same stream to other features' listeners", () => {
    const heard: string[] = [];
    const listener = (source: EventSource) =>
      source.addEventListener('alert.fired', (event) => {
        heard.push(String((event as MessageEvent<unknown>).data));
      });
    const listeners = [listener];
    renderHook(() => useLiveEvents(7, listeners), { wrapper });
    latestSource().emit('alert.fired', { handleId: 1, userId: 7, firingId: 6 });
    expect(heard).toEqual(['{"handleId":1,"userId":7,"firingId":6}']);
    expect(StubEventSource.instances).toHaveLength(1);
  });

  it('closes the stream for good once newer streams took its place', () => {
    renderHook(() => useLiveEvents(7), { wrapper });
    const source = latestSource();
    source.emit('stream.replaced', {});
    expect(source.closed).toBe(true);
    expect(StubEventSource.instances).toHaveLength(1);
  });

  it('ignores malformed events and leaves reconnecting to EventSource on errors', () => {
    renderHook(() => useLiveEvents(7), { wrapper });
    const source = latestSource();
    source.emit('handle.progress', 'not json');
    source.emit('handle.status', { handleId: 1, status: 'exploded' });
    source.emit('error', '');
    expect(handles()).toEqual([nasa, esa]);
    expect(queryClient.getQueryState(handleKeys.list)?.isInvalidated).toBe(false);
    expect(source.closed).toBe(false);
    expect(StubEventSource.instances).toHaveLength(1);
  });
});
