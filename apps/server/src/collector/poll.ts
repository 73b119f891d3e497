import {
  findHandleById,
  type HandleRow,
  type HandleUpdate,
} from '../modules/handles/handles.repository.js';
import type { PageClaim, StoredClaimedPage } from '../alerts/marks.repository.js';
import {
  insertMetricSnapshots,
  upsertPage,
  type StoredPage,
} from '../modules/tweets/tweets.repository.js';
import { catchingUpText, gapCutText, isGapCutText } from '../lib/collection-status.js';
import { comparePostIds } from '../lib/posting-order.js';
import { DEPTH_LIMIT_SHARE, PAGE_SIZE } from './backfill.js';
import {
  handleAfterFailure,
  handleStillWanted,
  recordHandleFailure,
  type FailureRecord,
} from './job-steps.js';
import {
  changedColumns,
  leaseFence,
  maxTweetId,
  msAfter,
  retryAt,
  saveHandle,
  type CollectorContext,
} from './context.js';
import { nextMetricsAt } from './metric-schedule.js';
import { type SourceError, type SourceTweet, type TimelineQuery } from '../domain/tweet-source.js';

/**
 * At most this many pages per poll. A longer walk through new posts (after a restart, an outage
 * or a pause) goes on in the next poll, due at once: the handle catches up.
 */
const MAX_POLL_PAGES = 10;
/** Quiet handles are polled up to this many times less often. */
const MAX_SLOWDOWN = 10;
const MIN_INTERVAL_MS = 5_000;
/** A first metric reading is only worth taking for tweets this young (velocity's start). */
const FIRST_READING_WINDOW_MS = 48 * 3_600_000;

/**
 * When to poll next: sooner when new tweets just arrived, gradually up to 10x slower the more
 * polls in a row (`quietPolls`, this one included) found nothing.
 */
export function nextPollDelayMs(baseMs: number, newTweets: number, quietPolls: number): number {
  if (newTweets > 0) return Math.max(MIN_INTERVAL_MS, baseMs / 2);
  return baseMs * Math.min(MAX_SLOWDOWN, Math.max(1, quietPolls));
}

/** A poll's walk through the new posts of a handle, newest first. */
interface Walk {
  tweets: SourceTweet[];
  /** Where the walk goes on (more pages wait), or null once it reached the last post stored. */
  cursor: string | null;
  /** Pages this poll has read. */
  pages: number;
}

/**
 * True when the source's depth limit, not the last post stored, ended a catch-up: it found
 * about as many new posts as the timeline reaches (a few may be deleted meanwhile), so the
 * gap's older posts were out of reach.
 */
export function gapCutByDepthLimit(depth: number | null, found: number): boolean {
  return depth !== null && found >= depth * DEPTH_LIMIT_SHARE;
}

/**
 * What a poll's walk changes on its handle. A walk that stopped short of the last post stored
 * keeps its place and the newest post it has seen for the next poll, and the handle says it is
 * catching up. Only a walk that got there moves `newest_tweet_id` (to that newest post): moved
 * sooner, it would skip the posts not read yet for good. A note that posts were out of reach
 * stays until another text replaces it.
 */
export function walkOutcome(
  handle: Pick<
    HandleRow,
    'newest_tweet_id' | 'catch_up_newest_id' | 'catch_up_found' | 'last_error'
  >,
  walk: Pick<Walk, 'tweets' | 'cursor'>,
  fresh: number,
  depth: number | null,
): HandleUpdate {
  let newest = handle.newest_tweet_id;
  if (handle.catch_up_newest_id !== null) newest = maxTweetId(newest, handle.catch_up_newest_id);
  for (const tweet of walk.tweets) newest = maxTweetId(newest, tweet.id);
  const found = handle.catch_up_found + fresh;
  if (walk.cursor !== null) {
    return {
      catch_up_cursor: walk.cursor,
      catch_up_newest_id: newest,
      catch_up_found: found,
      last_error: catchingUpText(found),
    };
  }
  const cut = depth !== null && gapCutByDepthLimit(depth, found);
  const kept = isGapCutText(handle.last_error) ? handle.last_error : null;
  return {
    newest_tweet_id: newest,
    catch_up_cursor: null,
    catch_up_newest_id: null,
    catch_up_found: 0,
    last_error: cut ? gapCutText(depth, oldestOf(walk.tweets)) : kept,
  };
}

