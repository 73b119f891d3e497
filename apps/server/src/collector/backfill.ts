import {
  countFollowers,
  findHandleById,
  type HandleRow,
} from '../modules/handles/handles.repository.js';
import {
  countTweets,
  insertProfileSnapshot,
  upsertTweets,
} from '../modules/tweets/tweets.repository.js';
import {
  BUDGET_PAUSED,
  blockedSourceMessage,
  emitProgress,
  ensureLeaseHeld,
  leaseFence,
  maxTweetId,
  msAfter,
  permanentErrorMessage,
  retryAt,
  saveHandle,
  type CollectorContext,
} from './context.js';
import { coveredShare } from '../lib/collection-status.js';
import { claimUnownedUserReads } from '../modules/x-usage/x-usage.repository.js';
import { nextMetricsAt } from './metric-schedule.js';
import { SourceError } from '../domain/tweet-source.js';

const DAY_MS = 86_400_000;
/** Tweets asked for per page (the X API maximum). */
const PAGE_SIZE = 100;
/** A resumed walk re-reads this much past the oldest instant reached, so no tweet is skipped. */
const RESUME_OVERLAP_MS = 1_000;

/**
 * A walk that ends before its window start after this share of the source's timeline depth
 * (X: the 3,200 most recent posts) was cut by that limit, not by the account's first post: a
 * few posts deleted meanwhile must not hide the limit.
 */
export const DEPTH_LIMIT_SHARE = 0.98;

/**
 * True when the source's depth limit, not the window start, ended a walk: it stopped early and
 * the handle holds about as many posts as the timeline reaches.
 */
export function cutByDepthLimit(
  depth: number | null,
  collected: number,
  oldest: string | null,
  targetStart: string,
): boolean {
  if (depth === null || oldest === null) return false;
  return collected >= depth * DEPTH_LIMIT_SHARE && Date.parse(oldest) > Date.parse(targetStart);
}

/**
 * Walks a handle's timeline from the newest tweet back to `now - backfill_days`, page by page,
 * saving tweets and progress after every page, so a stopped or crashed walk resumes from the
 * oldest instant reached. Progress is the share of the time window covered.
 */
