import {
  HANDLE_PATTERN,
  MAX_HANDLES_PER_USER,
  normalizeHandle,
  type BackfillProgress,
  type Handle,
} from '@perch/shared';
import {
  coveredShare,
  CREDITS_DEPLETED,
  WAITING_FOR_CREDENTIALS,
  WAITING_TEXTS,
  isDataNote,
} from '../../lib/collection-status.js';
import type { Db, Executor } from '../../db/index.js';
import { badRequest, conflict, notFound } from '../../lib/errors.js';
import type { UserRow } from '../users/users.repository.js';
import { readXApiStatus } from '../x-usage/x-api-status.repository.js';
import {
  countLinks,
  deleteLink,
  findHandleById,
  findHandleByName,
  findLinkedHandle,
  insertHandleUnlessTaken,
  insertLink,
  listLinkedHandles,
  requeueFailedHandle,
  updateHandle,
  type HandleRow,
  type HandleUpdate,
  type LinkedHandleRow,
} from './handles.repository.js';
import { withFollowsLocked } from './follows-lock.repository.js';
import { filterOfLink } from '../../notify/notification-filter.js';

const DAY_MS = 86_400_000;
export const HANDLE_NOT_FOUND = 'Handle not found';
export const INVALID_HANDLE = 'Invalid Twitter handle provided';

/** Whoever runs collection: told when a handle needs (more) backfill. */
export interface BackfillRequester {
  requestBackfill(handleId: number): void;
}

/** Maps a handle and one user's link to the API's handle object. */
export function toHandle(row: LinkedHandleRow): Handle {
  const total = row.total_tweets_collected;
  const complete = Boolean(row.initial_backfill_complete);
  return {
    id: row.id,
    handle: row.username,
    twitter_username: row.username,
    username: row.username,
    created_at: row.created_at,
    added_at: row.added_at,
    backfill_days: row.backfill_days,
    backfill_status: row.backfill_status,
    backfill_progress: row.backfill_progress,
    initial_backfill_complete: complete,
    backfill_completed_at: row.backfill_completed_at,
    estimated_completion: row.estimated_completion,
    total_tweets_collected: total,
    tweets_count: total,
    analytics_available: complete && total > 0,
    followers_count: row.followers_count,
    following_count: row.following_count,
    tweet_count: row.tweet_count,
    telegram_enabled: Boolean(row.telegram_enabled),
    discord_enabled: Boolean(row.discord_enabled),
    webhook_enabled: Boolean(row.webhook_enabled),
    last_error: row.last_error,
    notification_filter: filterOfLink(row),
  };
}

/** A new handle of that name, or the one somebody else added at the same moment. */
async function createHandle(
  db: Executor,
  username: string,
  backfillDays: number,
  now: string,
): Promise<HandleRow> {
  const created = await insertHandleUnlessTaken(db, { username, backfillDays, now });
  if (created) return created;
  const raced = await findHandleByName(db, username);
  if (!raced) throw new Error(`handle @${username} was neither inserted nor found`);
  return raced;
}

/**
 * What a new follower's request changes on a shared handle: a failed collection starts over,
 * and a longer backfill than covered so far widens the window further back.
 */
function widenFor(handle: HandleRow, backfillDays: number, now: number): HandleUpdate | null {
  if (handle.backfill_status === 'failed') {
    return {
      backfill_status: 'pending',
      last_error: null,
      next_poll_at: null,
      backfill_days_covered: Math.max(handle.backfill_days_covered, backfillDays),
      ...(handle.backfill_target_start && backfillDays > handle.backfill_days_covered
        ? { backfill_target_start: new Date(now - backfillDays * DAY_MS).toISOString() }
        : {}),
    };
  }
  if (backfillDays <= handle.backfill_days_covered) return null;
  if (!handle.backfill_target_start || !handle.backfill_window_end) {
    return { backfill_days_covered: backfillDays };
  }
  const targetStart = now - backfillDays * DAY_MS;
  const update: HandleUpdate = {
    backfill_days_covered: backfillDays,
    backfill_target_start: new Date(targetStart).toISOString(),
  };
  if (handle.backfill_status === 'completed') {
    update.backfill_status = 'pending';
    update.next_poll_at = null;
    update.backfill_progress = coveredShare(
      Date.parse(handle.backfill_window_end),
      targetStart,
      Date.parse(handle.oldest_covered_at ?? handle.backfill_target_start),
    );
  }
  return update;
}

