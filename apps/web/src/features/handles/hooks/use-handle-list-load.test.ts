import { describe, expect, it } from 'vitest';
import { makeHandle } from '../test/handle-fixtures';
import {
  errorClearDelayMs,
  handleListLoadState,
  type HandleListQueryReading,
} from './use-handle-list-load';

const reading = (overrides: Partial<HandleListQueryReading>): HandleListQueryReading => ({
  data: undefined,
  isPending: true,
  error: null,
  failureCount: 0,
  fetchStatus: 'fetching',
  ...overrides,
});

describe('handleListLoadState', () => {
  it('loads quietly, then numbers the failed attempts while they are tried again', () => {
    expect(handleListLoadState(reading({}))).toEqual({
      isLoading: true,
      retryText: null,
      failure: null,
      clearsItself: false,
    });
    expect(handleListLoadState(reading({ failureCount: 2 }))).toMatchObject({
      isLoading: true,
      retryText: 'Failed to load handles (attempt 2/5)',
      failure: null,
    });
    // Offline, the retry waits paused: still a load under way.
    expect(handleListLoadState(reading({ failureCount: 1, fetchStatus: 'paused' }))).toMatchObject({
      isLoading: true,
      retryText: 'Failed to load handles (attempt 1/5)',
    });
  });

  it('alerts once the load gave up, and clears by itself only after the fifth attempt', () => {
    const error = new Error('Database unavailable');
    expect(
      handleListLoadState(
        reading({ isPending: false, error, failureCount: 5, fetchStatus: 'idle' }),
      ),
    ).toEqual({
      isLoading: false,
      retryText: null,
      failure: { title: 'Failed to load handles (attempt 5/5)', message: 'Database unavailable' },
      clearsItself: true,
    });
    // A final failure (a 404) or a spent retry budget ends sooner and waits for Retry.
    expect(
      handleListLoadState(
        reading({ isPending: false, error, failureCount: 1, fetchStatus: 'idle' }),
      ),
    ).toMatchObject({
      failure: { title: 'Failed to load handles (attempt 1/5)' },
      clearsItself: false,
    });
  });

  it('hides a failure while the list is fetched again', () => {
    const error = new Error('Database unavailable');
    expect(
      handleListLoadState(reading({ isPending: false, error, failureCount: 0 })),
    ).toMatchObject({ isLoading: true, retryText: null, failure: null, clearsItself: false });
    // The handles already listed stay; the new failed attempts are told under them.
    expect(
      handleListLoadState(
        reading({ data: [makeHandle({ handle: 'nasa' })], isPending: false, failureCount: 3 }),
      ),
    ).toMatchObject({ isLoading: false, retryText: 'Failed to load handles (attempt 3/5)' });
  });
});

describe('errorClearDelayMs', () => {
  it('counts the 10 s from the failure, not from when a list mounts', () => {
    expect(errorClearDelayMs(1_000, 1_000)).toBe(10_000);
    expect(errorClearDelayMs(1_000, 9_000)).toBe(2_000);
    expect(errorClearDelayMs(1_000, 60_000)).toBe(0);
  });
});
