// What the x-web bench counts, from the fake's request log and the collector's events: requests
// by operation and account, the windows of each account's limits as the fake kept them, the
// polls of each handle and the gaps between them, and how long each new post took to be stored.
import { X_WEB_OPERATIONS } from '@perch/shared';

/** X's window of the per-account limits (the fake's WINDOW_MS). */
export const WINDOW_MS = 15 * 60_000;
/** The operation the collector polls and backfills timelines with. */
export const TIMELINE = 'UserTweetsAndReplies';

/**
 * The fake's request log, kept small: each request with the virtual instant it was sent at.
 * The clock stands still while the collector's jobs run, so the instant of the step that drained
 * the log is the instant the fake saw.
 */
export function createRequestLog() {
  const entries = [];
  return {
    entries,
    drain(fake, at) {
      for (const request of fake.requests) {
        entries.push({
          at,
          operation: request.operation,
          account: request.account,
          status: request.status,
          userId: request.variables?.userId ?? null,
          paged: typeof request.variables?.cursor === 'string',
          path: request.path,
          valid: request.valid,
        });
      }
      fake.requests.length = 0;
    },
  };
}

const inRange = (at, from, to) => at >= from && at < to;

/** Requests per operation in [from, to), the x.com client's page and scripts as `client`. */
export function requestsByOperation(entries, from, to) {
  const counts = Object.fromEntries([...X_WEB_OPERATIONS, 'client'].map((op) => [op, 0]));
  for (const entry of entries) {
    if (!inRange(entry.at, from, to)) continue;
    counts[entry.operation ?? 'client'] += 1;
  }
  return counts;
}

/** Requests per account and operation in [from, to). */
export function requestsByAccount(entries, from, to) {
  const result = {};
  for (const entry of entries) {
    if (!entry.account || !inRange(entry.at, from, to)) continue;
    const counts = (result[entry.account] ??= {});
    counts[entry.operation] = (counts[entry.operation] ?? 0) + 1;
  }
  return result;
}

/** Answers by status over the whole log: { operation: { status: n } }. */
export function statuses(entries) {
  const result = {};
  for (const entry of entries) {
    const byStatus = (result[entry.operation ?? 'client'] ??= {});
    byStatus[entry.status] = (byStatus[entry.status] ?? 0) + 1;
  }
  return result;
}

/**
 * The most requests one account had served in one window of each operation, over the windows
 * opened at or after `from`. The windows are rebuilt as the fake keeps them: one opens at the
 * first request after the last one reset and lasts 15 minutes; a 429 is not counted in it.
 */
export function busiestWindows(entries, from = -Infinity) {
  const windows = new Map();
  const most = {};
  for (const entry of entries) {
    if (!entry.account || !entry.operation || (entry.status !== 200 && entry.status !== 429)) {
      continue;
    }
    const key = `${entry.account}|${entry.operation}`;
    let window = windows.get(key);
    if (!window || window.resetAt <= entry.at) {
      window = { used: 0, openedAt: entry.at, resetAt: entry.at + WINDOW_MS };
      windows.set(key, window);
    }
    if (entry.status === 200) window.used += 1;
    if (window.openedAt < from) continue;
    most[entry.operation] = Math.max(most[entry.operation] ?? 0, window.used);
  }
  return most;
}

/**
 * The polls of each handle: timeline reads answered 200 that start a walk (no cursor), sent
 * once its backfill was done. `handles` holds { username, xUserId, backfillDoneAt }.
 */
export function pollTimes(entries, handles) {
  const doneAt = new Map(handles.map((h) => [h.xUserId, h.backfillDoneAt ?? Infinity]));
  const times = new Map(handles.map((h) => [h.xUserId, []]));
  for (const entry of entries) {
    if (entry.operation !== TIMELINE || entry.status !== 200 || entry.paged) continue;
    if (!(entry.at > doneAt.get(entry.userId))) continue;
    times.get(entry.userId)?.push(entry.at);
  }
  return times;
}

/**
 * A handle's polls in [from, to): how many, and the largest gap between two in a row, counting
 * the gap that runs into `from` and the one still open at `to`.
 */
export function pollStats(times, from, to) {
  let count = 0;
  let maxGap = 0;
  let previous = null;
  for (const at of times) {
    if (at >= to) break;
    if (at >= from) {
      count += 1;
      if (previous !== null) maxGap = Math.max(maxGap, at - previous);
    }
    previous = at;
  }
  maxGap = Math.max(maxGap, to - (previous ?? from));
  return { count, maxGap };
}

/**
 * How long each post created in [from, to) took to be stored (the collector's `tweet.new`).
 * A post not stored by `to` counts with its age at `to` and as `unstored`.
 */
export function postDelays(posts, storedAt, from, to) {
  const delays = [];
  let unstored = 0;
  for (const post of posts) {
    if (!inRange(post.createdMs, from, to)) continue;
    const at = storedAt.get(post.id);
    if (at === undefined) unstored += 1;
    delays.push((at ?? to) - post.createdMs);
  }
  return { delays, unstored };
}