export async function runBackfill(
  ctx: CollectorContext,
  handleId: number,
  signal: AbortSignal,
): Promise<void> {
  const { db, source } = ctx;
  let handle = await findHandleById(db.db, handleId);
  if (!handle || handle.paused || ctx.collectionPaused()) return;
  if (handle.backfill_status === 'completed' || handle.backfill_status === 'failed') return;
  if ((await countFollowers(db.db, handleId)) === 0) return;
  if (ctx.budget && !(await ctx.budget.allows('backfill'))) {
    await saveHandle(ctx, handle, {
      last_error: BUDGET_PAUSED,
      next_poll_at: ctx.budget.resumesAt(),
    });
    return;
  }

  const jobStartedAt = ctx.now().getTime();
  const progressAtStart = handle.backfill_progress;
  try {
    if (handle.backfill_status === 'pending') {
      handle = await saveHandle(ctx, handle, { backfill_status: 'starting' });
    }
    if (!handle.x_user_id) {
      const profile = await source.lookupUser(handle.username, signal);
      if (profile.protected) throw new SourceError('protected', 'protected account');
      const now = ctx.now().toISOString();
      handle = await saveHandle(ctx, handle, {
        x_user_id: profile.xUserId,
        username: profile.username,
        display_name: profile.name,
        followers_count: profile.followersCount,
        following_count: profile.followingCount,
        tweet_count: profile.tweetCount,
        like_count: profile.likeCount,
        profile_checked_at: now,
      });
      await insertProfileSnapshot(db.db, handle.id, profile, now);
      await claimUnownedUserReads(db.db, handle.id, profile.xUserId);
    }
    if (!handle.backfill_window_end || !handle.backfill_target_start) {
      const now = ctx.now();
      handle = await saveHandle(ctx, handle, {
        backfill_window_end: now.toISOString(),
        backfill_target_start: msAfter(now, -handle.backfill_days_covered * DAY_MS),
      });
    }
    const xUserId = handle.x_user_id;
    if (!xUserId) return;

    let targetStart = handle.backfill_target_start ?? '';
    // Counted once per job (a crash may have stored a page the handle row does not know of),
    // then kept up to date from what each upsert adds.
    let total = await countTweets(db.db, handle.id);
    let cursor: string | undefined;
    let endTime = resumeEnd(handle.oldest_covered_at);
    for (;;) {
      if (signal.aborted) return;
      const page = await source.timeline(
        { xUserId, startTime: targetStart, endTime, cursor, maxResults: PAGE_SIZE },
        signal,
      );
      const now = ctx.now();
      const stored = await upsertTweets(db.db, handle.id, page.tweets, now.toISOString(), {
        metricsNextAt: (tweet) => nextMetricsAt(tweet.createdAt, now),
        lease: leaseFence(ctx),
      });
      total += stored.size;

      // Re-read: a follower may have asked for more days, or everybody may have left; an admin
      // may have deleted the handle or cleared its data (a fresh backfill then takes over).
      const current = await findHandleById(db.db, handle.id);
      if (!current || wasReset(handle, current)) return;
      handle = current;
      let oldest = handle.oldest_covered_at;
      let newest = handle.newest_tweet_id;
      for (const tweet of page.tweets) {
        if (oldest === null || Date.parse(tweet.createdAt) < Date.parse(oldest)) {
          oldest = tweet.createdAt;
        }
        newest = maxTweetId(newest, tweet.id);
      }
      const windowEnd = Date.parse(handle.backfill_window_end ?? now.toISOString());
      const widened = handle.backfill_target_start !== targetStart;
      const reachedEnd = page.nextCursor === null && !widened;
      const depthLimited =
        reachedEnd && cutByDepthLimit(source.timelineDepth, total, oldest, targetStart);
      const progress = reachedEnd
        ? 100
        : Math.min(
            99.9,
            coveredShare(
              windowEnd,
              Date.parse(handle.backfill_target_start ?? targetStart),
              Date.parse(oldest ?? now.toISOString()),
            ),
          );
      const elapsed = now.getTime() - jobStartedAt;
      const gained = progress - progressAtStart;
      const estimated =
        !reachedEnd && gained > 0 && elapsed > 0
          ? msAfter(now, ((100 - progress) * elapsed) / gained)
          : null;

      handle = await saveHandle(ctx, handle, {
        backfill_status: reachedEnd ? 'completed' : 'in_progress',
        backfill_progress: progress,
        total_tweets_collected: total,
        estimated_completion: estimated,
        // Cut by the depth limit, the data really begins at the oldest post reached.
        oldest_covered_at: reachedEnd && !depthLimited ? handle.backfill_target_start : oldest,
        depth_limited: depthLimited,
        newest_tweet_id: newest,
        last_error: null,
        ...(reachedEnd
          ? {
              initial_backfill_complete: true,
              backfill_completed_at: now.toISOString(),
              next_poll_at: msAfter(now, ctx.monitorIntervalMs),
            }
          : { next_poll_at: null }),
      });
      emitProgress(ctx, handle);
      if (reachedEnd) return;
      if ((await countFollowers(db.db, handle.id)) === 0) return;
      if (handle.paused || ctx.collectionPaused()) return;
      if (ctx.budget && !(await ctx.budget.allows('backfill'))) {
        await saveHandle(ctx, handle, {
          last_error: BUDGET_PAUSED,
          next_poll_at: ctx.budget.resumesAt(),
        });
        return;
      }
      if (widened) {
        targetStart = handle.backfill_target_start ?? targetStart;
        cursor = undefined;
        endTime = resumeEnd(handle.oldest_covered_at);
        continue;
      }
      cursor = page.nextCursor ?? undefined;
    }
  } catch (error) {
    if (signal.aborted) return;
    const now = ctx.now();
    // Deleted (a write may have failed with it) or cleared meanwhile: nothing to record.
    const fresh = await findHandleById(db.db, handleId);
    if (!fresh || wasReset(handle, fresh)) return;
    ensureLeaseHeld(ctx, fresh);
    if (error instanceof SourceError) {
      const blocked = blockedSourceMessage(error);
      if (blocked) {
        // Waiting, not failed: the walk resumes where it stopped once X takes the credentials.
        await ctx.blockSource(error);
        await saveHandle(ctx, fresh, { last_error: blocked, estimated_completion: null });
        return;
      }
      const message = permanentErrorMessage(error, fresh.username);
      if (message) {
        await saveHandle(ctx, fresh, {
          backfill_status: 'failed',
          last_error: message,
          estimated_completion: null,
        });
        return;
      }
      ctx.log.warn({ handle: fresh.username, kind: error.kind }, 'backfill paused: will retry');
      await saveHandle(ctx, fresh, {
        last_error: error.message,
        next_poll_at: retryAt(error, now),
      });
      return;
    }
    ctx.log.error({ err: error, handle: fresh.username }, 'backfill failed: will retry');
    await saveHandle(ctx, fresh, {
      last_error: 'Collection failed; retrying shortly',
      next_poll_at: msAfter(now, 60_000),
    });
  }
}

/**
 * True when the handle's collected data was cleared since `before` was read: the backfill
 * window, fixed when a backfill begins, is gone or another one. A job of the old walk must
 * then leave the handle to the fresh backfill rather than write its state over it.
 */
function wasReset(before: HandleRow, current: HandleRow): boolean {
  return (
    before.backfill_window_end !== null &&
    current.backfill_window_end !== before.backfill_window_end
  );
}

function resumeEnd(oldestCoveredAt: string | null): string | undefined {
  if (oldestCoveredAt === null) return undefined;
  return new Date(Date.parse(oldestCoveredAt) + RESUME_OVERLAP_MS).toISOString();
}
