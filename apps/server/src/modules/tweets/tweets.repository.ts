import { CompiledQuery, sql, type Kysely } from 'kysely';
import { isPostgres, type Database, type Executor } from '../../db/index.js';
import type { TweetRow } from '../../db/types.js';
import type { SourceProfile, SourceTweet } from '../../domain/tweet-source.js';
import {
  claimedPage,
  handleRules,
  insertMark,
  markForAlerts,
  pageClaimColumns,
  pageMarkCtes,
  type ClaimedPage,
  type PageClaim,
  type PageClaimRow,
  type StoredClaimedPage,
} from '../../alerts/marks.repository.js';
import { comparePostingOrder } from '../../lib/posting-order.js';
import { findHandleById, LeaseLostError } from '../handles/handles.repository.js';
import { clearWordDays, clearWordDaysCtes, utcDayOf } from './word-days.repository.js';

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
    referenced_types: jsonArray(tweet.referencedTypes),
    hashtags: jsonArray(tweet.hashtags),
    urls: jsonArray(tweet.urls),
    media: jsonArray(tweet.media),
    first_seen_at: now,
    updated_at: now,
  };
}

/** An array as JSON; most posts' are empty. */
function jsonArray(values: readonly unknown[]): string {
  return values.length === 0 ? '[]' : JSON.stringify(values);
}

/** A row to insert. Built without spreading the stored columns: a backfill builds 1,000 at a time. */
function tweetValues(
  handleId: number,
  tweet: SourceTweet,
  now: string,
  fanout: boolean,
  metricsNextAt: string | null,
) {
  return Object.assign(storedTweetColumns(handleId, tweet, now), {
    fanout_pending: fanout,
    metrics_next_at: metricsNextAt,
  });
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
  /**
   * Where the backfill window of the walk storing these tweets ends: nothing is written when
   * the handle's is another by now (its data was cleared and a fresh backfill took over).
   */
  windowEnd?: string | null;
  /**
   * With markForFanout: the page's marks are taken under this claim by the same write, which
   * also reads what evaluating them needs (marks.repository.ts, PageClaim), so the storing
   * process evaluates the page at once.
   */
  alertClaim?: PageClaim;
}

/** What a page's upsert stored. */
export interface StoredPage {
  /** The ids that are new. */
  inserted: Set<string>;
  /** Under an alert claim: the page's mark, with its new posts as stored, when one was made. */
  claimed?: StoredClaimedPage;
}

/** What an upsert sets again on a tweet already stored. */
const REFRESHED_COLUMNS = [
  // The full text of a long post may arrive after a truncated copy was kept.
  'text',
  'like_count',
  'retweet_count',
  'reply_count',
  'quote_count',
  'impression_count',
  'updated_at',
] as const;

type TweetValues = ReturnType<typeof tweetValues>;

/**
 * Inserts tweets of one handle, or refreshes the metrics of those already stored: one row per
 * (handle, tweet id) whatever retries happen. Atomic, and returns the ids that are new (so
 * callers know what arrived without asking again). A tweet already stored keeps its fan-out
 * marker: only a first insert can set it. In the same transaction the handle's data version is
 * bumped and its `total_tweets_collected` grows by the new tweets, so the count never drifts
 * from the rows. Nothing is written when the handle is gone (or the lease lost: LeaseLostError).
 */
export async function upsertTweets(
  db: Kysely<Database>,
  handleId: number,
  tweets: readonly SourceTweet[],
  now: string,
  options: UpsertTweetsOptions = {},
): Promise<Set<string>> {
  return (await upsertPage(db, handleId, tweets, now, options)).inserted;
}

/** upsertTweets, with what an alert claim took (UpsertTweetsOptions.alertClaim). */
export async function upsertPage(
  db: Kysely<Database>,
  handleId: number,
  tweets: readonly SourceTweet[],
  now: string,
  options: UpsertTweetsOptions = {},
): Promise<StoredPage> {
  const fanout = options.markForFanout ?? false;
  const metricsNextAt = options.metricsNextAt ?? (() => null);
  if (tweets.length === 0) return { inserted: new Set<string>() };
  // One row per id, its latest copy: a statement may not write one row twice.
  // Stored oldest first (sources list newest first), so row ids follow posting order too.
  const rows = [...new Map(tweets.map((tweet) => [tweet.id, tweet])).values()]
    .sort(comparePostingOrder)
    .map((tweet) => tweetValues(handleId, tweet, now, fanout, metricsNextAt(tweet)));
  const written = isPostgres(db)
    ? await upsertInOneStatement(db, handleId, rows, options)
    : await db.transaction().execute((trx) => upsertInChunks(trx, handleId, rows, options));
  if (!written.held && options.lease) throw new LeaseLostError(handleId);
  const claimed = written.claimed && {
    ...written.claimed,
    posts: rows.filter((row) => written.inserted.has(row.tweet_id)),
  };
  return { inserted: written.inserted, claimed };
}

