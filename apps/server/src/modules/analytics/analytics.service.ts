import { createHash } from 'node:crypto';
import {
  HANDLE_PATTERN,
  HASHTAGS_LIMIT,
  TOP_TWEETS_LIMIT,
  ANALYTICS_MESSAGES,
  beingCollectedMessage,
  normalizeHandle,
  type AnalyticsBlocks,
  type AnalyticsMeta,
  type AnalyticsStatus,
  type Availability,
  type CompareMode,
  type CompleteAnalytics,
  type Hashtags,
  type TopTweetSort,
  type TopTweets,
} from '@perch/shared';
import {
  computeBlocks,
  hashtags,
  prepareWindow,
  previousPeriod,
  topPosts,
  topTweets,
  wholeUtcDays,
  type PreviousPeriodBlocks,
} from '../../analytics/index.js';
import type { PreparedWindow } from '../../analytics/index.js';
import type { Cluster } from '../../cluster/cluster.js';
import type { Db } from '../../db/index.js';
import { badRequest } from '../../lib/errors.js';
import { findHandleById, type HandleRow } from '../handles/handles.repository.js';
import { backfillProgress, INVALID_HANDLE, readableHandle } from '../handles/handles.service.js';
import type { UserRow } from '../users/users.repository.js';
import {
  listMetricSnapshots,
  listProfileSnapshots,
  listTweetCountsBetween,
  listWindowTweets,
} from './analytics.repository.js';
import { listTweetTexts } from '../tweets/tweets.repository.js';
import { wordCountsOfDays } from '../tweets/word-days.repository.js';
import { countsOnlyTweet } from './counts-only-tweet.js';
import { RefreshGate } from './refresh-gate.js';

const DAY_MS = 86_400_000;
/** A cached computation is reused at most this long, even when no data arrived. */
const CACHE_TTL_MS = 5 * 60_000;
/** Computations kept; the least recently used goes first. */
const CACHE_ENTRIES = 200;
/** Longest a refresh waits for its poll before answering with what is stored. */
const REFRESH_POLL_TIMEOUT_MS = 10_000;

/** Whoever runs collection: asked for an immediate poll by a refresh. */
export interface PollRequester {
  pollNow(handleId: number): Promise<void>;
}

export interface AnalyticsWindowQuery {
  period: number;
  timezone: string;
}

/** complete and refresh: the window, and `compare=previous` for the previous period. */
export interface CompleteWindowQuery extends AnalyticsWindowQuery {
  compare?: CompareMode | undefined;
}

/**
 * One computation of every block for (handle, period, timezone) at one data version. Only the
 * blocks are kept, not the posts behind them, so the cache stays small whatever the handle.
 * The previous period is computed the first time a request compares, from this computation's
 * window, and kept with it: both then move, and expire, together.
 */
interface Computation {
  version: number;
  computedAt: number;
  window: { start: number; end: number };
  blocks: AnalyticsBlocks;
  previous?: PreviousPeriodBlocks;
}

/** What an analytics response is made of: the data, the meta, the message and its ETag. */
export interface AnalyticsResult<T> {
  data: T;
  message: string | undefined;
  etag: string;
}

/** The analytics status of a handle (docs/analytics.md, availability). */
export function analyticsStatus(handle: HandleRow): AnalyticsStatus {
  if (handle.backfill_status === 'completed') return 'data_ready';
  if (handle.backfill_status === 'failed') {
    return handle.total_tweets_collected > 0 ? 'data_ready' : 'not_available';
  }
  return 'collecting';
}

/** 'being collected' while the backfill runs, nothing otherwise. */
function statusMessage(handle: HandleRow): string | undefined {
  return analyticsStatus(handle) === 'collecting'
    ? beingCollectedMessage(handle.username, handle.backfill_progress)
    : undefined;
}

/**
 * The handle named in an analytics path: a blank or malformed name is a 400 with the spec's
 * text, a handle the user does not follow a 404 (admins may read any).
 */
