/**
 * Marks: the posts whose new numbers their handle's alert rules have not looked at yet
 * (`alert_marks`, migration 0022). The write that stores a post found by monitoring, or new
 * numbers from a metric refresh, marks it in the same transaction; the alert evaluation claims
 * marks, evaluates their posts and deletes the marks (evaluation.ts). Only posts of a handle with
 * an enabled rule are marked: a handle nobody set a rule on costs nothing more.
 */
import { sql, type Selectable } from 'kysely';
import type { Executor } from '../db/index.js';
import type { AlertRulesTable, TweetRow } from '../db/types.js';

/** Ids per statement: far below both databases' parameter limits. */
const MARK_CHUNK = 500;
const DAY_MS = 86_400_000;

/**
 * Marks stored posts of a handle (by post id) for its alert rules, when the handle has an
 * enabled rule. A post marked already keeps one mark, and loses its claim: an evaluation that
 * took it before these numbers does not delete it, so they are looked at too.
 */
export async function markForAlerts(
  db: Executor,
  handleId: number,
  tweetIds: readonly string[],
  now: string,
): Promise<void> {
  for (let start = 0; start < tweetIds.length; start += MARK_CHUNK) {
    await db
      .insertInto('alert_marks')
      .columns(['tweet_row', 'marked_at'])
      .expression((eb) =>
        eb
          .selectFrom('tweets')
          .select((inner) => ['id', inner.val(now).as('marked_at')])
          .where('handle_id', '=', handleId)
          .where('tweet_id', 'in', tweetIds.slice(start, start + MARK_CHUNK))
          .where((inner) =>
            inner.exists(
              inner
                .selectFrom('alert_rules')
                .select('alert_rules.id')
                .where('alert_rules.handle_id', '=', handleId)
                .where('alert_rules.enabled', '=', true),
            ),
          ),
      )
      .onConflict((oc) =>
        oc.column('tweet_row').doUpdateSet({ marked_at: now, claim: null, claimed_until: null }),
      )
      .execute();
  }
}

/** A marked post as the post rules read it. */
export type MarkedPost = Pick<TweetRow, (typeof POST_COLUMNS)[number]>;

/** An enabled alert rule as stored. */
export type StoredRule = Pick<Selectable<AlertRulesTable>, (typeof RULE_COLUMNS)[number]>;

/** A handle's median post engagement of the last 7 and 30 days (null: no posts). */
export interface HandleMedians {
  week: number | null;
  month: number | null;
}

/** What a claim took. */
export interface ClaimedMarks {
  /** The marks claimed (`tweets.id`), those of posts deleted since included. */
  rows: number[];
  /** Their posts, in storing order. */
  posts: MarkedPost[];
  /** The enabled rules of the posts' handles. */
  rules: StoredRule[];
  /**
   * The medians of those handles with an engagement-multiple rule, when the claim worked them
   * out (PostgreSQL); undefined when the caller does (SQLite).
   */
  medians?: Map<number, HandleMedians>;
}

const POST_COLUMNS = [
  'id',
  'handle_id',
  'tweet_id',
  'text',
  'created_at',
  'updated_at',
  'like_count',
  'retweet_count',
  'reply_count',
  'quote_count',
  'impression_count',
] as const;

const RULE_COLUMNS = ['id', 'user_id', 'handle_id', 'kind', 'memory', 'created_at'] as const;

/**
 * A condition, always true, that commits the statement's transaction without waiting for the
 * disk (PostgreSQL's `synchronous_commit` for this transaction only). For the claims, which
 * also delete the marks of earlier batches that fired nothing: should the last of these be lost
 * in a crash, the posts are only evaluated again, and firings are unique, so nothing doubles.
 */
const lazyCommit = sql<boolean>`(select set_config('synchronous_commit', 'off', true)) = 'off'`;

/** The marks an earlier claim took, to delete. */
export interface FinishedClaim {
  token: string;
  rows: readonly number[];
}

/**
 * PostgreSQL, where several workers evaluate: takes up to `limit` marks nobody holds under
 * `claim` until `until`, with their posts and the rules of their handles, in one statement (a
 * page of posts costs one round trip), skipping the marks another worker is claiming at that
 * moment. The same statement deletes the marks of `finished` claims (batches that fired
 * nothing: see evaluation.ts), and works out the medians of the handles with an
 * engagement-multiple rule (`percentile_cont(0.5)` is the median of docs/analytics.md: the mean
 * of the middle two for an even count).
 */
