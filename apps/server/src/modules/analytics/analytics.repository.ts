import type { Executor } from '../../db/index.js';
import type { MetricSnapshot, ProfileSnapshot } from '../../analytics/types.js';
import type { TweetRow } from '../../db/types.js';
import { storedTime, type ParsedTweetRow } from '../tweets/stored-tweet.js';
import {
  selectTweetsSince,
  TWEET_COUNT_COLUMNS,
  type TweetCounts,
} from '../tweets/tweets.repository.js';

/**
 * A handle's tweets created at or after `since` (the window's start), retweets included, as
 * parseTweetRow reads them.
 */
export function listTweetsSince(
  db: Executor,
  handleId: number,
  since: string,
): Promise<ParsedTweetRow[]> {
  return selectTweetsSince(db, handleId, since).execute();
}

/** What the summary and the daily series read of a tweet: its time, its counts and its kind. */
export type TweetCountsRow = TweetCounts & Pick<TweetRow, 'referenced_types'>;

/**
 * The counts of a handle's tweets created from `since` to `until` (both included), retweets
 * included: a previous period, which needs neither texts nor entities (a third of the time of
 * reading whole rows, measured on 10,000 tweets).
 */
export function listTweetCountsBetween(
  db: Executor,
  handleId: number,
  since: string,
  until: string,
): Promise<TweetCountsRow[]> {
  return db
    .selectFrom('tweets')
    .select([...TWEET_COUNT_COLUMNS, 'referenced_types'])
    .where('handle_id', '=', handleId)
    .where('created_at', '>=', since)
    .where('created_at', '<=', until)
    .execute();
}

/**
 * The profile snapshots growth reads (taken at or after `since`) plus the latest one of all,
 * whose follower count every rate divides by. With `until` (a previous period), only snapshots
 * taken at or before it: the followers are those known at the period's end.
 */
export async function listProfileSnapshots(
  db: Executor,
  handleId: number,
  since: string,
  until?: string,
): Promise<ProfileSnapshot[]> {
  let base = db
    .selectFrom('profile_snapshots')
    .select(['id', 'taken_at', 'followers', 'following', 'tweet_count', 'like_count'])
    .where('handle_id', '=', handleId);
  if (until !== undefined) base = base.where('taken_at', '<=', until);
  const [inWindow, latest] = await Promise.all([
    base.where('taken_at', '>=', since).execute(),
    base.orderBy('taken_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst(),
  ]);
  const rows =
    latest && !inWindow.some((row) => row.id === latest.id) ? [...inWindow, latest] : inWindow;
  return rows.map((row) => ({
    takenAt: storedTime(row.taken_at),
    followers: row.followers,
    following: row.following,
    tweetCount: row.tweet_count,
    likeCount: row.like_count,
  }));
}

/** Metric snapshots taken at or after `since`: those of every tweet created in the window. */
export async function listMetricSnapshots(
  db: Executor,
  handleId: number,
  since: string,
): Promise<MetricSnapshot[]> {
  const rows = await db
    .selectFrom('tweet_metric_snapshots')
    .select(['tweet_id', 'taken_at', 'likes', 'retweets', 'replies', 'quotes'])
    .where('handle_id', '=', handleId)
    .where('taken_at', '>=', since)
    .execute();
  return rows.map((row) => ({
    tweetId: row.tweet_id,
    takenAt: storedTime(row.taken_at),
    likes: row.likes,
    retweets: row.retweets,
    replies: row.replies,
    quotes: row.quotes,
  }));
}
