import type { HandleStatusFields } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { makeReading } from '../test/analytics-fixtures';
import {
  COMPLETED_NOTICE_MS,
  FORCED_CLEAR_MS,
  INITIAL_OVERLAY_STATE,
  isCollectingNow,
  nextOverlayDeadline,
  nextOverlayState,
  progressPercent,
  type OverlayInput,
  type OverlayState,
  type ProgressReading,
} from './collecting-overlay';

const collectingRecord: HandleStatusFields = {
  backfill_status: 'in_progress',
  backfill_progress: 10,
  backfill_completed_at: null,
  total_tweets_collected: 0,
  last_error: null,
};

const preScraped: HandleStatusFields = {
  backfill_status: 'completed',
  backfill_progress: 100,
  backfill_completed_at: '2025-03-01T01:00:00.000Z',
  total_tweets_collected: 51,
  last_error: null,
};

function input(overrides: Partial<OverlayInput> = {}): OverlayInput {
  return {
    handle: 'nasa',
    record: collectingRecord,
    progress: makeReading(10),
    hasData: false,
    now: 0,
    ...overrides,
  };
}

/** Runs the machine over a list of moments, as the hook would. */
function run(...inputs: OverlayInput[]): OverlayState {
  return inputs.reduce(nextOverlayState, INITIAL_OVERLAY_STATE);
}

describe('collecting overlay state machine', () => {
  it('goes up for a collecting handle that is switched to', () => {
    const state = run(input({ now: 1_000 }));
    expect(state).toMatchObject({ handle: 'nasa', visible: true, shownAt: 1_000, watching: true });
  });

  it('stays down for a pre-scraped handle (more than 50 tweets, finished)', () => {
    expect(run(input({ record: preScraped, progress: undefined })).visible).toBe(false);
    expect(isCollectingNow(preScraped, undefined)).toBe(false);
  });

  it('stays down when the analytics are already complete', () => {
    expect(run(input({ hasData: true })).visible).toBe(false);
  });

  it('waits for the handle record before it decides', () => {
    const waiting = run(input({ record: undefined }));
    expect(waiting).toMatchObject({ classified: false, visible: false });
    expect(nextOverlayState(waiting, input({ now: 5 }))).toMatchObject({
      classified: true,
      visible: true,
      shownAt: 5,
    });
  });

  it('comes off as soon as complete data is present, and stays off', () => {
    const shown = run(input());
    const cleared = nextOverlayState(shown, input({ hasData: true, now: 2_000 }));
    expect(cleared.visible).toBe(false);
    expect(nextOverlayState(cleared, input({ hasData: false, now: 3_000 })).visible).toBe(false);
  });

  it('is cleared by force after 60 s: still waiting at 0 % without data, never failed', () => {
    const shown = run(input({ progress: makeReading(0) }));
    const before = nextOverlayState(
      shown,
      input({ progress: makeReading(0), now: FORCED_CLEAR_MS - 1 }),
    );
    expect(before.visible).toBe(true);
    const after = nextOverlayState(
      before,
      input({ progress: makeReading(0), now: FORCED_CLEAR_MS }),
    );
    // A queue or a rate limit is a wait: only the server's status says 'failed'.
    expect(after).toMatchObject({ visible: false, outcome: 'waiting' });
  });

  it('is cleared by force as data_ready above 50 % or when data exists', () => {
    const at = (progress: ProgressReading) =>
      run(input({ progress }), input({ progress, now: FORCED_CLEAR_MS })).outcome;
    expect(at(makeReading(51))).toBe('data_ready');
    expect(at(makeReading(50))).toBe('waiting');
    expect(at(makeReading(5, { hasData: true }))).toBe('data_ready');
    expect(at(makeReading(5, { totalTweets: 3 }))).toBe('data_ready');
  });

  it('comes off when the server fails the collection it covers', () => {
    const shown = run(input({ progress: makeReading(0) }));
    expect(shown.visible).toBe(true);
    const failed = nextOverlayState(
      shown,
      input({ progress: makeReading(0, { status: 'failed' }), now: 3_000 }),
    );
    expect(failed).toMatchObject({ visible: false, watching: false, outcome: null });
  });

  it('turns a wait into data_ready when data arrives after all', () => {
    const stuck = run(
      input({ progress: makeReading(0) }),
      input({ progress: makeReading(0), now: 60_000 }),
    );
    expect(nextOverlayState(stuck, input({ hasData: true, now: 61_000 })).outcome).toBe(
      'data_ready',
    );
  });

  it('announces completion at 100 % for 5 s, then forgets it', () => {
    const shown = run(input());
    const done = nextOverlayState(
      shown,
      input({ progress: makeReading(100, { status: 'completed', isComplete: true }), now: 10_000 }),
    );
    expect(done).toMatchObject({ visible: false, watching: false, completedAt: 10_000 });
    expect(nextOverlayDeadline(done)).toBe(10_000 + COMPLETED_NOTICE_MS);
    const later = nextOverlayState(done, input({ progress: makeReading(100), now: 15_000 }));
    expect(later.completedAt).toBeNull();
  });

  it('announces completion once the record turns ready, even without a 100 % reading', () => {
    const shown = run(input({ progress: makeReading(80) }));
    const done = nextOverlayState(
      shown,
      input({ record: preScraped, progress: makeReading(80), now: 7 }),
    );
    expect(done.completedAt).toBe(7);
  });

  it('does not announce a handle that was already finished when selected', () => {
    const state = run(
      input({ record: preScraped, progress: undefined }),
      input({ record: preScraped, progress: makeReading(100, { isComplete: true }), now: 1 }),
    );
    expect(state.completedAt).toBeNull();
  });

  it('starts over for another handle and returns the same state when nothing changed', () => {
    const shown = run(input());
    expect(nextOverlayState(shown, input({ now: 10 }))).toBe(shown);
    const other = nextOverlayState(shown, input({ handle: 'spacex', record: preScraped }));
    expect(other).toMatchObject({ handle: 'spacex', visible: false, shownAt: null });
    expect(nextOverlayState(shown, input({ handle: null }))).toEqual(INITIAL_OVERLAY_STATE);
  });

  it('reads the handle case-insensitively', () => {
    const shown = run(input({ handle: 'NASA' }));
    expect(nextOverlayState(shown, input({ handle: 'nasa', now: 1 }))).toBe(shown);
  });

  it('names its next deadline: the forced clear while up', () => {
    expect(nextOverlayDeadline(INITIAL_OVERLAY_STATE)).toBeNull();
    expect(nextOverlayDeadline(run(input({ now: 500 })))).toBe(500 + FORCED_CLEAR_MS);
  });
});

describe('progressPercent', () => {
  it('rounds the clamped progress, as the handle list badge does', () => {
    expect(progressPercent({ progress: 2.6 })).toBe(3);
    expect(progressPercent({ progress: 2.4 })).toBe(2);
    expect(progressPercent({ progress: 140 })).toBe(100);
    expect(progressPercent({ progress: -5 })).toBe(0);
    expect(progressPercent({ progress: Number.NaN })).toBe(0);
    expect(progressPercent(undefined)).toBe(0);
  });
});
