import {
  findHandleById,
  type HandleRow,
  type HandleUpdate,
} from '../modules/handles/handles.repository.js';
import {
  countTweets,
  insertProfileSnapshot,
  upsertTweets,
} from '../modules/tweets/tweets.repository.js';
import {
  emitProgress,
  ensureLeaseHeld,
  leaseFence,
  maxTweetId,
  msAfter,
  retryAt,
  saveHandle,
  saveHandleWhile,
  type CollectorContext,
} from './context.js';
import { coveredShare } from '../lib/collection-status.js';
import { claimUnownedUserReads } from '../modules/x-usage/x-usage.repository.js';
import { nextMetricsAt } from './metric-schedule.js';
import { SourceError, type TimelinePage } from '../domain/tweet-source.js';
import {
  handleAfterFailure,
  handleStillWanted,
  recordHandleFailure,
  type FailureRecord,
} from './job-steps.js';
const DAY_MS = 86_400_000;
/** Tweets asked for per timeline page, by backfills and polls alike (the X API maximum). */
export const PAGE_SIZE = 100;
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

/** One backfill job: the handle as last read or written, and where the job began. */
interface BackfillRun {
  handle: HandleRow;
  /** When the job started (epoch ms): the estimate's pace is measured from it. */
  startedAt: number;
  /** The handle's progress when the job started. */
  progressAtStart: number;
}

/** Where a backfill's walk stands between two pages. */
interface WalkPosition {
  xUserId: string;
  /** The window start the walk reads towards (the handle's may move: a follower widened it). */
  targetStart: string;
  /** Tweets the handle holds. */
  total: number;
  cursor: string | undefined;
  endTime: string | undefined;
}

/** What one page did to the walk. */
interface PageOutcome {
  /** The walk reached the window start (or the depth limit): the backfill is complete. */
  reachedEnd: boolean;
  /** A follower asked for more days meanwhile: the walk starts again towards the new start. */
  widened: boolean;
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
  const handle = await findHandleById(ctx.db.db, handleId);
  if (!handle || !backfillUnfinished(handle)) return;
  if (!(await handleStillWanted(ctx, handle, 'backfill'))) return;
  const run: BackfillRun = {
    handle,
    startedAt: ctx.now().getTime(),
    progressAtStart: handle.backfill_progress,
  };
  try {
    await ensureProfile(ctx, run, signal);
    await fixWindow(ctx, run);
    await walkTimeline(ctx, run, signal);
  } catch (error) {
    await recordBackfillFailure(ctx, run, error, signal);
  }
}

function backfillUnfinished(handle: HandleRow): boolean {
  return handle.backfill_status !== 'completed' && handle.backfill_status !== 'failed';
}

/**
 * The profile step: marks a pending backfill as starting, and looks a handle up on X the first
 * time (its id, names and counts, a first profile snapshot, and the reads billed before the id
 * was known). A protected account fails the backfill.
 */
async function ensureProfile(
  ctx: CollectorContext,
  run: BackfillRun,
  signal: AbortSignal,
): Promise<void> {
  if (run.handle.backfill_status === 'pending') {
    run.handle = await saveHandle(ctx, run.handle, { backfill_status: 'starting' });
  }
  if (run.handle.x_user_id) return;
  const profile = await ctx.source.lookupUser(run.handle.username, signal);
  if (profile.protected) throw new SourceError('protected', 'protected account');
  const now = ctx.now().toISOString();
  run.handle = await saveHandle(ctx, run.handle, {
    x_user_id: profile.xUserId,
    username: profile.username,
    display_name: profile.name,
    followers_count: profile.followersCount,
    following_count: profile.followingCount,
    tweet_count: profile.tweetCount,
    like_count: profile.likeCount,
    profile_checked_at: now,
  });
  await insertProfileSnapshot(ctx.db.db, run.handle.id, profile, now);
  await claimUnownedUserReads(ctx.db.db, run.handle.id, profile.xUserId);
}

/**
 * The window step: a backfill's window (now back to its first day, `backfill_days_covered`
 * days ago) is fixed when it begins and kept when it resumes.
 */
async function fixWindow(ctx: CollectorContext, run: BackfillRun): Promise<void> {
  const { handle } = run;
  if (handle.backfill_window_end && handle.backfill_target_start) return;
  const now = ctx.now();
  run.handle = await saveHandle(ctx, handle, {
    backfill_window_end: now.toISOString(),
    backfill_target_start: msAfter(now, -handle.backfill_days_covered * DAY_MS),
  });
}