export async function claimMarks(
  db: Executor,
  claim: { token: string; now: Date; until: Date; limit: number },
  finished: readonly FinishedClaim[] = [],
): Promise<ClaimedMarks> {
  const nowIso = claim.now.toISOString();
  const untilIso = claim.until.toISOString();
  const engagement = sql`like_count + retweet_count + reply_count + quote_count`;
  // Each finished mark with its claim: a mark marked again since lost the claim, and stays.
  const finishedRows = finished.flatMap((done) => done.rows);
  const finishedTokens = finished.flatMap((done) => done.rows.map(() => done.token));
  const { rows } = await sql<{
    posts: ({ tweet_row: number } & (MarkedPost | { [K in keyof MarkedPost]: null }))[];
    rules: StoredRule[];
    medians: ({ handle_id: number } & HandleMedians)[];
  }>`
    with dropped as (
      delete from alert_marks
      using unnest(${finishedRows}::integer[], ${finishedTokens}::text[]) as done(tweet_row, claim)
      where alert_marks.tweet_row = done.tweet_row and alert_marks.claim = done.claim
    ), picked as (
      select tweet_row from alert_marks
      where ${lazyCommit} and (claimed_until is null or claimed_until < ${nowIso})
      order by tweet_row limit ${claim.limit}
      for update skip locked
    ), claimed as (
      update alert_marks set claim = ${claim.token}, claimed_until = ${untilIso}
      from picked where alert_marks.tweet_row = picked.tweet_row
      returning alert_marks.tweet_row
    ), posts as (
      select claimed.tweet_row, ${sql.join(POST_COLUMNS.map((column) => sql.ref(`tweets.${column}`)))}
      from claimed left join tweets on tweets.id = claimed.tweet_row
    ), rules as (
      select ${sql.join(RULE_COLUMNS.map((column) => sql.ref(column)))} from alert_rules
      where enabled and handle_id in (select handle_id from posts)
    ), medians as (
      select handle_id,
        percentile_cont(0.5) within group (order by ${engagement})
          filter (where created_at >= ${new Date(claim.now.getTime() - 7 * DAY_MS).toISOString()})
          as week,
        percentile_cont(0.5) within group (order by ${engagement}) as month
      from tweets
      where handle_id in (select handle_id from rules where kind like '%engagement_multiple%')
        and created_at >= ${new Date(claim.now.getTime() - 30 * DAY_MS).toISOString()}
      group by handle_id
    )
    select
      (select coalesce(json_agg(posts order by tweet_row), '[]') from posts) as posts,
      (select coalesce(json_agg(rules order by id), '[]') from rules) as rules,
      (select coalesce(json_agg(medians), '[]') from medians) as medians`.execute(db);
  const batch = rows[0]!;
  const medians = new Map(
    batch.medians.map((row) => [row.handle_id, { week: row.week, month: row.month }]),
  );
  // A handle with such a rule and no posts in the month has no medians.
  for (const rule of batch.rules) {
    if (rule.kind.includes('engagement_multiple') && !medians.has(rule.handle_id)) {
      medians.set(rule.handle_id, { week: null, month: null });
    }
  }
  return {
    rows: batch.posts.map((post) => post.tweet_row),
    posts: batch.posts.filter(
      (post): post is { tweet_row: number } & MarkedPost => post.id !== null,
    ),
    rules: batch.rules,
    medians,
  };
}

/**
 * SQLite: up to `limit` marks with their posts and the rules of their handles, read in the
 * transaction that evaluates them and deletes the marks (evaluation.ts). SQLite serves one
 * process, whose statements that transaction holds back until it ends, so no claim is needed:
 * nothing else evaluates or marks them meanwhile, and a crash rolls it all back.
 */
export async function readMarks(db: Executor, limit: number): Promise<ClaimedMarks> {
  const marked = await db
    .selectFrom('alert_marks')
    .leftJoin('tweets', 'tweets.id', 'alert_marks.tweet_row')
    .select('alert_marks.tweet_row')
    .select(POST_COLUMNS.map((column) => `tweets.${column}` as const))
    .orderBy('alert_marks.tweet_row')
    .limit(limit)
    .execute();
  if (marked.length === 0) return { rows: [], posts: [], rules: [] };
  const posts = marked.filter((row): row is typeof row & MarkedPost => row.id !== null);
  const handleIds = [...new Set(posts.map((post) => post.handle_id))];
  const rules =
    handleIds.length === 0
      ? []
      : await db
          .selectFrom('alert_rules')
          .select(RULE_COLUMNS)
          .where('handle_id', 'in', handleIds)
          .where('enabled', '=', true)
          .orderBy('id')
          .execute();
  return { rows: marked.map((row) => row.tweet_row), posts, rules };
}

/**
 * SQLite: deletes the marks read (readMarks), in the transaction that read them: they are the
 * lowest, so every mark up to the last one read.
 */
export async function dropMarks(db: Executor, upTo: number): Promise<void> {
  await db.deleteFrom('alert_marks').where('tweet_row', '<=', upTo).execute();
}

/**
 * PostgreSQL: deletes the marks a claim took (not those marked again since: they lost the
 * claim), in the transaction that records their firings.
 */
export async function dropClaimed(db: Executor, token: string, rows: readonly number[]) {
  for (let start = 0; start < rows.length; start += MARK_CHUNK) {
    await db
      .deleteFrom('alert_marks')
      .where('tweet_row', 'in', rows.slice(start, start + MARK_CHUNK))
      .where('claim', '=', token)
      .execute();
  }
}
