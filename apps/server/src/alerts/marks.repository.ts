/**
 * Marks: the posts whose new numbers their handle's alert rules have not looked at yet
 * (`alert_marks`, migrations 0022 and 0023). The write that stores posts found by monitoring,
 * or new numbers from a metric refresh, marks them in the same transaction, with one mark for
 * all its posts of a handle; the alert evaluation claims marks, evaluates their posts and
 * deletes the marks (evaluation.ts). A page found by monitoring is marked under the claim of the
 * process that stores it, which evaluates it at once (PageClaim). Only posts of a handle with an
 * enabled rule are marked: a handle nobody set a rule on costs nothing more.
 */
import { sql, type RawBuilder, type Selectable } from 'kysely';
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

/**
 * SQLite: one mark for posts just stored (by row id), taken under `claim` when given; the
 * caller checked that their handle has an enabled rule. Returns the mark.
 */
export async function insertMark(
  db: Executor,
  handleId: number,
  tweetRows: readonly number[],
  now: string,
  claim?: PageClaim,
): Promise<number> {
  const { id } = await db
    .insertInto('alert_marks')
    .values({
      handle_id: handleId,
      tweet_rows: JSON.stringify([...tweetRows].sort((a, b) => a - b)),
      marked_at: now,
      claim: claim?.token ?? null,
      claimed_until: claim?.until ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** The enabled rules of a handle, as a claimed page's evaluation reads them. */
export function handleRules(db: Executor, handleId: number): Promise<StoredRule[]> {
  return db
    .selectFrom('alert_rules')
    .select(RULE_COLUMNS)
    .where('handle_id', '=', handleId)
    .where('enabled', '=', true)
    .orderBy('id')
    .execute();
}

/** A marked post as the post rules read it (its row id only orders a claim's posts). */
export type MarkedPost = Pick<TweetRow, Exclude<(typeof POST_COLUMNS)[number], 'id'>>;

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
  posts: readonly MarkedPost[];
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
 * The claim a monitoring page's store takes its own marks under, so the process that stored the
 * page evaluates it at once (evaluation.ts, PageAlerts) and nobody else meanwhile. On PostgreSQL
 * the same statement reads what the evaluation needs, with no round trip of its own, and
 * deletes the marks of `finished` claims (as a claim does); SQLite has none of those.
 */
export interface PageClaim {
  token: string;
  /** Until when the claim holds (ISO): then the delivery worker's pass may take the mark. */
  until: string;
  finished: readonly FinishedClaim[];
}

/** What a page's store claimed: its marks, and what evaluating its posts needs. */
export interface ClaimedPage {
  marks: number[];
  /** The enabled rules of the page's handle. */
  rules: StoredRule[];
  /**
   * PostgreSQL: the handle's medians, when it has an engagement-multiple rule (else empty);
   * SQLite: undefined, the evaluation works them out (in process, and kept a while).
   */
  medians?: Map<number, HandleMedians>;
}

/** A claimed page with its new posts as stored: what the storing process evaluates. */
export interface StoredClaimedPage extends ClaimedPage {
  posts: readonly MarkedPost[];
}

/** The page's columns `pageClaimColumns` adds, as they come back. */
export interface PageClaimRow {
  mark: number | null;
  rules: StoredRule[] | null;
  medians: HandleMedians | null;
}

/**
 * The parts of the PostgreSQL page upsert (tweets.repository.ts) that mark its new posts for
 * the alert rules when their handle has an enabled rule: the `marked` CTE (one mark for the
 * page), and, under a `claim`, the deletion of the claim's finished marks. The statement must
 * have CTEs `input` (the page's rows) and `added` (the rows inserted, returning `id`,
 * `first_seen_at` and `fanout_pending`).
 */
export function pageMarkCtes(handleId: number, claim: PageClaim | undefined): RawBuilder<unknown> {
  const held = claim ? sql`${claim.token}, ${claim.until}` : sql`null, null`;
  return sql`${claim ? droppedCte(claim.finished) : sql``} marked as (
      insert into alert_marks (handle_id, tweet_rows, marked_at, claim, claimed_until)
      select ${handleId}, json_agg(id order by id)::text, max(first_seen_at), ${held} from added
      where fanout_pending
        and exists (select from alert_rules where handle_id = ${handleId} and enabled)
      having count(*) > 0
      returning id
    ),`;
}

/** Deletes the marks of finished claims (batches that fired nothing). */
function droppedCte(finished: readonly FinishedClaim[]): RawBuilder<unknown> {
  const marks = finished.flatMap((done) => done.marks);
  const tokens = finished.flatMap((done) => done.marks.map(() => done.token));
  return sql`dropped as (
      delete from alert_marks
      using unnest(${marks}::integer[], ${tokens}::text[]) as done(id, claim)
      where alert_marks.id = done.id and alert_marks.claim = done.claim
    ),`;
}

/**
 * The columns a claimed page's upsert returns (PageClaimRow): its mark, its handle's enabled
 * rules and, with an engagement-multiple rule among them, its medians. The statement's snapshot
 * does not show it the page it writes, so the medians read the handle's other posts of the
 * month and the page's from `input`: the same numbers as reading them after the write.
 */
export function pageClaimColumns(handleId: number, now: Date): RawBuilder<unknown> {
  const engagement = sql`like_count + retweet_count + reply_count + quote_count`;
  const weekStart = new Date(now.getTime() - 7 * DAY_MS).toISOString();
  const monthStart = new Date(now.getTime() - 30 * DAY_MS).toISOString();
  return sql`,
      (select id from marked) as mark,
      (select json_agg(rule order by id) from (
        select ${sql.join(RULE_COLUMNS.map((column) => sql.ref(column)))} from alert_rules
        where handle_id = ${handleId} and enabled and exists (select from marked)
      ) as rule) as rules,
      case when exists (
        select from alert_rules, marked
        where handle_id = ${handleId} and enabled and kind like '%engagement_multiple%'
      ) then (
        select json_build_object(
          'week', percentile_cont(0.5) within group (order by engagement)
            filter (where created_at >= ${weekStart}),
          'month', percentile_cont(0.5) within group (order by engagement))
        from (
          select created_at, ${engagement} as engagement from tweets
          where handle_id = ${handleId} and created_at >= ${monthStart}
            and not exists (select from input where input.tweet_id = tweets.tweet_id)
          union all
          select created_at, ${engagement} from input where created_at >= ${monthStart}
        ) as month
      ) end as medians`;
}

/** A page's claim as the evaluation takes it, or undefined when nothing was marked. */
export function claimedPage(handleId: number, row: PageClaimRow): ClaimedPage | undefined {
  if (row.mark === null) return undefined;
  const medians = new Map<number, HandleMedians>();
  if (row.medians) medians.set(handleId, row.medians);
  return { marks: [row.mark], rules: row.rules ?? [], medians };
}

/**
 * SQLite: up to `limit` marks nobody holds (a store's claim: PageClaim) with their posts and
 * the rules of their handles, read in the transaction that evaluates them and deletes the marks
 * (evaluation.ts). SQLite serves one process, whose statements that transaction holds back
 * until it ends, so no claim of its own is needed: nothing else evaluates or marks them
 * meanwhile, and a crash rolls it all back.
 */
export async function readMarks(db: Executor, limit: number, now: Date): Promise<ClaimedMarks> {
  const marks = await db
    .selectFrom('alert_marks')
    .select(['id', 'handle_id', 'tweet_rows'])
    .where((eb) =>
      eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now.toISOString())]),
    )
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

/** SQLite: deletes marks read (readMarks) or claimed by a store, once evaluated. */
export async function dropMarks(db: Executor, marks: readonly number[]): Promise<void> {
  await db
    .deleteFrom('alert_marks')
    .where('id', 'in', sql<number>`(select value from json_each(${JSON.stringify(marks)}))`)
    .execute();
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