export async function analyticsHandle(db: Db, user: UserRow, name: string): Promise<HandleRow> {
  if (!HANDLE_PATTERN.test(normalizeHandle(name))) throw badRequest(INVALID_HANDLE);
  return readableHandle(db, user, name);
}

/**
 * Computes analytics and keeps the results per (handle, period, timezone). An entry is used
 * while the handle's data version is the one it was computed at (every stored tweet, metric or
 * snapshot bumps it) and for at most 5 minutes, since the window moves with the clock.
 */
export class AnalyticsService {
  private readonly cache = new Map<string, Computation>();
  private readonly refreshGate: RefreshGate;

  constructor(
    private readonly db: Db,
    private readonly collector: PollRequester | undefined,
    private readonly now: () => number = Date.now,
    /**
     * Scale-out: the cluster whose window holds the 5 s gap between refreshes of a handle for
     * every API node (without it the gap is this process's).
     */
    shared?: Pick<Cluster, 'take'>,
  ) {
    this.refreshGate = new RefreshGate(db, now, shared);
  }

  /**
   * Every block in one payload (GET /analytics/complete/{handle}); with `compare=previous`, the
   * previous period's summary, daily series and the changes too.
   */
  async complete(
    handle: HandleRow,
    query: CompleteWindowQuery,
  ): Promise<AnalyticsResult<CompleteAnalytics>> {
    const computation = await this.computation(handle, query);
    const meta = this.meta(handle, query, computation);
    const previous =
      query.compare === 'previous' ? await this.previous(handle, query, computation) : undefined;
    return this.result(
      handle,
      query,
      computation,
      {
        ...computation.blocks,
        ...meta,
        profile: {
          followersCount: handle.followers_count,
          followingCount: handle.following_count,
          tweetsCount: handle.tweet_count,
          likesCount: handle.like_count,
          username: handle.username,
        },
        ...(previous
          ? {
              previous: {
                window: {
                  start: new Date(previous.window.start).toISOString(),
                  end: new Date(previous.window.end).toISOString(),
                },
                summary: previous.summary,
                timeSeries: previous.timeSeries,
                change: previous.change,
              },
            }
          : {}),
      },
      // A payload with the comparison is another representation: its own tag.
      query.compare ?? '',
    );
  }

  /** One block with the meta fields beside it (GET /analytics/<block>/{handle}). */
  async block<K extends keyof AnalyticsBlocks>(
    handle: HandleRow,
    query: AnalyticsWindowQuery,
    key: K,
  ): Promise<AnalyticsResult<AnalyticsBlocks[K] & AnalyticsMeta>> {
    const computation = await this.computation(handle, query);
    return this.result(handle, query, computation, {
      ...computation.blocks[key],
      ...this.meta(handle, query, computation),
    });
  }

  /** Top tweets by any order and length (the cached block holds the default ones). */
  async topTweets(
    handle: HandleRow,
    query: AnalyticsWindowQuery & { sortBy: TopTweetSort; limit: number },
  ): Promise<AnalyticsResult<TopTweets & AnalyticsMeta>> {
    const computation = await this.computation(handle, query);
    const data =
      query.sortBy === 'like_count' && query.limit === TOP_TWEETS_LIMIT
        ? computation.blocks.topTweets
        : topTweets(
            await this.prepare(handle, query, computation.window, {
              shown: { sortBy: query.sortBy, limit: query.limit },
            }),
            query.sortBy,
            query.limit,
          );
    return this.result(
      handle,
      query,
      computation,
      { ...data, ...this.meta(handle, query, computation) },
      `${query.sortBy}:${query.limit}`,
    );
  }

