import { describe, expect, it } from 'vitest';
import {
  applyProgressUpdate,
  badgeFor,
  classifyHandle,
  clampProgress,
  formatTweetTime,
  isHandleCollecting,
  isTemporaryHandleId,
  suspiciousHandleIds,
  type HandleStatusFields,
  type ProgressState,
} from './handle-rules.js';

function handle(overrides: Partial<HandleStatusFields> = {}): HandleStatusFields {
  return {
    backfill_status: 'pending',
    backfill_progress: 0,
    backfill_completed_at: null,
    total_tweets_collected: 0,
    last_error: null,
    ...overrides,
  };
}

function progress(overrides: Partial<ProgressState> = {}): ProgressState {
  return {
    progress: 0,
    status: 'collecting',
    totalTweets: 0,
    hasData: false,
    isComplete: false,
    completionAcknowledged: false,
    ...overrides,
  };
}

describe('badgeFor', () => {
  it.each([
    ['completed', '2026-11-20T00:00:00.000Z', 'Waiting for X credentials'],
    ['pending', null, 'Waiting for X credentials'],
    ['in_progress', null, 'X API credits are depleted: add credits in the X Developer Console'],
    [
      'completed',
      '2026-11-20T00:00:00.000Z',
      'Paused: daily X API budget reached (resumes 00:00 UTC)',
    ],
  ] as const)(
    "shows 'Waiting for X' for a %s handle that waits (never 'Ready')",
    (status, at, text) => {
      const waiting = handle({
        backfill_status: status,
        backfill_completed_at: at,
        backfill_progress: 40,
        last_error: text,
      });
      expect(badgeFor(waiting)).toEqual({ label: 'Waiting for X', color: 'yellow', detail: text });
    },
  );

  it("keeps a collected handle's note under 'Ready': catching up, a cut gap", () => {
    const note = 'Catching up: 1,200 new posts so far';
    expect(
      badgeFor(
        handle({
          backfill_status: 'completed',
          backfill_completed_at: '2026-11-20T00:00:00.000Z',
          last_error: note,
        }),
      ),
    ).toEqual({ label: 'Ready', color: 'green', detail: note });
  });

  it('keeps Failed and Ready for other errors', () => {
    expect(
      badgeFor(handle({ backfill_status: 'failed', last_error: 'Waiting for X credentials' }))
        .label,
    ).toBe('Failed');
    expect(
      badgeFor(
        handle({
          backfill_status: 'completed',
          backfill_completed_at: '2026-11-20T00:00:00.000Z',
          last_error: 'X is unavailable (HTTP 503)',
        }),
      ).label,
    ).toBe('Ready');
  });

  it.each(['pending', 'starting', 'initializing'] as const)(
    "shows 'Starting collection...' for %s without progress",
    (status) => {
      expect(badgeFor(handle({ backfill_status: status }))).toEqual({
        label: 'Starting collection...',
        color: 'yellow',
        detail: null,
      });
    },
  );

  it("shows 'Collecting N%' with the tweets found", () => {
    expect(
      badgeFor(
        handle({
          backfill_status: 'collecting',
          backfill_progress: 42.4,
          total_tweets_collected: 17,
        }),
      ),
    ).toEqual({ label: 'Collecting 42%', color: 'blue', detail: '17 tweets found' });
    expect(
      badgeFor(
        handle({ backfill_status: 'in_progress', backfill_progress: 5, total_tweets_collected: 1 }),
      ).detail,
    ).toBe('1 tweet found');
  });

  it("shows 'Scanning...' while no tweets were found yet", () => {
    expect(badgeFor(handle({ backfill_status: 'in_progress', backfill_progress: 12 }))).toEqual({
      label: 'Collecting 12%',
      color: 'blue',
      detail: 'Scanning...',
    });
  });

  it('clamps the percentage shown', () => {
    expect(badgeFor(handle({ backfill_status: 'collecting', backfill_progress: 180 })).label).toBe(
      'Collecting 100%',
    );
  });

  it("shows 'Collecting data...' for a collecting handle without a percentage", () => {
    expect(badgeFor(handle({ backfill_status: 'collecting' })).label).toBe('Collecting data...');
    expect(badgeFor(handle({ backfill_status: 'in_progress' })).label).toBe('Collecting data...');
  });

  it.each(['completed', 'complete', 'data_ready'] as const)("shows 'Ready' for %s", (status) => {
    expect(badgeFor(handle({ backfill_status: status, backfill_progress: 100 })).label).toBe(
      'Ready',
    );
  });

  it("shows 'Ready' when a completed-at date exists, whatever the status", () => {
    expect(
      badgeFor(
        handle({ backfill_status: 'collecting', backfill_completed_at: '2025-01-01T00:00:00Z' }),
      ),
    ).toEqual({ label: 'Ready', color: 'green', detail: null });
  });

  it("shows 'Failed' with the last error", () => {
    expect(badgeFor(handle({ backfill_status: 'failed', last_error: 'User not found' }))).toEqual({
      label: 'Failed',
      color: 'red',
      detail: 'User not found',
    });
  });
});

