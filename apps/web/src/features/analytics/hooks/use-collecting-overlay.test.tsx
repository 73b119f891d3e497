import type { HandleStatusFields } from '@perch/shared';
import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeReading } from '../test/analytics-fixtures';
import {
  COMPLETED_NOTICE_MS,
  FORCED_CLEAR_MS,
  type OverlayInput,
} from '../utils/collecting-overlay';
import { useCollectingOverlay } from './use-collecting-overlay';

const record: HandleStatusFields = {
  backfill_status: 'in_progress',
  backfill_progress: 0,
  backfill_completed_at: null,
  total_tweets_collected: 0,
  last_error: null,
};

type HookInput = Omit<OverlayInput, 'now'>;

/** @nasa collecting at the given reading, with or without data yet. */
function nasaAt(progress: HookInput['progress'], hasData = false): HookInput {
  return { handle: 'nasa', record, progress, hasData };
}

function setup(initial: HookInput) {
  const onCompleted = vi.fn();
  const view = renderHook((props: HookInput) => useCollectingOverlay(props, onCompleted), {
    initialProps: initial,
  });
  return { ...view, onCompleted };
}

describe('useCollectingOverlay', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('clears a slow overlay by force after 60 s and marks it waiting, not failed', () => {
    const { result } = setup(nasaAt(makeReading(0)));
    expect(result.current.visible).toBe(true);

    act(() => vi.advanceTimersByTime(FORCED_CLEAR_MS - 1_000));
    expect(result.current.visible).toBe(true);

    act(() => vi.advanceTimersByTime(1_000));
    expect(result.current).toMatchObject({ visible: false, outcome: 'waiting' });
  });

  it('counts the forced clear as data_ready above 50 %', () => {
    const { result, rerender } = setup(nasaAt(makeReading(10)));
    rerender(nasaAt(makeReading(70)));
    act(() => vi.advanceTimersByTime(FORCED_CLEAR_MS));
    expect(result.current).toMatchObject({ visible: false, outcome: 'data_ready' });
  });

  it('comes off when data arrives, before any timer', () => {
    const { result, rerender } = setup(nasaAt(makeReading(20)));
    rerender(nasaAt(makeReading(30), true));
    expect(result.current.visible).toBe(false);
    act(() => vi.advanceTimersByTime(FORCED_CLEAR_MS));
    expect(result.current.outcome).toBeNull();
  });

  it('announces completion once and shows the notice for 5 s', () => {
    const { result, rerender, onCompleted } = setup(nasaAt(makeReading(40)));
    const done = makeReading(100, { status: 'completed', isComplete: true, totalTweets: 80 });
    rerender(nasaAt(done, true));
    expect(result.current.completedAt).not.toBeNull();
    expect(result.current.visible).toBe(false);
    expect(onCompleted).toHaveBeenCalledTimes(1);
    expect(onCompleted).toHaveBeenCalledWith('nasa');

    act(() => vi.advanceTimersByTime(COMPLETED_NOTICE_MS - 1));
    expect(result.current.completedAt).not.toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(result.current.completedAt).toBeNull();
    rerender(nasaAt({ ...done }, true));
    expect(onCompleted).toHaveBeenCalledTimes(1);
  });

  it('never shows the previous handle’s overlay over a newly selected one', () => {
    const { result, rerender } = setup(nasaAt(makeReading(10)));
    expect(result.current.visible).toBe(true);
    const ready: HandleStatusFields = {
      ...record,
      backfill_status: 'completed',
      backfill_completed_at: '2025-03-01T00:00:00.000Z',
      total_tweets_collected: 500,
    };
    rerender({ handle: 'spacex', record: ready, progress: undefined, hasData: false });
    expect(result.current).toMatchObject({ handle: 'spacex', visible: false });
  });
});