/**
 * Pages a walk reads at most while the pages before them are being stored. A store takes every
 * page read meanwhile: a source that answers faster than the database writes (the demo source,
 * a warm cache) fills fewer, larger writes, and one that answers slower (X) has each page
 * stored while the next one is on its way. At most this many pages wait in memory.
 *
 * A page read while no store runs is stored at the next turn of the event loop, not at once:
 * pages that a source answers within the same turn are stored together (one transaction, one
 * commit, one full-text segment), and a page that comes over the network is stored without
 * waiting for anything.
 */
export const READ_AHEAD_PAGES = 10;

/**
 * Reads the timeline page by page, storing the pages and recording progress while the next
 * page is read, until it is done.
 */
async function walkTimeline(
  ctx: CollectorContext,
  run: BackfillRun,
  signal: AbortSignal,
): Promise<void> {
  const xUserId = run.handle.x_user_id;
  if (!xUserId) return;
  const position: WalkPosition = {
    xUserId,
    targetStart: run.handle.backfill_target_start ?? '',
    // Counted once per job (a crash may have stored a page the handle row does not know of),
    // then kept up to date from what each upsert adds.
    total: await countTweets(ctx.db.db, run.handle.id),
    cursor: undefined,
    endTime: resumeEnd(run.handle.oldest_covered_at),
  };
  const writer = new WalkWriter(ctx, run, position);
  try {
    for (;;) {
      if (signal.aborted) return;
      const { xUserId: id, targetStart, endTime, cursor } = position;
      const page = await ctx.source.timeline(
        { xUserId: id, startTime: targetStart, endTime, cursor, maxResults: PAGE_SIZE },
        signal,
      );
      // The last page of the walk is stored before anything else happens: its outcome says
      // whether the walk is over.
      let outcome = page.nextCursor === null ? await writer.finish(page) : await writer.add(page);
      // A widened window restarts the walk from the oldest post reached: every page read so far
      // is stored first.
      if (outcome?.widened) outcome = await writer.finish();
      if (outcome === null) return;
      if (!(await continueWalk(ctx, run, position, outcome, page, writer))) return;
    }
  } finally {
    // Never leave a store behind the job: its failure tail and the next job write the handle.
    await writer.settled();
  }
}

/**
 * The store side of a walk: pages queue while a store runs, and the next store takes them all
 * (at most READ_AHEAD_PAGES). Stores run one at a time, in the order the pages were read, and
 * each store's outcome is taken once, by the `add` or `finish` after it.
 */
class WalkWriter {
  private queued: TimelinePage[] = [];
  /** The latest store, until its outcome is taken. */
  private running: Promise<PageOutcome | null> | undefined;
  private busy = false;
  /** A store of the queue at the next turn of the event loop. */
  private due: NodeJS.Immediate | undefined;

  constructor(
    private readonly ctx: CollectorContext,
    private readonly run: BackfillRun,
    private readonly position: WalkPosition,
  ) {}

  /**
   * Queues a page. Unless a store is running and the queue has room left, takes the outcome of
   * the store before (undefined when none) and, unless it was a reset or widened the walk (the
   * queue is then left for `finish`), stores the queue: at once when full, else at the next turn.
   */
  async add(page: TimelinePage): Promise<PageOutcome | null | undefined> {
    this.queued.push(page);
    if (this.busy && this.queued.length < READ_AHEAD_PAGES) return undefined;
    const before = await this.take();
    if (before === null || before?.widened) return before;
    if (this.queued.length >= READ_AHEAD_PAGES) this.start();
    else this.due ??= setImmediate(() => this.startDue());
    return before;
  }

  /** Stores what is queued (and `page`) and waits: the outcome of the walk's last store. */
  async finish(page?: TimelinePage): Promise<PageOutcome | null | undefined> {
    if (page) this.queued.push(page);
    const before = await this.take();
    if (before === null || this.queued.length === 0) return before;
    this.start();
    return this.take();
  }

  /** Drops a store not begun yet and waits for a running one, however it ends. */
  async settled(): Promise<void> {
    this.cancelDue();
    await this.running?.catch(() => undefined);
  }

  private take(): Promise<PageOutcome | null> | undefined {
    const running = this.running;
    this.running = undefined;
    return running;
  }

