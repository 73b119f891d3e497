import type { BackfillStatus, Handle } from './contracts/handles.js';
import { X_USAGE_MESSAGES } from './contracts/x-usage.js';

/** Statuses that mean the backfill finished (docs/spec-notes.md, Backfill statuses). */
export const READY_STATUSES: readonly BackfillStatus[] = ['completed', 'complete', 'data_ready'];
/** Statuses of a handle whose collection has not really begun. */
export const STARTING_STATUSES: readonly BackfillStatus[] = ['pending', 'starting', 'initializing'];

/** More tweets than this and a finished backfill: pre-scraped, no overlay. */
export const PRE_SCRAPED_TWEET_THRESHOLD = 50;
/** More tweets than this with some progress: a partial collection to resume. */
export const PARTIAL_TWEET_THRESHOLD = 10;
/** Delay before showing a pre-scraped handle's analytics. */
export const PRE_SCRAPED_DELAY_MS = 1_500;
/** Progress drops larger than this are noise unless the status is an error. */
export const MAX_PROGRESS_DROP = 10;

/** The handle fields the status rules read. */
export type HandleStatusFields = Pick<
  Handle,
  | 'backfill_status'
  | 'backfill_progress'
  | 'backfill_completed_at'
  | 'total_tweets_collected'
  | 'last_error'
>;

/** Clamps a percentage to 0-100 (anything not a finite number counts as 0). */
export function clampProgress(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(100, Math.max(0, value));
}

/** True once the backfill finished: a ready status or a completed-at date. */
export function isHandleReady(handle: Pick<Handle, 'backfill_status' | 'backfill_completed_at'>) {
  return READY_STATUSES.includes(handle.backfill_status) || Boolean(handle.backfill_completed_at);
}

/** True while the backfill still runs (neither ready nor failed): the lists poll faster then. */
export function isHandleCollecting(
  handle: Pick<Handle, 'backfill_status' | 'backfill_completed_at'>,
): boolean {
  return !isHandleReady(handle) && handle.backfill_status !== 'failed';
}

/**
 * Texts of a handle whose collection waits for X (the app's credentials, its credits, the daily
 * spend limit): neither ready nor failed, and it resumes by itself.
 */
export const HANDLE_WAITING_TEXTS: readonly string[] = [
  X_USAGE_MESSAGES.credentialsWaiting,
  X_USAGE_MESSAGES.creditsDepleted,
  X_USAGE_MESSAGES.budgetPaused,
];

/** What a handle's collection waits for, or null when it does not wait for X. */
export function handleWaitingReason(
  handle: Pick<Handle, 'backfill_status' | 'last_error'>,
): string | null {
  if (handle.backfill_status === 'failed' || handle.last_error === null) return null;
  return HANDLE_WAITING_TEXTS.includes(handle.last_error) ? handle.last_error : null;
}

export type BadgeColor = 'green' | 'blue' | 'yellow' | 'red';

/** What a handle row shows as its status badge. */
export interface HandleBadge {
  label: string;
  color: BadgeColor;
  /** A second line under the badge, or null. */
  detail: string | null;
}

function tweetsFound(count: number): string {
  return `${count} ${count === 1 ? 'tweet' : 'tweets'} found`;
}

/**
 * The status badge of a handle row (docs/spec-notes.md, Backfill statuses): 'Waiting for X',
 * 'Ready', 'Failed', 'Collecting N%' with 'N tweets found' or 'Scanning...',
 * 'Starting collection...' or 'Collecting data...'.
 */
export function badgeFor(handle: HandleStatusFields): HandleBadge {
  const tweets = Math.max(0, handle.total_tweets_collected);
  // Waiting for X is said as such, even for a collected handle: new tweets are not coming in.
  const waiting = handleWaitingReason(handle);
  if (waiting) return { label: 'Waiting for X', color: 'yellow', detail: waiting };
  // A collected handle's note (its polls catching up after a pause, a gap X's depth limit cut,
  // a poll that failed) goes under 'Ready': the data is there, and the note says what is not.
  if (isHandleReady(handle)) return { label: 'Ready', color: 'green', detail: handle.last_error };
  if (handle.backfill_status === 'failed') {
    return { label: 'Failed', color: 'red', detail: handle.last_error };
  }
  const percent = Math.round(clampProgress(handle.backfill_progress));
  if (percent > 0) {
    return {
      label: `Collecting ${percent}%`,
      color: 'blue',
      detail: tweets > 0 ? tweetsFound(tweets) : 'Scanning...',
    };
  }
  if (STARTING_STATUSES.includes(handle.backfill_status)) {
    return { label: 'Starting collection...', color: 'yellow', detail: null };
  }
  return {
    label: 'Collecting data...',
    color: 'blue',
    detail: tweets > 0 ? tweetsFound(tweets) : null,
  };
}

export type HandleClass = 'pre-scraped-complete' | 'partial' | 'retry' | 'scraping' | 'new';

export interface HandleClassification {
  kind: HandleClass;
  /** Whether the collecting overlay belongs over this handle's analytics. */
  showOverlay: boolean;
  /** How long to wait before showing the analytics. */
  delayMs: number;
}