describe('classifyHandle', () => {
  it('treats more than 50 tweets and a finished backfill as pre-scraped, shown after 1.5 s', () => {
    expect(
      classifyHandle(handle({ backfill_status: 'completed', total_tweets_collected: 51 })),
    ).toEqual({ kind: 'pre-scraped-complete', showOverlay: false, delayMs: 1500 });
  });

  it('needs more than 50 tweets for pre-scraped', () => {
    expect(
      classifyHandle(
        handle({
          backfill_status: 'completed',
          total_tweets_collected: 50,
          backfill_progress: 100,
        }),
      ).kind,
    ).toBe('partial');
  });

  it('treats more than 10 tweets with some progress as partial', () => {
    expect(
      classifyHandle(
        handle({
          backfill_status: 'collecting',
          total_tweets_collected: 11,
          backfill_progress: 30,
        }),
      ).kind,
    ).toBe('partial');
    expect(
      classifyHandle(
        handle({
          backfill_status: 'collecting',
          total_tweets_collected: 10,
          backfill_progress: 30,
        }),
      ).kind,
    ).toBe('new');
  });

  it('treats a failed handle with tweets as a retry, without tweets as new', () => {
    expect(
      classifyHandle(handle({ backfill_status: 'failed', total_tweets_collected: 3 })).kind,
    ).toBe('retry');
    expect(classifyHandle(handle({ backfill_status: 'failed' })).kind).toBe('new');
  });

  it('treats in_progress as scraping and anything else as new', () => {
    expect(classifyHandle(handle({ backfill_status: 'in_progress' })).kind).toBe('scraping');
    expect(classifyHandle(handle({ backfill_status: 'pending' }))).toEqual({
      kind: 'new',
      showOverlay: true,
      delayMs: 0,
    });
  });
});

describe('isHandleCollecting', () => {
  it('is true until the handle is ready or failed', () => {
    expect(isHandleCollecting(handle({ backfill_status: 'starting' }))).toBe(true);
    expect(isHandleCollecting(handle({ backfill_status: 'in_progress' }))).toBe(true);
    expect(isHandleCollecting(handle({ backfill_status: 'data_ready' }))).toBe(false);
    expect(isHandleCollecting(handle({ backfill_status: 'failed' }))).toBe(false);
    expect(
      isHandleCollecting(
        handle({ backfill_status: 'collecting', backfill_completed_at: '2025-01-01T00:00:00Z' }),
      ),
    ).toBe(false);
  });
});

