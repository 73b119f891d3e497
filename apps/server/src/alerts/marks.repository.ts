/**
 * Marks: the posts whose new numbers their handle's alert rules have not looked at yet
 * (`alert_marks`, migrations 0022 and 0023). The write that stores posts found by monitoring,
 * or new numbers from a metric refresh, marks them in the same transaction, with one mark for
 * all its posts of a handle; the alert evaluation claims marks, evaluates their posts and
 * deletes the marks (evaluation.ts). Only posts of a handle with an enabled rule are marked: a
 * handle nobody set a rule on costs nothing more.
 */
import { sql, type Selectable } from 'kysely';
import { isPostgres, PREPARED_MARK, type Executor } from '../db/index.js';
import type { AlertRulesTable, TweetRow } from '../db/types.js';

/** Post ids per mark (and per statement): far below both databases' parameter limits. */
const MARK_CHUNK = 500;
const DAY_MS = 86_400_000;

/**
 * Marks stored posts of a handle (by post id) for its alert rules, when the handle has an
 * enabled rule: one mark per call (per MARK_CHUNK posts). A post marked already gets another
 * mark, so new numbers are looked at even when an evaluation took the first one before them.
 */
export async function markForAlerts(
  db: Executor,
  handleId: number,
  tweetIds: readonly string[],
  now: string,
): Promise<void> {
  const rows = isPostgres(db)
    ? sql<string>`json_agg(id order by id)::text`
    : sql<string>`json_group_array(id order by id)`;
  for (let start = 0; start < tweetIds.length; start += MARK_CHUNK) {
    await db
      .insertInto('alert_marks')
      .columns(['handle_id', 'tweet_rows', 'marked_at'])
      .expression((eb) =>
        eb
          .selectFrom('tweets')
          .select((inner) => [inner.val(handleId).as('handle_id'), rows.as('tweet_rows')])
          .select((inner) => inner.val(now).as('marked_at'))
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
          )
          .having((inner) => inner.fn.countAll(), '>', 0),
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
  /** The marks claimed (`alert_marks.id`). */
  marks: number[];
  /** Their posts, each once, in storing order (posts deleted since are left out). */
  posts: MarkedPost[];
  /** The enabled rules of the marks' handles. */
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
  marks: readonly number[];
}

/**
 * PostgreSQL, where several workers evaluate: takes up to `limit` marks nobody holds under
 * `claim` until `until`, with their posts and the rules of their handles, in one statement (a
 * page of posts costs one round trip), skipping the marks another worker is claiming at that
 * moment. The same statement deletes the marks of `finished` claims (batches that fired
 * nothing: see evaluation.ts), and works out the medians of the handles with an
 * engagement-multiple rule (`percentile_cont(0.5)` is the median of docs/analytics.md: the mean
 * of the middle two for an even count). Its text never changes, so it is kept prepared.
 */
export async function claimMarks(
  db: Executor,
  claim: { token: string; now: Date; until: Date; limit: number },
  finished: readonly FinishedClaim[] = [],
): Promise<ClaimedMarks> {
  const nowIso = claim.now.toISOString();
  const untilIso = claim.until.toISOString();
  const engagement = sql`like_count + retweet_count + reply_count + quote_count`;
  const finishedMarks = finished.flatMap((done) => done.marks);
  const finishedTokens = finished.flatMap((done) => done.marks.map(() => done.token));
  const { rows } = await sql<{
    marks: number[];
    /** POST_COLUMNS in order: arrays, so no key is repeated for every post. */
    posts: unknown[][];
    rules: StoredRule[];
    medians: ({ handle_id: number } & HandleMedians)[];
  }>`${sql.raw(PREPARED_MARK)}
    with dropped as (
      delete from alert_marks
      using unnest(${finishedMarks}::integer[], ${finishedTokens}::text[]) as done(id, claim)
      where alert_marks.id = done.id and alert_marks.claim = done.claim
    ), picked as (
      select id from alert_marks
      where ${lazyCommit} and (claimed_until is null or claimed_until < ${nowIso})
      order by id limit ${claim.limit}
      for update skip locked
    ), claimed as (
      update alert_marks set claim = ${claim.token}, claimed_until = ${untilIso}
      where id = any(array(select id from picked))
      returning id, handle_id, tweet_rows
    ), posts as (
      select ${sql.join(POST_COLUMNS.map((column) => sql.ref(column)))} from tweets
      where id = any(array(
        select post.value::integer
        from claimed cross join lateral json_array_elements_text(claimed.tweet_rows::json) as post
      ))
    ), rules as (
      select ${sql.join(RULE_COLUMNS.map((column) => sql.ref(column)))} from alert_rules
      where enabled and handle_id = any(array(select distinct handle_id from claimed))
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
      (select coalesce(json_agg(id order by id), '[]') from claimed) as marks,
      (select coalesce(json_agg(json_build_array(${sql.join(POST_COLUMNS.map((column) => sql.ref(column)))}) order by id), '[]') from posts) as posts,
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
  return { marks: batch.marks, posts: batch.posts.map(postOf), rules: batch.rules, medians };
}

/** A post from the claim's array of its columns. */
function postOf(values: unknown[]): MarkedPost {
  const post: Record<string, unknown> = {};
  POST_COLUMNS.forEach((column, i) => (post[column] = values[i]));
  return post as MarkedPost;
}

/**
 * SQLite: up to `limit` marks with their posts and the rules of their handles, read in the
 * transaction that evaluates them and deletes the marks (evaluation.ts). SQLite serves one
 * process, whose statements that transaction holds back until it ends, so no claim is needed:
 * nothing else evaluates or marks them meanwhile, and a crash rolls it all back.
 */
export async function readMarks(db: Executor, limit: number): Promise<ClaimedMarks> {
  const marks = await db
    .selectFrom('alert_marks')
    .select(['id', 'handle_id', 'tweet_rows'])
    .orderBy('id')
    .limit(limit)
    .execute();
  if (marks.length === 0) return { marks: [], posts: [], rules: [] };
  const postRows = [...new Set(marks.flatMap((mark) => JSON.parse(mark.tweet_rows) as number[]))];
  const posts = await db
    .selectFrom('tweets')
    .select(POST_COLUMNS)
    // One parameter, whatever the number of posts: the statement is prepared once.
    .where('id', 'in', sql<number>`(select value from json_each(${JSON.stringify(postRows)}))`)
    .orderBy('id')
    .execute();
  const handleIds = [...new Set(marks.map((mark) => mark.handle_id))];
  const rules = await db
    .selectFrom('alert_rules')
    .select(RULE_COLUMNS)
    .where(
      'handle_id',
      'in',
      sql<number>`(select value from json_each(${JSON.stringify(handleIds)}))`,
    )
    .where('enabled', '=', true)
    .orderBy('id')
    .execute();
  return { marks: marks.map((mark) => mark.id), posts, rules };
}

/**
 * SQLite: deletes the marks read (readMarks), in the transaction that read them: they are the
 * lowest, so every mark up to the last one read.
 */
export async function dropMarks(db: Executor, upTo: number): Promise<void> {
  await db.deleteFrom('alert_marks').where('id', '<=', upTo).execute();
}

/**
 * PostgreSQL: deletes the marks a claim took, in the transaction that records their firings.
 */
export async function dropClaimed(db: Executor, token: string, marks: readonly number[]) {
  if (marks.length === 0) return;
  await db
    .deleteFrom('alert_marks')
    .where('id', '=', sql<number>`any(${[...marks]}::integer[])`)
    .where('claim', '=', token)
    .execute();
}
