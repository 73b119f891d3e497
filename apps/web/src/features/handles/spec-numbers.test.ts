/**
 * The handle polling numbers of the simple client, asserted on timing with fake timers
 * (see docs/resilience-numbers.md for the whole table).
 */
import type { Handle, ProgressState } from '@perch/shared';
import { QueryClient, QueryClientProvider, QueryObserver } from '@tanstack/react-query';
import { act, renderHook } from '@testing-library/react';
import { createElement, type FormEvent, type ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { expectCallsOverTime } from '@/test/fake-clock';
import { ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { backfillProgressQueryOptions } from './api/get-backfill-progress';
import { handlesQueryOptions } from './api/get-handles';
import { handleKeys } from './api/handle-keys';
import { useDemoAddHandleForm } from './hooks/demo-add-handle-form';
import { useDemoSmartPolling } from './hooks/demo-smart-polling';
import { makeCollectingHandle, makeHandle } from './test/handle-fixtures';

let queryClient: QueryClient;

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(0);
  queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
});
afterEach(() => {
  queryClient.clear();
  vi.useRealTimers();
});

/** Subscribes an observer (as a mounted component would) and lets its first fetch finish. */
async function observe(observer: { subscribe: (listener: () => void) => () => void }) {
  const unsubscribe = observer.subscribe(() => undefined);
  await vi.advanceTimersByTimeAsync(0);
  return unsubscribe;
}

describe('handle list poll: 3 s while collecting, 30 s otherwise', () => {
  it('polls every 3 s while a handle collects, then every 30 s', async () => {
    const collecting = makeCollectingHandle({
      handle: 'busy',
      backfill_progress: 40,
    });
    let answer: Handle[] = [collecting];
    const queryFn = vi.fn(async () => answer);
    const unsubscribe = await observe(
      new QueryObserver(queryClient, { ...handlesQueryOptions(), queryFn }),
    );
    expect(queryFn).toHaveBeenCalledTimes(1);

    await vi.advanceTimersByTimeAsync(2_999);
    expect(queryFn).toHaveBeenCalledTimes(1);
    answer = [makeHandle({ handle: 'busy' })];
    await vi.advanceTimersByTimeAsync(1);
    expect(queryFn).toHaveBeenCalledTimes(2);

    await expectCallsOverTime(queryFn, [
      [29_999, 2],
      [1, 3],
    ]);
    unsubscribe();
  });
});

describe('progress poll: 2 s', () => {
  const reading = (progress: number, status: ProgressState['status']): ProgressState => ({
    progress,
    status,
    totalTweets: progress,
    hasData: progress > 0,
    isComplete: false,
    completionAcknowledged: false,
    message: '',
    estimatedCompletion: null,
  });

  it('reads the progress every 2 s until the backfill is over', async () => {
    let answer = reading(10, 'collecting');
    const queryFn = vi.fn(async () => answer);
    const unsubscribe = await observe(
      new QueryObserver(queryClient, { ...backfillProgressQueryOptions('busy'), queryFn }),
    );
    expect(queryFn).toHaveBeenCalledTimes(1);
    await expectCallsOverTime(queryFn, [
      [1_999, 1],
      [1, 2],
    ]);

    answer = reading(100, 'completed');
    await expectCallsOverTime(queryFn, [
      [2_000, 3],
      [60_000, 3],
    ]);
    unsubscribe();
  });
});

describe('demo smart polling: fast for 10 s after activity; progress 2 s active, 10 s otherwise', () => {
  it('polls fast until exactly 10 s after the last activity', () => {
    const { result } = renderHook(() => useDemoSmartPolling());
    expect(result.current.intervalOf('handles', false)).toBe(30_000);
    expect(result.current.intervalOf('progress', false)).toBe(10_000);
    expect(result.current.intervalOf('handles', true)).toBe(3_000);
    expect(result.current.intervalOf('progress', true)).toBe(2_000);

    act(() => result.current.recordActivity());
    expect(result.current.intervalOf('handles', false)).toBe(3_000);
    expect(result.current.intervalOf('progress', false)).toBe(2_000);
    act(() => vi.advanceTimersByTime(9_999));
    expect(result.current.intervalOf('handles', false)).toBe(3_000);
    expect(result.current.intervalOf('progress', false)).toBe(2_000);
    act(() => vi.advanceTimersByTime(1));
    expect(result.current.intervalOf('handles', false)).toBe(30_000);
    expect(result.current.intervalOf('progress', false)).toBe(10_000);
  });
});

describe('refetch after add: at once and 1 s later', () => {
  it('invalidates the handle list when the add succeeds and again exactly 1 s later', async () => {
    document.cookie = 'perch_csrf=csrf; path=/';
    const fetchMock = stubFetch({
      'POST /api/v1/handles': () => ok({ handle: makeHandle({ handle: 'nasa' }) }, 201),
    });
    const invalidate = vi.spyOn(queryClient, 'invalidateQueries');
    const listInvalidations = () =>
      invalidate.mock.calls.filter(
        ([filters]) => JSON.stringify(filters?.queryKey) === JSON.stringify(handleKeys.list),
      ).length;
    const onMessage = vi.fn();
    const wrapper = ({ children }: { children: ReactNode }) =>
      createElement(QueryClientProvider, { client: queryClient }, children);
    const { result } = renderHook(
      () => useDemoAddHandleForm({ handles: [], onMessage, onAdding: () => undefined }),
      { wrapper },
    );

    act(() => result.current.setInput('nasa'));
    act(() =>
      result.current.handleSubmit({
        preventDefault: () => undefined,
      } as FormEvent<HTMLFormElement>),
    );
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(requestsTo(fetchMock, 'POST /api/v1/handles')).toHaveLength(1);
    expect(onMessage).toHaveBeenCalledWith({ kind: 'success', text: expect.any(String) });
    expect(listInvalidations()).toBe(1);

    await act(() => vi.advanceTimersByTimeAsync(999));
    expect(listInvalidations()).toBe(1);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(listInvalidations()).toBe(2);
  });
});