export interface AddHandleInput {
  username: string;
  backfillDays: number;
  /** The current time (the collector's clock in tests). */
  now?: Date;
}

/**
 * Links a handle to a user (creating the global handle when nobody had it) and asks the
 * collector for whatever backfill it still needs. Answers at once; collection runs behind.
 */
export async function addHandle(
  db: Db,
  collector: BackfillRequester | undefined,
  user: UserRow,
  input: AddHandleInput,
): Promise<Handle> {
  const username = normalizeHandle(input.username);
  if (!HANDLE_PATTERN.test(username)) throw badRequest(INVALID_HANDLE);
  const now = (input.now ?? new Date()).getTime();
  const nowIso = new Date(now).toISOString();
  let handle = await withFollowsLocked(db, user.id, (trx) =>
    follow(trx, user.id, username, input.backfillDays, nowIso),
  );
  const widen = widenFor(handle, input.backfillDays, now);
  if (widen)
    handle = (await updateHandle(db.db, handle.id, { ...widen, updated_at: nowIso })) ?? handle;
  if (handle.backfill_status !== 'completed') collector?.requestBackfill(handle.id);
  const linked = await findLinkedHandle(db.db, user.id, handle.id);
  if (!linked) throw notFound(HANDLE_NOT_FOUND);
  return toHandle(shownWaiting(linked, await sourceWait(db)));
}

/**
 * The follow itself, run under the user's lock (withFollowsLocked): the checks see every add
 * that committed before, so two tabs or two API nodes cannot both take the last place.
 */
async function follow(
  trx: Executor,
  userId: number,
  username: string,
  backfillDays: number,
  now: string,
): Promise<HandleRow> {
  const existing = await findHandleByName(trx, username);
  if (existing && (await findLinkedHandle(trx, userId, existing.id))) {
    throw conflict(`Already monitoring @${existing.username}`, 'HANDLE_EXISTS');
  }
  if ((await countLinks(trx, userId)) >= MAX_HANDLES_PER_USER) {
    throw badRequest(`Handle limit reached (${MAX_HANDLES_PER_USER})`);
  }
  const handle = existing ?? (await createHandle(trx, username, backfillDays, now));
  await insertLink(trx, { userId, handleId: handle.id, backfillDays, now });
  return handle;
}

/**
 * What every handle not collected yet waits for while X refuses the app's credentials or its
 * credits are gone (no job starts then), or null when X takes them.
 */
async function sourceWait(db: Db): Promise<string | null> {
  const { state } = await readXApiStatus(db.db);
  if (state === 'auth') return WAITING_FOR_CREDENTIALS;
  if (state === 'credits') return CREDITS_DEPLETED;
  return null;
}

/**
 * A handle as its followers should see it while collection waits for X (credentials refused,
 * credits gone): every handle whose collection is paused says so, the collected ones too (their
 * new posts are not coming in), rather than looking complete or about to start, or catching up.
 * A failed handle and one with its own error keep theirs.
 */
export function shownWaiting<T extends HandleRow>(row: T, wait: string | null): T {
  if (wait === null || (row.last_error !== null && !isDataNote(row.last_error))) return row;
  if (row.backfill_status === 'failed') return row;
  return { ...row, last_error: wait };
}

export async function listHandles(db: Db, user: UserRow): Promise<Handle[]> {
  const [rows, wait] = await Promise.all([listLinkedHandles(db.db, user.id), sourceWait(db)]);
  return rows.map((row) => toHandle(shownWaiting(row, wait)));
}

/** GET /handles/{handle}/backfill-progress: the reading, with the wait for X when there is one. */
export async function readProgress(db: Db, handle: HandleRow): Promise<BackfillProgress> {
  return backfillProgress(shownWaiting(handle, await sourceWait(db)));
}