/**
 * One monitoring round of a backfilled handle: the tweets newer than the newest kept, and
 * nothing else. Profiles (batched by id) and metrics (on a decay schedule) have their own jobs,
 * so a poll costs one request when nothing is new, and X bills only the new posts. More new
 * posts than one poll reads are read by the next polls, each going on where the last stopped.
 */
export async function runPoll(
  ctx: CollectorContext,
  handleId: number,
  signal: AbortSignal,
): Promise<void> {
  const handle = await findHandleById(ctx.db.db, handleId);
  if (!handle || handle.backfill_status !== 'completed') return;
  const xUserId = handle.x_user_id;
  if (!xUserId) return;
  if (!(await handleStillWanted(ctx, handle, 'poll'))) return;

  const walk: Walk = { tweets: [], cursor: handle.catch_up_cursor, pages: 0 };
  try {
    await readNewPages(ctx, handle, xUserId, walk, signal);
    const now = ctx.now();
    const fresh = await storeNewPosts(ctx, handle, walk.tweets, now);
    const saved = await recordPoll(ctx, handle, walk, fresh.length, now);
    announceNewPosts(ctx, saved, fresh);
  } catch (error) {
    const now = ctx.now();
    // Deleted or cleared meanwhile (a write may have failed with it): nothing to record.
    const current = await handleAfterFailure(
      ctx,
      handleId,
      signal,
      (fresh) => fresh.backfill_status === 'completed',
    );
    if (!current) return;
    await recordHandleFailure(ctx, current, error, pollFailureRecord(ctx, handle, walk, now));
  }
}

/**
 * Saves a poll's outcome on its handle: the walk's place, the quiet streak and the next poll.
 * Only the columns that change are written, and the tweet count not at all (upsertTweets keeps
 * it with the rows it inserts), so a poll that found nothing moves the schedule and nothing else.
 */
async function recordPoll(
  ctx: CollectorContext,
  handle: HandleRow,
  walk: Walk,
  fresh: number,
  now: Date,
): Promise<HandleRow> {
  // Past MAX_SLOWDOWN the streak no longer slows the polls: it stops growing, so a quiet
  // handle's row keeps it unchanged.
  const quietPolls = fresh > 0 ? 0 : Math.min(MAX_SLOWDOWN, handle.quiet_polls + 1);
  return saveHandle(ctx, handle, {
    ...changedColumns(handle, {
      ...walkOutcome(handle, walk, fresh, ctx.source.timelineDepth),
      last_poll_at: now.toISOString(),
      quiet_polls: quietPolls,
    }),
    // Always written: it is what takes the handle off the due list.
    // A walk that stopped short goes on at once, paced by the scheduler like any poll.
    next_poll_at:
      walk.cursor !== null
        ? now.toISOString()
        : msAfter(now, nextPollDelayMs(ctx.monitorIntervalMs, fresh, quietPolls)),
  });
}

