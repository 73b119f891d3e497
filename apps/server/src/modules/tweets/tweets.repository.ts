import type { Kysely } from 'kysely';
import type { Database, Executor } from '../../db/index.js';
import type { TweetRow } from '../../db/types.js';
import type { SourceProfile, SourceTweet } from '../../domain/tweet-source.js';
import { comparePostingOrder } from '../../lib/posting-order.js';
import { LeaseLostError, renewHandleLease } from '../handles/handles.repository.js';

/**
 * Rows per INSERT: 20 parameters each, so 500 rows stay well under SQLite's 32,766 and
 * Postgres's 65,535 bound parameters.
 */
const INSERT_CHUNK = 500;

/** The columns of a stored tweet as the source gave it, first seen and updated `now`. */
export function storedTweetColumns(handleId: number, tweet: SourceTweet, now: string) {
  return {
    handle_id: handleId,
    tweet_id: tweet.id,
    text: tweet.text,
    created_at: tweet.createdAt,
    lang: tweet.lang,
    like_count: tweet.likeCount,
    retweet_count: tweet.retweetCount,
    reply_count: tweet.replyCount,
    quote_count: tweet.quoteCount,
    impression_count: tweet.impressionCount,
    conversation_id: tweet.conversationId,
    in_reply_to_user_id: tweet.inReplyToUserId,
    referenced_types: JSON.stringify(tweet.referencedTypes),
    hashtags: JSON.stringify(tweet.hashtags),
    urls: JSON.stringify(tweet.urls),
    media: JSON.stringify(tweet.media),
    first_seen_at: now,
    updated_at: now,
  };
}

function tweetValues(
  handleId: number,
  tweet: SourceTweet,
  now: string,
  fanout: boolean,
  metricsNextAt: string | null,
) {
  return {
    ...storedTweetColumns(handleId, tweet, now),
    fanout_pending: fanout,
    metrics_next_at: metricsNextAt,
  };
}

export interface UpsertTweetsOptions {
  /**
   * Mark the newly inserted tweets for notification fan-out (monitoring only, never backfill).
   * The marker is written by the same INSERT, so a tweet is never stored without it.
   */
  markForFanout?: boolean;
  /** When a newly stored tweet's metrics are read next (the collector's decay schedule). */
  metricsNextAt?: (tweet: SourceTweet) => string | null;
  /**
   * The collector job's lease on the handle: renewed in the same transaction, and nothing is
   * written (LeaseLostError) when the job no longer holds it.
   */
  lease?: { owner: string; until: string };
}

/**
 * Inserts tweets of one handle, or refreshes the metrics of those already stored: one row per
 * (handle, tweet id) whatever retries happen. Runs in one transaction, in multi-row chunks, and
 * returns the ids that are new (so callers know what arrived without asking again). A tweet
 * already stored keeps its fan-out marker: only a first insert can set it.
 */