describe('applyProgressUpdate', () => {
  it('clamps progress to 0-100', () => {
    expect(applyProgressUpdate(undefined, progress({ progress: 130 })).progress).toBe(100);
    expect(applyProgressUpdate(undefined, progress({ progress: -5 })).progress).toBe(0);
    expect(clampProgress(Number.NaN)).toBe(0);
  });

  it('turns 100 % with tweets into completed, but not 100 % without tweets', () => {
    expect(
      applyProgressUpdate(undefined, progress({ progress: 100, totalTweets: 4 })),
    ).toMatchObject({ status: 'completed', isComplete: true });
    expect(applyProgressUpdate(undefined, progress({ progress: 100, totalTweets: 0 })).status).toBe(
      'collecting',
    );
  });

  it('accepts forward moves and small drops', () => {
    const previous = progress({ progress: 40 });
    expect(applyProgressUpdate(previous, progress({ progress: 55 })).progress).toBe(55);
    expect(applyProgressUpdate(previous, progress({ progress: 30 })).progress).toBe(30);
  });

  it('ignores drops of more than 10 points unless the status is an error', () => {
    const previous = progress({ progress: 40 });
    expect(applyProgressUpdate(previous, progress({ progress: 29 }))).toBe(previous);
    expect(
      applyProgressUpdate(previous, progress({ progress: 0, status: 'failed' })),
    ).toMatchObject({ progress: 0, status: 'failed' });
    expect(applyProgressUpdate(previous, progress({ progress: 0, status: 'error' })).status).toBe(
      'error',
    );
  });

  /** A completed backfill whose completion the user acknowledged. */
  const acknowledgedCompletion = () =>
    progress({
      progress: 100,
      status: 'completed',
      totalTweets: 80,
      isComplete: true,
      completionAcknowledged: true,
    });

  it('ignores resets and backward moves once completion is acknowledged', () => {
    const previous = acknowledgedCompletion();
    expect(applyProgressUpdate(previous, progress({ progress: 0 }))).toBe(previous);
    expect(applyProgressUpdate(previous, progress({ progress: 95 }))).toBe(previous);
  });

  it('turns a later failure into completed once completion is acknowledged', () => {
    const previous = acknowledgedCompletion();
    expect(
      applyProgressUpdate(previous, progress({ progress: 0, status: 'failed', error: 'boom' })),
    ).toEqual({ ...previous, status: 'completed', isComplete: true });
  });

  it('keeps the acknowledgement across updates', () => {
    const previous = progress({ progress: 100, status: 'completed', completionAcknowledged: true });
    expect(
      applyProgressUpdate(previous, progress({ progress: 100, status: 'data_ready' }))
        .completionAcknowledged,
    ).toBe(true);
  });

  it('ignores a regression from data_ready or complete back to initializing', () => {
    for (const status of ['data_ready', 'complete'] as const) {
      const previous = progress({ progress: 60, status });
      expect(
        applyProgressUpdate(previous, progress({ progress: 60, status: 'initializing' })),
      ).toBe(previous);
    }
    const collecting = progress({ progress: 5, status: 'collecting' });
    expect(
      applyProgressUpdate(collecting, progress({ progress: 5, status: 'initializing' })).status,
    ).toBe('initializing');
  });
});

describe('temporary handle ids', () => {
  it('treats negative, zero and fractional ids as temporary, positive integers as real', () => {
    expect(isTemporaryHandleId(-1)).toBe(true);
    expect(isTemporaryHandleId(0)).toBe(true);
    expect(isTemporaryHandleId(1.5)).toBe(true);
    expect(isTemporaryHandleId(Number.NaN)).toBe(true);
    expect(isTemporaryHandleId(1)).toBe(false);
    expect(isTemporaryHandleId(1001)).toBe(false);
    expect(isTemporaryHandleId(987654)).toBe(false);
  });

  it('never flags real ids, however large; flags temporary ones', () => {
    expect(suspiciousHandleIds([1, 1001, 50_000])).toEqual([]);
    expect(suspiciousHandleIds([3, -2, 1001, -7])).toEqual([-2, -7]);
  });
});

describe('formatTweetTime', () => {
  const now = Date.parse('2025-03-10T12:00:00Z');

  it('shows m/h/d ago under 7 days', () => {
    expect(formatTweetTime('2025-03-10T11:59:30Z', now)).toBe('just now');
    expect(formatTweetTime('2025-03-10T11:15:00Z', now)).toBe('45m ago');
    expect(formatTweetTime('2025-03-10T09:00:00Z', now)).toBe('3h ago');
    expect(formatTweetTime('2025-03-08T12:00:00Z', now)).toBe('2d ago');
    expect(formatTweetTime('2025-03-03T12:00:01Z', now)).toBe('6d ago');
  });

  it('shows the date from 7 days on', () => {
    expect(formatTweetTime('2025-03-03T12:00:00Z', now)).toBe('Mar 3, 2025');
    expect(formatTweetTime('2024-12-25T08:00:00Z', now)).toBe('Dec 25, 2024');
  });

  it('shows nothing for an unreadable date', () => {
    expect(formatTweetTime('not a date', now)).toBe('');
  });
});