/** Unlinks a handle from a user; its data stays (collection stops once nobody follows it). */
export async function removeHandle(db: Db, user: UserRow, handleId: number): Promise<void> {
  if (!(await deleteLink(db.db, user.id, handleId))) throw notFound(HANDLE_NOT_FOUND);
}

/**
 * POST /handles/{id}/retry: a failed handle (not found, suspended, protected) goes back in the
 * queue from where it stopped. Its followers and admins may retry it; anybody else gets the 404
 * of a handle they cannot see, and a handle that has not failed a 409.
 */
export async function retryHandle(
  db: Db,
  collector: BackfillRequester | undefined,
  user: UserRow,
  handleId: number,
  now: Date = new Date(),
): Promise<HandleRow> {
  const handle = await findHandleById(db.db, handleId);
  if (!handle) throw notFound(HANDLE_NOT_FOUND);
  if (!user.is_admin && !(await findLinkedHandle(db.db, user.id, handle.id))) {
    throw notFound(HANDLE_NOT_FOUND);
  }
  const notFailed = () =>
    conflict(`@${handle.username} has not failed: nothing to retry`, 'HANDLE_NOT_FAILED');
  if (handle.backfill_status !== 'failed') throw notFailed();
  const retried = await requeueFailedHandle(db.db, handle.id, now.toISOString());
  // Somebody else retried it a moment ago.
  if (!retried) throw notFailed();
  collector?.requestBackfill(handle.id);
  return retried;
}

/** The handle named in a path (a leading @ allowed) that this user may read, or a 404. */
export async function readableHandle(db: Db, user: UserRow, name: string): Promise<HandleRow> {
  const username = normalizeHandle(name);
  if (!HANDLE_PATTERN.test(username)) throw notFound(HANDLE_NOT_FOUND);
  const handle = await findHandleByName(db.db, username);
  if (!handle) throw notFound(HANDLE_NOT_FOUND);
  if (!user.is_admin && !(await findLinkedHandle(db.db, user.id, handle.id))) {
    throw notFound(HANDLE_NOT_FOUND);
  }
  return handle;
}

/** 'X returns only the latest 3,200 posts: collected back to 2026-11-18'. */
export function depthLimitMessage(oldestCoveredAt: string | null): string {
  const date = oldestCoveredAt ? oldestCoveredAt.slice(0, 10) : 'the oldest post X returned';
  return `X returns only the latest 3,200 posts: collected back to ${date}`;
}

function progressMessage(handle: HandleRow): string {
  const total = handle.total_tweets_collected;
  // Waiting for X (credentials, credits, the daily budget) is said as such: it is not a failure.
  if (handle.backfill_status !== 'failed' && WAITING_TEXTS.includes(handle.last_error ?? '')) {
    return handle.last_error ?? '';
  }
  if (handle.backfill_status === 'completed' && Boolean(handle.depth_limited)) {
    return depthLimitMessage(handle.oldest_covered_at);
  }
  switch (handle.backfill_status) {
    case 'pending':
      return 'Waiting to start collection';
    case 'starting':
      return 'Starting collection...';
    case 'failed':
      return handle.last_error ?? 'Collection failed';
    case 'completed':
      return `Collection complete: ${total} tweets`;
    default:
      if (handle.paused) {
        return `Collection stopped by an admin at ${Math.floor(handle.backfill_progress)}% (${total} tweets found)`;
      }
      return `Collecting ${Math.floor(handle.backfill_progress)}% (${total} tweets found)`;
  }
}

/** The backfill progress of a handle. */
export function backfillProgress(handle: HandleRow): BackfillProgress {
  const complete = handle.backfill_status === 'completed';
  return {
    progress: handle.backfill_progress,
    status: handle.backfill_status,
    totalTweets: handle.total_tweets_collected,
    message: progressMessage(handle),
    // A stopped collection has no end in sight until an admin starts it again.
    estimatedCompletion: handle.paused ? null : handle.estimated_completion,
    hasData: handle.total_tweets_collected > 0,
    lastUpdated: handle.updated_at,
    isComplete: complete,
    ...(handle.last_error ? { error: handle.last_error } : {}),
  };
}
