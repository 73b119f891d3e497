import {
  classifyHandle,
  clampProgress,
  isHandleCollecting,
  isHandleReady,
  isProgressComplete,
  type HandleStatusFields,
  type ProgressState,
} from '@perch/shared';

/** The overlay is cleared by force when data stays incomplete this long. */
export const FORCED_CLEAR_MS = 60_000;
/** How long '@x data collection completed!' shows. */
export const COMPLETED_NOTICE_MS = 5_000;
/** Above this progress a forced clear counts the handle as data_ready, not waiting. */
export const FORCED_READY_MIN_PROGRESS = 50;

/** The parts of a backfill reading the overlay reads (the live poll or the payload's copy). */
export type ProgressReading = Pick<
  ProgressState,
  'progress' | 'status' | 'totalTweets' | 'hasData' | 'isComplete' | 'estimatedCompletion'
> & { message?: string };

/**
 * A reading's progress as every badge and ring shows it: the clamped percentage, rounded (as
 * the handle list's badge does), so that the same reading reads the same everywhere.
 */
export function progressPercent(progress: Pick<ProgressReading, 'progress'> | undefined): number {
  return Math.round(clampProgress(progress?.progress ?? 0));
}

/** What the overlay decides on, at one moment. */
export interface OverlayInput {
  /** The selected handle, or null. */
  handle: string | null;
  /** The selected handle's record in the list (unknown until the list has it). */
  record: HandleStatusFields | undefined;
  /** The latest backfill reading of the selected handle. */
  progress: ProgressReading | undefined;
  /** Whether complete analytics data is present (hasCompleteAnalyticsData). */
  hasData: boolean;
  now: number;
}

/**
 * What a forced clear marked the handle as: data_ready, or still waiting to collect
 * (a queue, a rate limit). Only the server says a collection failed, never a timer.
 */
export type ForcedOutcome = 'data_ready' | 'waiting';

export interface OverlayState {
  /** The handle this state belongs to, lower case; null when none is selected. */
  handle: string | null;
  /** Whether the handle has been classified since it was switched to. */
  classified: boolean;
  /** Whether the collecting overlay covers the analytics. */
  visible: boolean;
  /** When the overlay was put up. */
  shownAt: number | null;
  /** The handle was collecting while selected: its completion is announced. */
  watching: boolean;
  /** Set by a forced clear after 60 s. */
  outcome: ForcedOutcome | null;
  /** When the completion notice began; null when none shows. */
  completedAt: number | null;
}

export const INITIAL_OVERLAY_STATE: OverlayState = {
  handle: null,
  classified: false,
  visible: false,
  shownAt: null,
  watching: false,
  outcome: null,
  completedAt: null,
};

const STOPPED_STATUSES: ReadonlySet<ProgressReading['status']> = new Set(['failed', 'error']);

function isReadingComplete(progress: ProgressReading | undefined): boolean {
  return progress !== undefined && (progress.isComplete || isProgressComplete(progress));
}

/** The backfill is over: the reading says so, or the handle's record already turned ready. */
function isCollectionComplete(
  record: HandleStatusFields | undefined,
  progress: ProgressReading | undefined,
): boolean {
  return isReadingComplete(progress) || (record !== undefined && isHandleReady(record));
}

/** The server says the collection failed: the freshest reading, else the handle's record. */
function isCollectionFailed(
  record: HandleStatusFields | undefined,
  progress: ProgressReading | undefined,
): boolean {
  if (progress && !STOPPED_STATUSES.has(progress.status) && !isReadingComplete(progress)) {
    // A reading still collecting wins over a record that was read before a retry.
    return false;
  }
  return (
    (progress !== undefined && STOPPED_STATUSES.has(progress.status)) ||
    record?.backfill_status === 'failed'
  );
}

/** True while the handle's backfill still runs, by the freshest reading available. */
export function isCollectingNow(
  record: HandleStatusFields | undefined,
  progress: ProgressReading | undefined,
): boolean {
  if (isReadingComplete(progress)) return false;
  if (progress && STOPPED_STATUSES.has(progress.status)) return false;
  if (record) return isHandleCollecting(record);
  return false;
}

function sameState(a: OverlayState, b: OverlayState): boolean {
  return (Object.keys(a) as (keyof OverlayState)[]).every((key) => a[key] === b[key]);
}

/**
 * The collecting overlay's state machine (docs/spec-notes.md, Collecting overlay): pure, so that it
 * can be tested with a clock in hand.
 *
 * - Switching to (or adding) a handle classifies it once its record is known: the overlay goes
 *   up when it is collecting and not pre-scraped (more than 50 tweets and finished: no overlay).
 * - It comes off when complete analytics data is present.
 * - After 60 s it comes off by force: the handle counts as data_ready when progress is above 50
 *   or data exists, else as waiting. A slow start is not a failure: it waits for a queue slot
 *   or a rate limit, and 'failed' is the server's word alone (the handle's status and reason).
 * - When a handle that was collecting while selected reaches 100 % (or isComplete, or its record
 *   turns ready), the overlay comes off and the completion notice shows for 5 s.
 *
 * Returns `previous` itself when nothing changed.
 */
export function nextOverlayState(previous: OverlayState, input: OverlayInput): OverlayState {
  const key = input.handle?.toLowerCase() ?? null;
  let state: OverlayState =
    key === previous.handle ? previous : { ...INITIAL_OVERLAY_STATE, handle: key };
  if (key === null) return state;

  if (!state.classified && input.record) {
    const collecting = isCollectingNow(input.record, input.progress);
    const { showOverlay } = classifyHandle(input.record);
    const visible = collecting && showOverlay && !input.hasData;
    state = {
      ...state,
      classified: true,
      watching: collecting,
      visible,
      shownAt: visible ? input.now : null,
    };
  }

  if (state.watching && isCollectionComplete(input.record, input.progress)) {
    state = { ...state, watching: false, visible: false, outcome: null, completedAt: input.now };
  }

  if (state.visible && input.hasData) state = { ...state, visible: false };

  // The server failed the collection while it was covered: the overlay comes off (the failure
  // notice says why, with Retry).
  if (state.visible && isCollectionFailed(input.record, input.progress)) {
    state = { ...state, visible: false, watching: false };
  }

  if (state.visible && state.shownAt !== null && input.now - state.shownAt >= FORCED_CLEAR_MS) {
    const progress = clampProgress(
      input.progress?.progress ?? input.record?.backfill_progress ?? 0,
    );
    const dataExists =
      input.hasData || Boolean(input.progress?.hasData) || (input.progress?.totalTweets ?? 0) > 0;
    state = {
      ...state,
      visible: false,
      outcome: progress > FORCED_READY_MIN_PROGRESS || dataExists ? 'data_ready' : 'waiting',
    };
  }

  // Data that arrives after a slow start ends the wait.
  if (state.outcome === 'waiting' && input.hasData) state = { ...state, outcome: 'data_ready' };

  if (state.completedAt !== null && input.now - state.completedAt >= COMPLETED_NOTICE_MS) {
    state = { ...state, completedAt: null };
  }

  return sameState(state, previous) ? previous : state;
}

/** The next moment the state changes by itself (forced clear, end of the notice), or null. */
export function nextOverlayDeadline(state: OverlayState): number | null {
  const deadlines: number[] = [];
  if (state.visible && state.shownAt !== null) deadlines.push(state.shownAt + FORCED_CLEAR_MS);
  if (state.completedAt !== null) deadlines.push(state.completedAt + COMPLETED_NOTICE_MS);
  return deadlines.length > 0 ? Math.min(...deadlines) : null;
}