  /** Hashtags with any limit. */
  async hashtags(
    handle: HandleRow,
    query: AnalyticsWindowQuery & { limit: number },
  ): Promise<AnalyticsResult<Hashtags & AnalyticsMeta>> {
    const computation = await this.computation(handle, query);
    const data =
      query.limit === HASHTAGS_LIMIT
        ? computation.blocks.hashtags
        : hashtags(await this.prepare(handle, query, computation.window), query.limit);
    return this.result(
      handle,
      query,
      computation,
      { ...data, ...this.meta(handle, query, computation) },
      String(query.limit),
    );
  }

  /** GET /analytics/availability/{handle}. */
  availability(handle: HandleRow): AnalyticsResult<Availability> {
    const data: Availability = {
      handle: handle.username,
      analytics_status: analyticsStatus(handle),
      has_meaningful_data: handle.total_tweets_collected > 0,
      backfillProgress: backfillProgress(handle),
    };
    return {
      data,
      message: statusMessage(handle),
      etag: etagOf([handle.id, handle.data_version, handle.updated_at, 'availability']),
    };
  }

  /**
   * POST /analytics/refresh/{handle}: polls the handle for new tweets now (when its backfill is
   * over) and recomputes. Refused (refresh-gate.ts) while a refresh of the handle runs, within
   * 5 s of the last one, and within a minute of the last manual poll by anybody (the database
   * holds that time, so every process and user shares the limit): Refresh cannot drain the X
   * budget.
   */
  async refresh(
    handle: HandleRow,
    query: CompleteWindowQuery,
  ): Promise<AnalyticsResult<CompleteAnalytics>> {
    const polls = Boolean(this.collector) && handle.backfill_status === 'completed';
    const entry = await this.refreshGate.admit(handle, polls);
    try {
      if (this.collector && polls) {
        await withTimeout(this.collector.pollNow(handle.id), REFRESH_POLL_TIMEOUT_MS);
      }
      this.forget(handle.id);
      const fresh = (await findHandleById(this.db.db, handle.id)) ?? handle;
      const result = await this.complete(fresh, query);
      return { ...result, message: result.message ?? ANALYTICS_MESSAGES.refreshed };
    } finally {
      entry.running = false;
    }
  }

  /** Drops every cached computation of a handle. */
  forget(handleId: number): void {
    for (const key of this.cache.keys()) {
      if (key.startsWith(`${handleId}:`)) this.cache.delete(key);
    }
  }