  private startDue(): void {
    this.due = undefined;
    if (!this.busy && this.queued.length > 0) this.start();
  }

  private cancelDue(): void {
    if (this.due) clearImmediate(this.due);
    this.due = undefined;
  }

  private start(): void {
    this.cancelDue();
    const pages = this.queued;
    this.queued = [];
    this.busy = true;
    const running = storePages(this.ctx, this.run, this.position, pages);
    this.running = running;
    void running.then(
      () => (this.busy = false),
      () => (this.busy = false),
    );
  }
}

/** The store step and the progress step of pages read one after another. */
async function storePages(
  ctx: CollectorContext,
  run: BackfillRun,
  position: WalkPosition,
  pages: readonly TimelinePage[],
): Promise<PageOutcome | null> {
  const merged: TimelinePage = {
    tweets: pages.length === 1 ? pages[0]!.tweets : pages.flatMap((page) => page.tweets),
    nextCursor: pages[pages.length - 1]!.nextCursor,
  };
  const now = ctx.now();
  position.total += await storePage(ctx, run.handle, merged, now);
  return recordProgress(ctx, run, position, merged, now);
}

/** The store step: a page's tweets, each due for its first metric reading. Returns how many were new. */
async function storePage(
  ctx: CollectorContext,
  handle: HandleRow,
  page: TimelinePage,
  now: Date,
): Promise<number> {
  const stored = await upsertTweets(ctx.db.db, handle.id, page.tweets, now.toISOString(), {
    metricsNextAt: (tweet) => nextMetricsAt(tweet.createdAt, now, ctx.metricRefresh),
    lease: leaseFence(ctx),
    // A page of a walk whose data was cleared meanwhile is not stored: a fresh backfill owns it.
    windowEnd: handle.backfill_window_end,
  });
  return stored.size;
}

/**
 * The progress step: saves what the page moved (covered share, estimate, oldest and newest
 * posts, or completion when the walk reached its end) and tells the listeners. Null when the
 * handle was deleted or its data cleared meanwhile (a fresh backfill then takes over).
 */
async function recordProgress(
  ctx: CollectorContext,
  run: BackfillRun,
  position: WalkPosition,
  page: TimelinePage,
  now: Date,
): Promise<PageOutcome | null> {
  // Saved in one write while the window stands as this job last read it, the usual case.
  // Otherwise the handle is read afresh: a follower may have asked for more days, or an admin
  // may have deleted the handle or cleared its data.
  const window = {
    backfill_window_end: run.handle.backfill_window_end,
    backfill_target_start: run.handle.backfill_target_start,
  };
  const saved = await saveHandleWhile(
    ctx,
    run.handle,
    progressValues(ctx, run, position, page, now),
    window,
  );
  if (saved) {
    run.handle = saved;
  } else {
    const current = await findHandleById(ctx.db.db, run.handle.id);
    if (!current || wasReset(run.handle, current)) return null;
    run.handle = current;
    run.handle = await saveHandle(ctx, run.handle, progressValues(ctx, run, position, page, now));
  }
  emitProgress(ctx, run.handle);
  return pageOutcome(run.handle, position, page);
}

/** What a page did to the walk, as the handle now stands. */
function pageOutcome(handle: HandleRow, position: WalkPosition, page: TimelinePage): PageOutcome {
  const widened = handle.backfill_target_start !== position.targetStart;
  return { reachedEnd: page.nextCursor === null && !widened, widened };
}

/** What a page changes on its handle, as `run.handle` stands. */
function progressValues(
  ctx: CollectorContext,
  run: BackfillRun,
  position: WalkPosition,
  page: TimelinePage,
  now: Date,
): HandleUpdate {
  const { reachedEnd } = pageOutcome(run.handle, position, page);
  return {
    ...pageProgress(ctx, run, position, page, now, reachedEnd),
    ...(reachedEnd
      ? {
          initial_backfill_complete: true,
          backfill_completed_at: now.toISOString(),
          next_poll_at: msAfter(now, ctx.monitorIntervalMs),
        }
      : { next_poll_at: null }),
  };
}