interface UpsertOutcome {
  /** The handle was there (and the lease, when one was given, still held). */
  held: boolean;
  /** The new ids (none when the handle was not held or its window moved). */
  inserted: Set<string>;
  /** What the alert claim took, when the page was marked. */
  claimed?: ClaimedPage;
}

/**
 * SQLite: the handle row first (lease renewed, data version bumped; it is the lock as well),
 * then multi-row upserts of INSERT_CHUNK rows, each after asking which of its ids are stored
 * (in-process queries cost next to nothing), and the count of what was new.
 */
async function upsertInChunks(
  trx: Executor,
  handleId: number,
  rows: readonly TweetValues[],
  { lease, windowEnd, alertClaim }: UpsertTweetsOptions,
): Promise<UpsertOutcome> {
  const inserted = new Set<string>();
  let fence = trx
    .updateTable('handles')
    .set((eb) => ({
      data_version: eb('data_version', '+', 1),
      ...(lease ? { lease_until: lease.until } : {}),
    }))
    .where('id', '=', handleId);
  if (lease) fence = fence.where('lease_owner', '=', lease.owner);
  if (windowEnd !== undefined) {
    fence = fence.where('backfill_window_end', windowEnd === null ? 'is' : '=', windowEnd);
  }
  const { numUpdatedRows } = await fence.executeTakeFirst();
  if (Number(numUpdatedRows) === 0) {
    // Rare: tell a lost lease (or a gone handle) from a moved window.
    const handle = await findHandleById(trx, handleId);
    return {
      held: handle !== undefined && (!lease || handle.lease_owner === lease.owner),
      inserted,
    };
  }
  const fanout = rows[0]!.fanout_pending;
  /** The row ids of the new posts, when monitoring found them (for their alert mark). */
  const newRows: number[] = [];
  /** The days whose posts change: their kept word counts go (word-days.repository.ts). */
  const changedDays = new Set<string>();
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    const chunk = rows.slice(start, start + INSERT_CHUNK);
    const known = await listTweetTexts(
      trx,
      handleId,
      chunk.map((row) => row.tweet_id),
    );
    for (const row of chunk) {
      const text = known.get(row.tweet_id);
      if (text === undefined) inserted.add(row.tweet_id);
      if (text !== row.text) changedDays.add(utcDayOf(row.created_at));
    }
    const { rows: stored } = await trx.executeQuery(sqliteUpsert(chunk, fanout));
    for (const row of stored) {
      if (!known.has(row.tweet_id)) newRows.push(row.id);
    }
  }
  if (inserted.size > 0) await addCollected(trx, handleId, inserted.size);
  await clearWordDays(trx, handleId, changedDays);
  // A post found by monitoring is new to the alert rules too (never a backfilled one), when
  // its handle has an enabled rule.
  if (newRows.length > 0) {
    const rules = await handleRules(trx, handleId);
    if (rules.length > 0) {
      const mark = await insertMark(trx, handleId, newRows, rows[0]!.first_seen_at, alertClaim);
      if (alertClaim) return { held: true, inserted, claimed: { marks: [mark], rules } };
    }
  }
  return { held: true, inserted };
}

/** SQL texts of sqliteUpsert by row count and RETURNING: a backfill's chunks share one. */
const sqliteUpsertTexts = new Map<string, string>();

/**
 * The multi-row upsert of a chunk as one compiled query, its text built from the rows' own
 * columns and its values bound in the same order. Compiling the same statement through Kysely's
 * query builder, 10,000 value nodes for a chunk of 500, took a tenth of a backfill's time.
 * With `returning`, the stored rows' ids come back.
 */
function sqliteUpsert(
  chunk: readonly TweetValues[],
  returning: boolean,
): CompiledQuery<{ id: number; tweet_id: string }> {
  const columns = Object.keys(chunk[0]!) as (keyof TweetValues)[];
  const key = `${columns.join()}|${chunk.length}|${returning}`;
  let text = sqliteUpsertTexts.get(key);
  if (text === undefined) {
    const row = `(${columns.map(() => '?').join(', ')})`;
    const refreshed = REFRESHED_COLUMNS.map((column) => `"${column}" = "excluded"."${column}"`);
    text =
      `insert into "tweets" (${columns.map((column) => `"${column}"`).join(', ')}) ` +
      `values ${Array<string>(chunk.length).fill(row).join(', ')} ` +
      `on conflict ("handle_id", "tweet_id") do update set ${refreshed.join(', ')}` +
      (returning ? ' returning "id", "tweet_id"' : '');
    if (sqliteUpsertTexts.size >= 64) sqliteUpsertTexts.clear();
    sqliteUpsertTexts.set(key, text);
  }
  const parameters: unknown[] = [];
  for (const values of chunk) for (const column of columns) parameters.push(values[column]);
  return CompiledQuery.raw(text, parameters) as CompiledQuery<{ id: number; tweet_id: string }>;
}