  private async computation(handle: HandleRow, query: AnalyticsWindowQuery): Promise<Computation> {
    const key = `${handle.id}:${query.period}:${query.timezone}`;
    const now = this.now();
    const cached = this.cache.get(key);
    if (
      cached &&
      cached.version === handle.data_version &&
      now - cached.computedAt < CACHE_TTL_MS
    ) {
      // Re-inserting keeps the Map in least-recently-used order.
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const window = { start: now - query.period * DAY_MS, end: now };
    const computation: Computation = {
      version: handle.data_version,
      computedAt: now,
      window,
      blocks: computeBlocks(
        await this.prepare(handle, query, window, {
          words: true,
          shown: { sortBy: 'like_count', limit: TOP_TWEETS_LIMIT },
        }),
      ),
    };
    this.cache.delete(key);
    this.cache.set(key, computation);
    if (this.cache.size > CACHE_ENTRIES) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    return computation;
  }

  /**
   * The period of the same length that ends 1 ms before the computation's window starts, as the
   * summary and the daily series see it; computed once per computation.
   */
  private async previous(
    handle: HandleRow,
    query: AnalyticsWindowQuery,
    computation: Computation,
  ): Promise<PreviousPeriodBlocks> {
    if (computation.previous) return computation.previous;
    const end = computation.window.start - 1;
    const window = { start: end + 1 - query.period * DAY_MS, end };
    const since = new Date(window.start).toISOString();
    const until = new Date(end).toISOString();
    // Nothing later than the period is read: neither the window's tweets nor a later follower
    // count (its followers are those known at its end).
    const [rows, profileSnapshots] = await Promise.all([
      listTweetCountsBetween(this.db.db, handle.id, since, until),
      listProfileSnapshots(this.db.db, handle.id, since, until),
    ]);
    const prepared = prepareWindow({
      handle: handle.username,
      xUserId: handle.x_user_id,
      tweets: rows.map(countsOnlyTweet),
      profileSnapshots,
      metricSnapshots: [],
      window,
      timezone: query.timezone,
    });
    const previous = previousPeriod(prepared, computation.blocks.summary);
    computation.previous = previous;
    return previous;
  }

  /**
   * Loads a handle's tweets and snapshots of a window and prepares them for the engine. The
   * texts of the posts of the window's whole UTC days are not loaded, except those of the top
   * posts `shown` (the block that shows them); with `words`, the words of those days come from
   * the counts kept per day (counted and kept first where missing). Without it the prepared
   * window has no words to give: only the blocks that read no text may be computed from it.
   */
  private async prepare(
    handle: HandleRow,
    query: AnalyticsWindowQuery,
    window: { start: number; end: number },
    {
      words = false,
      shown,
    }: { words?: boolean; shown?: { sortBy: TopTweetSort; limit: number } } = {},
  ): Promise<PreparedWindow> {
    const since = new Date(window.start).toISOString();
    const days = wholeUtcDays(window);
    const textless = days && {
      start: new Date(days.start).toISOString(),
      end: new Date(days.end).toISOString(),
    };
    const [tweets, profileSnapshots, metricSnapshots, wordDays] = await Promise.all([
      listWindowTweets(this.db.db, handle.id, since, textless ?? undefined),
      listProfileSnapshots(this.db.db, handle.id, since),
      listMetricSnapshots(this.db.db, handle.id, since),
      days && words ? wordCountsOfDays(this.db.db, handle.id, days) : undefined,
    ]);
    const prepared = prepareWindow({
      handle: handle.username,
      xUserId: handle.x_user_id,
      tweets,
      profileSnapshots,
      metricSnapshots,
      window,
      timezone: query.timezone,
      ...(wordDays ? { wordDays } : {}),
    });
    if (shown) {
      const untexted = topPosts(prepared, shown.sortBy, shown.limit).filter(
        (post) => post.tweet.text === null,
      );
      const texts = await listTweetTexts(
        this.db.db,
        handle.id,
        untexted.map((post) => post.tweet.id),
      );
      for (const post of untexted) post.tweet.text = texts.get(post.tweet.id) ?? '';
    }
    return prepared;
  }

  private meta(
    handle: HandleRow,
    query: AnalyticsWindowQuery,
    computation: Computation,
  ): AnalyticsMeta {
    return {
      handle: handle.username,
      analytics_status: analyticsStatus(handle),
      backfillProgress: backfillProgress(handle),
      period: query.period,
      timezone: query.timezone,
      window: {
        start: new Date(computation.window.start).toISOString(),
        end: new Date(computation.window.end).toISOString(),
      },
      collected_since: handle.oldest_covered_at,
      computed_at: new Date(computation.computedAt).toISOString(),
    };
  }

  private result<T>(
    handle: HandleRow,
    query: AnalyticsWindowQuery,
    computation: Computation,
    data: T,
    variant = '',
  ): AnalyticsResult<T> {
    return {
      data,
      message: statusMessage(handle),
      // The meta (status, progress) comes from the handle row, so its last change is part of it.
      etag: etagOf([
        handle.id,
        computation.version,
        computation.computedAt,
        handle.updated_at,
        query.period,
        query.timezone,
        variant,
      ]),
    };
  }
}

function etagOf(parts: readonly (string | number)[]): string {
  return `W/"${createHash('sha1').update(parts.join('|')).digest('base64url').slice(0, 22)}"`;
}

/** Waits for `promise` at most `ms`; a late poll still finishes and stores its data. */
async function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      promise,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
