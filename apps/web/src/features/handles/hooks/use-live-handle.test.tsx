import type { Handle } from '@perch/shared';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { makeCollectingHandle, makeHandle } from '../test/handle-fixtures';
import { useLiveHandle } from './use-live-handle';

const PROGRESS = 'GET /api/v1/handles/busy/backfill-progress';

function progressAnswer(progress: number, status: string) {
  return () =>
    ok({
      progress,
      status,
      totalTweets: 40,
      message: '',
      estimatedCompletion: null,
      hasData: true,
      lastUpdated: '2025-03-10T12:00:00.000Z',
      isComplete: progress >= 100,
    });
}

describe('useLiveHandle', () => {
  let queryClient: QueryClient;
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  );
  const collecting = makeCollectingHandle({ handle: 'busy', backfill_progress: 40 });
  const ready = makeHandle({ ...collecting, backfill_status: 'completed', backfill_progress: 100 });

  beforeEach(() => {
    queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  });

  /** The hook on `handle`; `rerender({ handle })` gives it the list's next version. */
  function renderLive(handle: Handle, onCompleted: (name: string) => void) {
    return renderHook((props: { handle: Handle }) => useLiveHandle(props.handle, onCompleted), {
      wrapper,
      initialProps: { handle },
    });
  }

  it('tells of the completion once when the list says Ready before a poll reads 100 %', async () => {
    const fetchMock = stubFetch({ [PROGRESS]: progressAnswer(40, 'in_progress') });
    const onCompleted = vi.fn();
    const { rerender } = renderLive(collecting, onCompleted);
    await waitFor(() => expect(requestsTo(fetchMock, PROGRESS)).toHaveLength(1));
    expect(onCompleted).not.toHaveBeenCalled();

    // A live event fetched the list again: the handle is ready, the poll never read 100 %.
    rerender({ handle: ready });
    await waitFor(() => expect(onCompleted).toHaveBeenCalledWith('busy'));
    rerender({ handle: { ...ready } });
    expect(onCompleted).toHaveBeenCalledTimes(1);
  });

  it('tells of it once when the poll reads 100 % first and the list follows', async () => {
    stubFetch({ [PROGRESS]: progressAnswer(100, 'completed') });
    const onCompleted = vi.fn();
    const { rerender } = renderLive(collecting, onCompleted);
    await waitFor(() => expect(onCompleted).toHaveBeenCalledWith('busy'));
    rerender({ handle: ready });
    rerender({ handle: { ...ready } });
    expect(onCompleted).toHaveBeenCalledTimes(1);
  });

  it('says nothing of a handle that was ready or failed from the start', () => {
    stubFetch({});
    const onCompleted = vi.fn();
    const { rerender } = renderLive(ready, onCompleted);
    rerender({ handle: { ...ready } });
    const failed: Handle = { ...collecting, backfill_status: 'failed' };
    rerender({ handle: failed });
    expect(onCompleted).not.toHaveBeenCalled();
  });

  it('says nothing when a collected handle fails', async () => {
    const fetchMock = stubFetch({ [PROGRESS]: progressAnswer(40, 'in_progress') });
    const onCompleted = vi.fn();
    const { rerender } = renderLive(collecting, onCompleted);
    await waitFor(() => expect(requestsTo(fetchMock, PROGRESS)).toHaveLength(1));
    rerender({ handle: { ...collecting, backfill_status: 'failed' } });
    expect(onCompleted).not.toHaveBeenCalled();
  });
});
