import { sql, type RawBuilder } from 'kysely';
import { isPostgres, type Executor } from '../../db/index.js';
import type { AnalyticsTweet, MetricSnapshot, ProfileSnapshot } from '../../analytics/types.js';
import type { TweetRow } from '../../db/types.js';
import {
  PARSED_TWEET_COLUMNS,
  parseTweetRow,
  parseTweetValues,
  storedTime,
  type ParsedTweetValues,
} from '../tweets/stored-tweet.js';
import { TWEET_COUNT_COLUMNS, type TweetCounts } from '../tweets/tweets.repository.js';

/** A span of stored times [start, end) (`toISOString()` texts). */
export interface StoredSpan {
  start: string;
  end: string;
}

/**
 * A handle's tweets created at or after `since` (the window's start), retweets included, parsed
 * for the engine: what parseTweetRow gives of their rows, in the order the database returns
 * them, except that the text of a tweet created in `textless` is null (the words of those days
 * are kept per day, and texts are most of what a load reads).
 *
 * On SQLite the database sends them as one JSON text, an array of each row's
 * PARSED_TWEET_COLUMNS values, read with one JSON.parse and turned straight into the engine's
 * tweets, with no row object on the way. better-sqlite3's row objects cost more: on 11,100
 * stored tweets SQLite reads the rows in about 4 ms and better-sqlite3 took about 45 ms more to
 * build them as objects, where making and parsing the JSON text takes about 25-30 ms (a busy
 * 2-vCPU machine). PostgreSQL is read by rows: there, one JSON text took longer than the rows
 * (about 90-105 against 80-85 ms for the same tweets).
 */
export async function listWindowTweets(
  db: Executor,
  handleId: number,
  since: string,
  textless?: StoredSpan,
): Promise<AnalyticsTweet[]> {
  const text = textless
    ? sql<string | null>`case when created_at >= ${textless.start} and created_at < ${textless.end}
        then null else text end`
    : sql<string>`text`;
  const columns = PARSED_TWEET_COLUMNS.map((column) =>
    column === 'text' ? text : sql.ref(column),
  );
  if (isPostgres(db)) {
    const rows = await db
      .selectFrom('tweets')
      .select(PARSED_TWEET_COLUMNS.filter((column) => column !== 'text'))
      .select(text.as('text'))
      .where('handle_id', '=', handleId)
      .where('created_at', '>=', since)
      .execute();
    return rows.map(parseTweetRow);
  }
  const result = await db
    .selectFrom('tweets')
    .select(jsonRows(sql.join(columns)).as('rows'))
    .where('handle_id', '=', handleId)
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  const list = JSON.parse(result.rows) as (ParsedTweetValues | null)[];
  const tweets = new Array<AnalyticsTweet>(list.length);
  for (let i = 0; i < list.length; i++) {
    tweets[i] = parseTweetValues(list[i]!);
    // Each row's values can go as soon as its tweet is made.
    list[i] = null;
  }
  return tweets;
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
  const base = db
    .selectFrom('tweet_metric_snapshots')
    .where('handle_id', '=', handleId)
    .where('taken_at', '>=', since);
  if (isPostgres(db)) {
    const rows = await base.select(METRIC_SNAPSHOT_COLUMNS).execute();
    return rows.map((row) =>
      metricSnapshot(row.tweet_id, row.taken_at, row.likes, row.retweets, row.replies, row.quotes),
    );
  }
  // On SQLite one JSON text, as for the tweets (listWindowTweets).
  const values = sql.join(METRIC_SNAPSHOT_COLUMNS.map((column) => sql.ref(column)));
  const result = await base.select(jsonRows(values).as('rows')).executeTakeFirstOrThrow();
  const list = JSON.parse(result.rows) as (MetricSnapshotValues | null)[];
  const snapshots = new Array<MetricSnapshot>(list.length);
  for (let i = 0; i < list.length; i++) {
    const row = list[i]!;
    snapshots[i] = metricSnapshot(row[0], row[1], row[2], row[3], row[4], row[5]);
    list[i] = null;
  }
  return snapshots;
}

const METRIC_SNAPSHOT_COLUMNS = [
  'tweet_id',
  'taken_at',
  'likes',
  'retweets',
  'replies',
  'quotes',
] as const;
type MetricSnapshotValues = readonly [string, string, number, number, number, number];

function metricSnapshot(
  tweetId: string,
  takenAt: string,
  likes: number,
  retweets: number,
  replies: number,
  quotes: number,
): MetricSnapshot {
  return { tweetId, takenAt: storedTime(takenAt), likes, retweets, replies, quotes };
}

/**
 * SQLite: the rows of a query as one JSON text, an array of each row's `values` as a JSON array
 * (`[]` for no rows).
 */
function jsonRows(values: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`json_group_array(json_array(${values}))`;
}
