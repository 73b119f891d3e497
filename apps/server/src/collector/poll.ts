import { countFollowers, findHandleById } from '../modules/handles/handles.repository.js';
import {
  countTweets,
  insertMetricSnapshots,
  upsertTweets,
} from '../modules/tweets/tweets.repository.js';
import {
  BUDGET_PAUSED,
  blockedSourceMessage,
  leaseFence,
  maxTweetId,
  msAfter,
  permanentErrorMessage,
  retryAt,
  saveHandle,
  type CollectorContext,
} from './context.js';
import { nextMetricsAt } from './metric-schedule.js';
import { SourceError, type SourceTweet, type TimelineQuery } from './sources/types.js';

/** At most this many new pages per poll; the rest waits for the next one. */
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

/**
 * One monitoring round of a backfilled handle: the tweets newer than the newest kept, and
 * nothing else. Profiles (batched by id) and metrics (on a decay schedule) have their own jobs,
 * so a poll costs one request when nothing is new, and X bills only the new posts.
 */
export async function runPoll(
  ctx: CollectorContext,
  handleId: number,
  signal: AbortSignal,
): Promise<void> {
  const { db, source } = ctx;
  let handle = await findHandleById(db.db, handleId);
  if (!handle || handle.paused || ctx.collectionPaused()) return;
  if (handle.backfill_status !== 'completed') return;
  const xUserId = handle.x_user_id;
  if (!xUserId) return;
  if ((await countFollowers(db.db, handleId)) === 0) return;
  if (ctx.budget && !(await ctx.budget.allows('poll'))) {
    await saveHandle(ctx, handle, {
      last_error: BUDGET_PAUSED,
      next_poll_at: ctx.budget.resumesAt(),
    });
    return;
  }

  try {
    const fetched: SourceTweet[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < MAX_POLL_PAGES; pages += 1) {
      const query: TimelineQuery = handle.newest_tweet_id
        ? { xUserId, sinceId: handle.newest_tweet_id, cursor, maxResults: 100 }
        : { xUserId, startTime: handle.backfill_window_end ?? undefined, cursor, maxResults: 100 };
      const page = await source.timeline(query, signal);
      fetched.push(...page.tweets);
      if (!page.nextCursor || signal.aborted) break;
      cursor = page.nextCursor;
    }
    const now = ctx.now();
    // New tweets found by monitoring are marked for notification in the same transaction.
    const inserted = await upsertTweets(db.db, handle.id, fetched, now.toISOString(), {
      markForFanout: true,
      metricsNextAt: (tweet) => nextMetricsAt(tweet.createdAt, now),
      lease: leaseFence(ctx),
    });
    const fresh = fetched.filter((tweet) => inserted.has(tweet.id));
    // A young tweet's first reading is its first metric snapshot: velocity starts from it.
    const firstReadingSince = now.getTime() - FIRST_READING_WINDOW_MS;
    await insertMetricSnapshots(
      db.db,
      handle.id,
      fresh.filter((tweet) => Date.parse(tweet.createdAt) >= firstReadingSince),
      now.toISOString(),
    );

    let newest = handle.newest_tweet_id;
    for (const tweet of fetched) newest = maxTweetId(newest, tweet.id);
    const quietPolls = fresh.length > 0 ? 0 : handle.quiet_polls + 1;
    handle = await saveHandle(ctx, handle, {
      newest_tweet_id: newest,
      total_tweets_collected: await countTweets(db.db, handle.id),
      last_poll_at: now.toISOString(),
      quiet_polls: quietPolls,
      next_poll_at: msAfter(now, nextPollDelayMs(ctx.monitorIntervalMs, fresh.length, quietPolls)),
      last_error: null,
    });
    const ordered = [...fresh].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
    for (const tweet of ordered) {
      ctx.events.emit('tweet.new', { handleId: handle.id, username: handle.username, tweet });
    }
  } catch (error) {
    if (signal.aborted) return;
    const now = ctx.now();
    // Deleted or cleared meanwhile (a write may have failed with it): nothing to record.
    const current = await findHandleById(db.db, handleId);
    if (!current || current.backfill_status !== 'completed') return;
    if (error instanceof SourceError) {
      const blocked = blockedSourceMessage(error);
      if (blocked) {
        await ctx.blockSource(error);
        await saveHandle(ctx, current, { last_error: blocked });
        return;
      }
      const message = permanentErrorMessage(error, current.username);
      await saveHandle(ctx, current, {
        last_error: message ?? error.message,
        last_poll_at: now.toISOString(),
        next_poll_at: message
          ? msAfter(now, ctx.monitorIntervalMs * MAX_SLOWDOWN)
          : retryAt(error, now),
      });
      return;
    }
    ctx.log.error({ err: error, handle: current.username }, 'poll failed');
    await saveHandle(ctx, current, {
      last_error: 'Collection failed; retrying shortly',
      next_poll_at: msAfter(now, ctx.monitorIntervalMs),
    });
  }
}