/**
 * PostgreSQL: the whole upsert as one statement, so a page costs one round trip whatever its
 * size (no transaction around it, no lookup of stored ids first, no parameter limit: the rows
 * travel as one JSON array). Its parts run on one snapshot: the handle row is locked first
 * (the lease checked), the rows not stored yet are inserted, those stored before get their
 * numbers again (the snapshot does not show them the rows this statement inserts), and the
 * handle row takes the count of the new ones. Only the rows the insert did not add
 * (`stored_input`) are looked up again in `tweets`: a backfill's page, all new, costs no lookup.
 */
async function upsertInOneStatement(
  db: Executor,
  handleId: number,
  rows: readonly TweetValues[],
  { lease, windowEnd, alertClaim }: UpsertTweetsOptions,
): Promise<UpsertOutcome> {
  const columns = sql.join(Object.keys(rows[0]!).map((column) => sql.id(column)));
  const leaseHeld = lease ? sql`and lease_owner = ${lease.owner}` : sql``;
  const current =
    windowEnd !== undefined
      ? sql`backfill_window_end is not distinct from ${windowEnd}`
      : sql`true`;
  const renewed = lease ? sql`, lease_until = ${lease.until}` : sql``;
  const refreshed = sql.join(
    REFRESHED_COLUMNS.map((column) => sql`${sql.id(column)} = input.${sql.id(column)}`),
  );
  // Posts found by monitoring are new to the alert rules too (never backfilled ones), when
  // their handle has an enabled rule: one mark for the page (alerts/marks.repository.ts).
  const { rows: result } = await sql<{ held: boolean; inserted: string[] } & PageClaimRow>`
    with held as (
      select id, ${current} as current from handles
      where id = ${handleId} ${leaseHeld} for no key update
    ), input as (
      select * from json_populate_recordset(null::tweets, ${JSON.stringify(rows)})
        with ordinality as input
      where exists (select from held where current)
    ), added as (
      insert into tweets (${columns})
      select ${columns} from input order by ordinality
      on conflict (handle_id, tweet_id) do nothing
      returning id, tweet_id, first_seen_at, fanout_pending, created_at
    ), stored_input as (
      select * from input
      where not exists (select from added where added.tweet_id = input.tweet_id)
    ), ${clearWordDaysCtes(handleId)} ${pageMarkCtes(handleId, alertClaim)} refreshed as (
      update tweets set ${refreshed} from stored_input as input
      where tweets.handle_id = input.handle_id and tweets.tweet_id = input.tweet_id
    ), counted as (
      update handles set
        data_version = data_version + 1,
        total_tweets_collected = total_tweets_collected + (select count(*) from added)
        ${renewed}
      where id in (select id from held where current)
    )
    select
      exists (select from held) as held,
      coalesce((select json_agg(tweet_id) from added), '[]') as inserted
      ${alertClaim ? pageClaimColumns(handleId, new Date(rows[0]!.first_seen_at)) : sql``}`.execute(
    db,
  );
  const outcome = result[0]!;
  return {
    held: outcome.held,
    inserted: new Set(outcome.inserted),
    claimed: alertClaim && claimedPage(handleId, outcome),
  };
}

/** Adds `count` newly stored tweets to a handle's total. */
async function addCollected(db: Executor, handleId: number, count: number): Promise<void> {
  await db
    .updateTable('handles')
    .set((eb) => ({ total_tweets_collected: eb('total_tweets_collected', '+', count) }))
    .where('id', '=', handleId)
    .execute();
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

/** The stored texts of those of `tweetIds` a handle has, by post id. */
export async function listTweetTexts(
  db: Executor,
  handleId: number,
  tweetIds: readonly string[],
): Promise<Map<string, string>> {
  if (tweetIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('tweets')
    .select(['tweet_id', 'text'])
    .where('handle_id', '=', handleId)
    .where('tweet_id', 'in', tweetIds)
    .execute();
  return new Map(rows.map((row) => [row.tweet_id, row.text]));
}

export async function countTweets(db: Executor, handleId: number): Promise<number> {
  const row = await db
    .selectFrom('tweets')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('handle_id', '=', handleId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
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
    // New numbers: the post's alert rules look at it again.
    await markForAlerts(
      trx,
      handleId,
      changed.map((tweet) => tweet.id),
      now,
    );
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