export async function upsertTweets(
  db: Kysely<Database>,
  handleId: number,
  tweets: readonly SourceTweet[],
  now: string,
  options: UpsertTweetsOptions = {},
): Promise<Set<string>> {
  const fanout = options.markForFanout ?? false;
  const metricsNextAt = options.metricsNextAt ?? (() => null);
  const inserted = new Set<string>();
  if (tweets.length === 0) return inserted;
  // Postgres refuses an upsert that touches one row twice: keep the latest copy of each id.
  // Stored oldest first (sources list newest first), so row ids follow posting order too.
  const unique = [...new Map(tweets.map((tweet) => [tweet.id, tweet])).values()].sort(
    comparePostingOrder,
  );
  return db.transaction().execute(async (trx) => {
    if (
      options.lease &&
      !(await renewHandleLease(trx, handleId, options.lease.owner, options.lease.until))
    ) {
      throw new LeaseLostError(handleId);
    }
    for (let start = 0; start < unique.length; start += INSERT_CHUNK) {
      const chunk = unique.slice(start, start + INSERT_CHUNK);
      const known = await existingTweetIds(
        trx,
        handleId,
        chunk.map((tweet) => tweet.id),
      );
      for (const tweet of chunk) if (!known.has(tweet.id)) inserted.add(tweet.id);
      await trx
        .insertInto('tweets')
        .values(
          chunk.map((tweet) => tweetValues(handleId, tweet, now, fanout, metricsNextAt(tweet))),
        )
        .onConflict((oc) =>
          oc.columns(['handle_id', 'tweet_id']).doUpdateSet((eb) => ({
            // The full text of a long post may arrive after a truncated copy was kept.
            text: eb.ref('excluded.text'),
            like_count: eb.ref('excluded.like_count'),
            retweet_count: eb.ref('excluded.retweet_count'),
            reply_count: eb.ref('excluded.reply_count'),
            quote_count: eb.ref('excluded.quote_count'),
            impression_count: eb.ref('excluded.impression_count'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute();
    }
    await bumpDataVersion(trx, handleId);
    return inserted;
  });
}

/**
 * Marks a handle's stored data as changed (tweets, metrics or snapshots), so cached analytics
 * of it are recomputed. Called in the same transaction as the write it announces.
 */
async function bumpDataVersion(db: Executor, handleId: number): Promise<void> {
  await db
    .updateTable('handles')
    .set((eb) => ({ data_version: eb('data_version', '+', 1) }))
    .where('id', '=', handleId)
    .execute();
}

/** Which of `tweetIds` a handle already has. */
export async function existingTweetIds(
  db: Executor,
  handleId: number,
  tweetIds: readonly string[],
): Promise<Set<string>> {
  if (tweetIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('tweets')
    .select('tweet_id')
    .where('handle_id', '=', handleId)
    .where('tweet_id', 'in', tweetIds)
    .execute();
  return new Set(rows.map((row) => row.tweet_id));
}

export async function countTweets(db: Executor, handleId: number): Promise<number> {
  const row = await db
    .selectFrom('tweets')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('handle_id', '=', handleId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** A handle's whole tweet rows created at or after `since`, as a query to narrow or order. */
export function selectTweetsSince(db: Executor, handleId: number, since: string) {
  return db
    .selectFrom('tweets')
    .selectAll()
    .where('handle_id', '=', handleId)
    .where('created_at', '>=', since);
}

/** A tweet's post id, its time and its public counts. */
export const TWEET_COUNT_COLUMNS = [
  'tweet_id',
  'created_at',
  'like_count',
  'retweet_count',
  'reply_count',
  'quote_count',
] as const;
export type TweetCounts = Pick<TweetRow, (typeof TWEET_COUNT_COLUMNS)[number]>;

/** A tweet whose metrics are due, with the handle it belongs to. */
export type DueMetricsRow = TweetCounts & Pick<TweetRow, 'id' | 'handle_id' | 'impression_count'>;

/**
 * Tweets whose metric reading is due (`metrics_next_at` passed), oldest due first, of handles
 * that are followed, not paused and not failed: the metric refresh batches them by 100.
 */
export function listTweetsDueForMetrics(
  db: Executor,
  now: string,
  limit: number,
  skipHandleIds: readonly number[] = [],
): Promise<DueMetricsRow[]> {
  let query = db
    .selectFrom('tweets')
    .innerJoin('handles', 'handles.id', 'tweets.handle_id')
    .select([
      'tweets.id',
      'tweets.handle_id',
      ...TWEET_COUNT_COLUMNS.map((column) => `tweets.${column}` as const),
      'tweets.impression_count',
    ])
    .where('tweets.metrics_next_at', '<=', now)
    .where('handles.paused', '=', false)
    .where('handles.backfill_status', '!=', 'failed')
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('user_handles')
          .select('user_handles.id')
          .whereRef('user_handles.handle_id', '=', 'handles.id'),
      ),
    );
  if (skipHandleIds.length > 0) query = query.where('tweets.handle_id', 'not in', skipHandleIds);
  return query.orderBy('tweets.metrics_next_at').orderBy('tweets.id').limit(limit).execute();
}

/** Moves tweets (by row id) to their next metric reading, or off the schedule (null). */
export async function setMetricsNextAt(
  db: Kysely<Database>,
  next: readonly { id: number; at: string | null }[],
): Promise<void> {
  if (next.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const row of next) {
      await trx
        .updateTable('tweets')
        .set({ metrics_next_at: row.at })
        .where('id', '=', row.id)
        .execute();
    }
  });
}

/**
 * Stores fresh metrics of tweets already kept: a metric snapshot for each tweet whose numbers
 * changed, and the new numbers on the tweet row. Returns how many changed.
 */
export async function recordMetrics(
  db: Kysely<Database>,
  handleId: number,
  stored: readonly DueMetricsRow[],
  fresh: readonly SourceTweet[],
  now: string,
): Promise<number> {
  const byId = new Map(stored.map((row) => [row.tweet_id, row]));
  const changed = fresh.filter((tweet) => {
    const row = byId.get(tweet.id);
    return (
      row !== undefined &&
      (row.like_count !== tweet.likeCount ||
        row.retweet_count !== tweet.retweetCount ||
        row.reply_count !== tweet.replyCount ||
        row.quote_count !== tweet.quoteCount ||
        row.impression_count !== tweet.impressionCount)
    );
  });
  if (changed.length === 0) return 0;
  await db.transaction().execute(async (trx) => {
    await insertMetricSnapshots(trx, handleId, changed, now);
    for (const tweet of changed) {
      await trx
        .updateTable('tweets')
        .set({
          like_count: tweet.likeCount,
          retweet_count: tweet.retweetCount,
          reply_count: tweet.replyCount,
          quote_count: tweet.quoteCount,
          impression_count: tweet.impressionCount,
          updated_at: now,
        })
        .where('handle_id', '=', handleId)
        .where('tweet_id', '=', tweet.id)
        .execute();
    }
  });
  return changed.length;
}

/**
 * Stores one metric snapshot per tweet: the tweets' numbers as read `now` (velocity's
 * readings). Bumps the handle's data version in the same transaction.
 */
export async function insertMetricSnapshots(
  db: Executor,
  handleId: number,
  tweets: readonly SourceTweet[],
  now: string,
): Promise<void> {
  if (tweets.length === 0) return;
  for (let start = 0; start < tweets.length; start += INSERT_CHUNK) {
    await db
      .insertInto('tweet_metric_snapshots')
      .values(
        tweets.slice(start, start + INSERT_CHUNK).map((tweet) => ({
          handle_id: handleId,
          tweet_id: tweet.id,
          taken_at: now,
          likes: tweet.likeCount,
          retweets: tweet.retweetCount,
          replies: tweet.replyCount,
          quotes: tweet.quoteCount,
          impressions: tweet.impressionCount,
        })),
      )
      .execute();
  }
  await bumpDataVersion(db, handleId);
}

export async function insertProfileSnapshot(
  db: Executor,
  handleId: number,
  profile: SourceProfile,
  now: string,
): Promise<void> {
  await db
    .insertInto('profile_snapshots')
    .values({
      handle_id: handleId,
      taken_at: now,
      followers: profile.followersCount,
      following: profile.followingCount,
      tweet_count: profile.tweetCount,
      like_count: profile.likeCount,
    })
    .execute();
  await bumpDataVersion(db, handleId);
}