/** How an added or switched-to handle is treated (docs/spec-notes.md, Handle classification). */
export function classifyHandle(handle: HandleStatusFields): HandleClassification {
  const tweets = handle.total_tweets_collected;
  if (tweets > PRE_SCRAPED_TWEET_THRESHOLD && isHandleReady(handle)) {
    return { kind: 'pre-scraped-complete', showOverlay: false, delayMs: PRE_SCRAPED_DELAY_MS };
  }
  if (tweets > PARTIAL_TWEET_THRESHOLD && handle.backfill_progress > 0) {
    return { kind: 'partial', showOverlay: true, delayMs: 0 };
  }
  if (handle.backfill_status === 'failed' && tweets > 0) {
    return { kind: 'retry', showOverlay: true, delayMs: 0 };
  }
  if (handle.backfill_status === 'in_progress') {
    return { kind: 'scraping', showOverlay: true, delayMs: 0 };
  }
  return { kind: 'new', showOverlay: true, delayMs: 0 };
}

/** Status of a progress reading: the backfill values plus the client's idle and error. */
export type ProgressStatus = BackfillStatus | 'idle' | 'error' | 'unknown';

/** The client's view of one handle's backfill progress (docs/spec-notes.md, Entities). */
export interface ProgressState {
  progress: number;
  status: ProgressStatus;
  totalTweets: number;
  hasData: boolean;
  isComplete: boolean;
  /** Set once the client has shown the completion; later resets are then ignored. */
  completionAcknowledged: boolean;
  message?: string;
  estimatedCompletion?: string | null;
  lastUpdated?: string;
  error?: string;
}

const COMPLETION_STATUSES: readonly ProgressStatus[] = READY_STATUSES;
const ERROR_STATUSES: readonly ProgressStatus[] = ['failed', 'error'];

/** True for a reading that says the backfill is over (100 % or a ready status). */
export function isProgressComplete(state: Pick<ProgressState, 'progress' | 'status'>): boolean {
  return state.progress >= 100 || COMPLETION_STATUSES.includes(state.status);
}

/**
 * Merges a progress reading into the previous one (docs/spec-notes.md, Progress rules): clamps to
 * 0-100; 100 with tweets is completed; after an acknowledged completion, resets and backward
 * moves are ignored and failed becomes completed; drops of more than 10 points are ignored
 * unless the status is an error; data_ready/complete never regresses to initializing.
 */
export function applyProgressUpdate(
  previous: ProgressState | undefined,
  next: ProgressState,
): ProgressState {
  let incoming: ProgressState = {
    ...next,
    progress: clampProgress(next.progress),
    completionAcknowledged: Boolean(
      previous?.completionAcknowledged || next.completionAcknowledged,
    ),
  };
  if (incoming.progress >= 100 && incoming.totalTweets > 0) {
    incoming = { ...incoming, status: 'completed', isComplete: true };
  }
  if (!previous) return incoming;

  if (previous.completionAcknowledged) {
    if (ERROR_STATUSES.includes(incoming.status)) {
      return { ...previous, status: 'completed', isComplete: true };
    }
    if (incoming.progress < previous.progress) return previous;
  }
  if (
    (previous.status === 'data_ready' || previous.status === 'complete') &&
    incoming.status === 'initializing'
  ) {
    return previous;
  }
  const drop = previous.progress - incoming.progress;
  if (drop > MAX_PROGRESS_DROP && !ERROR_STATUSES.includes(incoming.status)) return previous;
  return incoming;
}

/**
 * Temporary (optimistic) handle ids are negative or not integers, so they can never be
 * mistaken for ids the server issues (docs/spec-notes.md, Field rules).
 */
export function isTemporaryHandleId(id: number): boolean {
  return !Number.isSafeInteger(id) || id <= 0;
}

/**
 * The ids that must not reach a server call: temporary client ids. Real ids never warn,
 * however large (the 'handle ids above 1000' warning: docs/spec-notes.md, Field rules).
 */
export function suspiciousHandleIds(ids: readonly number[]): number[] {
  return ids.filter(isTemporaryHandleId);
}

/** The warning shown when temporary ids were about to reach the server. */
export function invalidHandleIdsMessage(ids: readonly number[]): string {
  return `Invalid handle IDs detected (${ids.join(', ')}). Please report this issue.`;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const RELATIVE_LIMIT_MS = 7 * DAY_MS;

/**
 * A tweet's time as the recent-tweets list shows it: 'just now', 'Nm ago', 'Nh ago' or
 * 'Nd ago' under 7 days, else the date, e.g. 'Mar 4, 2025'.
 */
export function formatTweetTime(createdAt: string, now: number = Date.now()): string {
  const time = Date.parse(createdAt);
  if (Number.isNaN(time)) return '';
  const age = Math.max(0, now - time);
  if (age < RELATIVE_LIMIT_MS) {
    if (age < MINUTE_MS) return 'just now';
    if (age < HOUR_MS) return `${Math.floor(age / MINUTE_MS)}m ago`;
    if (age < DAY_MS) return `${Math.floor(age / HOUR_MS)}h ago`;
    return `${Math.floor(age / DAY_MS)}d ago`;
  }
  return new Date(time).toLocaleDateString('en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    timeZone: 'UTC',
  });
}