/** The handle's progress after a page: covered share, estimate, and the posts it reached. */
function pageProgress(
  ctx: CollectorContext,
  run: BackfillRun,
  position: WalkPosition,
  page: TimelinePage,
  now: Date,
  reachedEnd: boolean,
): HandleUpdate {
  const { handle } = run;
  let oldest = handle.oldest_covered_at;
  let newest = handle.newest_tweet_id;
  for (const tweet of page.tweets) {
    if (oldest === null || Date.parse(tweet.createdAt) < Date.parse(oldest)) {
      oldest = tweet.createdAt;
    }
    newest = maxTweetId(newest, tweet.id);
  }
  const { targetStart, total } = position;
  const depthLimited =
    reachedEnd && cutByDepthLimit(ctx.source.timelineDepth, total, oldest, targetStart);
  const progress = reachedEnd
    ? 100
    : Math.min(
        99.9,
        coveredShare(
          Date.parse(handle.backfill_window_end ?? now.toISOString()),
          Date.parse(handle.backfill_target_start ?? targetStart),
          Date.parse(oldest ?? now.toISOString()),
        ),
      );
  return {
    backfill_status: reachedEnd ? 'completed' : 'in_progress',
    backfill_progress: progress,
    total_tweets_collected: total,
    estimated_completion: reachedEnd ? null : estimatedCompletion(run, progress, now),
    // Cut by the depth limit, the data really begins at the oldest post reached.
    oldest_covered_at: reachedEnd && !depthLimited ? handle.backfill_target_start : oldest,
    depth_limited: depthLimited,
    newest_tweet_id: newest,
    last_error: null,
  };
}

/** When the walk should end at the pace of this job so far; null before it gained anything. */
function estimatedCompletion(run: BackfillRun, progress: number, now: Date): string | null {
  const elapsed = now.getTime() - run.startedAt;
  const gained = progress - run.progressAtStart;
  if (gained <= 0 || elapsed <= 0) return null;
  return msAfter(now, ((100 - progress) * elapsed) / gained);
}

/**
 * The finish-or-continue step: false when the walk is over (complete, unfollowed, paused, or cut
 * by the spend limit); otherwise moves `position` past `page`, or back to the newest post when
 * the window was widened (`outcome`, the latest store's, says so once every page is stored).
 */
async function continueWalk(
  ctx: CollectorContext,
  run: BackfillRun,
  position: WalkPosition,
  outcome: PageOutcome | undefined,
  page: TimelinePage,
  writer: WalkWriter,
): Promise<boolean> {
  if (outcome?.reachedEnd) return false;
  // A stop for the spend limit writes the handle: the stores in flight land first.
  const settle = async () => {
    await writer.finish();
    return run.handle;
  };
  if (!(await handleStillWanted(ctx, run.handle, 'backfill', settle))) return false;
  if (outcome?.widened) {
    position.targetStart = run.handle.backfill_target_start ?? position.targetStart;
    position.cursor = undefined;
    position.endTime = resumeEnd(run.handle.oldest_covered_at);
  } else {
    position.cursor = page.nextCursor ?? undefined;
  }
  return true;
}

/**
 * The error tail: records a failed backfill on its handle unless the job was stopped or the
 * handle deleted, cleared or taken over meanwhile. Refused credentials make the walk wait (it
 * resumes where it stopped), a gone account fails it, anything else is retried.
 */
async function recordBackfillFailure(
  ctx: CollectorContext,
  run: BackfillRun,
  error: unknown,
  signal: AbortSignal,
): Promise<void> {
  const now = ctx.now();
  const current = await handleAfterFailure(
    ctx,
    run.handle.id,
    signal,
    (fresh) => !wasReset(run.handle, fresh),
  );
  if (!current) return;
  ensureLeaseHeld(ctx, current);
  await recordHandleFailure(ctx, current, error, backfillFailureRecord(now));
}

/** What a failed backfill writes on its handle, by kind of failure. */
function backfillFailureRecord(now: Date): FailureRecord {
  return {
    // Waiting, not failed: the walk resumes where it stopped once X takes the credentials.
    blocked: (message) => ({ last_error: message, estimated_completion: null }),
    permanent: (message) => ({
      backfill_status: 'failed',
      last_error: message,
      estimated_completion: null,
    }),
    retry: (error) => ({ last_error: error.message, next_poll_at: retryAt(error, now) }),
    retryLog: 'backfill paused: will retry',
    unexpected: () => ({
      last_error: 'Collection failed; retrying shortly',
      next_poll_at: msAfter(now, 60_000),
    }),
    unexpectedLog: 'backfill failed: will retry',
  };
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