/** Tells the listeners of each new post, in posting order. */
function announceNewPosts(ctx: CollectorContext, handle: HandleRow, fresh: SourceTweet[]): void {
  // In posting order: posts of one second by id (a snowflake), as every list and feed has them.
  const ordered = [...fresh].sort(
    (a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || comparePostIds(a.id, b.id),
  );
  for (const tweet of ordered) {
    ctx.events.emit('tweet.new', { handleId: handle.id, username: handle.username, tweet });
  }
}

/** What a failed poll writes on its handle, by kind of failure. */
function pollFailureRecord(
  ctx: CollectorContext,
  handle: HandleRow,
  walk: Walk,
  now: Date,
): FailureRecord {
  const polled = { last_poll_at: now.toISOString() };
  // The source refused the place a catch-up stopped at (an old cursor it no longer takes):
  // the walk starts again at the newest post rather than fail at that place for ever.
  const placeRefused = (error: SourceError) =>
    handle.catch_up_cursor !== null && walk.pages === 0 && error.kind === 'unavailable'
      ? { catch_up_cursor: null }
      : {};
  return {
    blocked: (message) => ({ last_error: message }),
    permanent: (message, error) => ({
      last_error: message,
      ...polled,
      next_poll_at: msAfter(now, ctx.monitorIntervalMs * MAX_SLOWDOWN),
      ...placeRefused(error),
    }),
    retry: (error) => ({
      last_error: error.message,
      ...polled,
      next_poll_at: retryAt(error, now),
      ...placeRefused(error),
    }),
    unexpected: () => ({
      last_error: 'Collection failed; retrying shortly',
      next_poll_at: msAfter(now, ctx.monitorIntervalMs),
    }),
    unexpectedLog: 'poll failed',
  };
}

/**
 * Reads up to MAX_POLL_PAGES pages of new posts into `walk`, from where it stands: the newest
 * post, or the place the previous poll's walk stopped at.
 */
async function readNewPages(
  ctx: CollectorContext,
  handle: HandleRow,
  xUserId: string,
  walk: Walk,
  signal: AbortSignal,
): Promise<void> {
  // The same query on every page of a walk, whichever poll reads it: only the cursor moves.
  const query: TimelineQuery = handle.newest_tweet_id
    ? { xUserId, sinceId: handle.newest_tweet_id, maxResults: PAGE_SIZE }
    : { xUserId, startTime: handle.backfill_window_end ?? undefined, maxResults: PAGE_SIZE };
  while (walk.pages < MAX_POLL_PAGES) {
    const page = await ctx.source.timeline({ ...query, cursor: walk.cursor ?? undefined }, signal);
    walk.pages += 1;
    walk.tweets.push(...page.tweets);
    walk.cursor = page.nextCursor;
    if (!page.nextCursor || signal.aborted) return;
  }
}

/**
 * Stores a poll's posts. The new ones are marked for notification in the same transaction, and
 * a young one's first reading is its first metric snapshot (velocity starts from it). Returns
 * the new ones.
 */
async function storeNewPosts(
  ctx: CollectorContext,
  handle: HandleRow,
  tweets: SourceTweet[],
  now: Date,
): Promise<SourceTweet[]> {
  const { db } = ctx;
  // A poll with nothing to store runs no statement: it takes no claim (whose finished marks its
  // statement would delete).
  const alertClaim = tweets.length > 0 ? ctx.alerts?.claim(now) : undefined;
  let stored: StoredPage;
  try {
    stored = await upsertPage(db.db, handle.id, tweets, now.toISOString(), {
      markForFanout: true,
      metricsNextAt: (tweet) => nextMetricsAt(tweet.createdAt, now, ctx.metricRefresh),
      lease: leaseFence(ctx),
      alertClaim,
    });
  } catch (error) {
    if (alertClaim) ctx.alerts!.release(alertClaim);
    throw error;
  }
  const { inserted, claimed } = stored;
  if (alertClaim && claimed) await evaluateAtStore(ctx, handle, alertClaim, claimed, now);
  const fresh = tweets.filter((tweet) => inserted.has(tweet.id));
  const firstReadingSince = now.getTime() - FIRST_READING_WINDOW_MS;
  await insertMetricSnapshots(
    db.db,
    handle.id,
    fresh.filter((tweet) => Date.parse(tweet.createdAt) >= firstReadingSince),
    now.toISOString(),
  );
  return fresh;
}

/**
 * Evaluates the alert rules on a page just stored (collector/context.ts, `alerts`), and tells
 * the rules' owners' pages of what fired. A failure only logs: the page's mark stays claimed
 * until the claim runs out, and then the delivery worker's pass evaluates it.
 */
async function evaluateAtStore(
  ctx: CollectorContext,
  handle: HandleRow,
  claim: PageClaim,
  page: StoredClaimedPage,
  now: Date,
): Promise<void> {
  try {
    const { firings } = await ctx.alerts!.evaluate(claim, page, now);
    for (const firing of firings) {
      ctx.events.emit('alert.fired', {
        handleId: firing.handleId,
        userId: firing.userId,
        firingId: firing.id,
      });
    }
  } catch (error) {
    ctx.log.error({ err: error, handleId: handle.id }, 'alert evaluation of a stored page failed');
  }
}

/** The creation time of the oldest of `tweets`, or null when there is none. */
function oldestOf(tweets: SourceTweet[]): string | null {
  let oldest: string | null = null;
  for (const tweet of tweets) {
    if (oldest === null || Date.parse(tweet.createdAt) < Date.parse(oldest)) {
      oldest = tweet.createdAt;
    }
  }
  return oldest;
}
