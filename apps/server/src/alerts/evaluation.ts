/**
 * Alert evaluation: runs the rules (alerts/, pure) on what the collector stored, records each
 * firing once and queues its deliveries, in one transaction per batch. It costs no X reads: it
 * reads only what monitoring and the metric and profile refreshes already stored.
 *
 * - Post rules look at marked posts (marks.repository.ts: posts found by monitoring, or new
 *   numbers from a metric refresh, of a handle with a rule; one mark per write, written by that
 *   same write). A page found by monitoring is evaluated by the process that stores it, under
 *   the claim its store took (PageAlerts below). The delivery worker's pass takes the other
 *   marks: a batch claims marks (on PostgreSQL skipping those another worker is claiming),
 *   evaluates their posts, and deletes the marks; firings are recorded, their deliveries queued
 *   and the marks deleted in one transaction. So in scale-out mode one worker evaluates each event, and a
 *   crash at any point neither loses nor doubles a firing (a claim runs out, and firings are
 *   unique).
 * - A post rule watches posts posted after it was made (for a threshold within H hours: posts
 *   still inside those hours when it was made), so a new rule never floods its owner with old
 *   posts.
 * - Handle rules (followers, silence) are evaluated on a sweep: each enabled rule's row is
 *   locked while it is evaluated and its crossing memory stored with its firing.
 * - `alert_firings` is unique per rule and firing key (the post for post rules, the crossing's
 *   time for handle rules): a firing is stored once whoever evaluates.
 * - An alert goes to each of its owner's channels that is connected and not stopped (Telegram,
 *   Discord, every webhook endpoint), whatever the handle's new-post switches say: creating the
 *   rule is the opt-in.
 */
import {
  alertKindSchema,
  HANDLE_ALERT_KINDS,
  POST_ALERT_KINDS,
  type AlertKind,
  type HandleAlertKind,
  type PostAlertKind,
} from '@perch/shared';
import {
  evaluateHandleRule,
  evaluatePostRule,
  firingKey,
  parseHandleMemory,
  serializeHandleMemory,
  type AlertPost,
  type Firing,
  type HandleRule,
  type MetricReading,
} from './index.js';
import { randomUUID } from 'node:crypto';
import { median } from '../analytics/stats.js';
import { engagementOf } from '../analytics/window.js';
import type { Db, Executor } from '../db/index.js';
import type { OutboxChannel } from '../db/types.js';
import type { DeliveredChannels } from '../notify/delivery-worker.js';
import { wakeChats } from '../notify/delivery-chats.repository.js';
import { activeWebhookEndpoints, webhookChannel } from '../notify/webhook/webhook-channel.js';
import { followerCounts, lastPostTimes } from './handle-state.repository.js';
import {
  claimMarks,
  dropClaimed,
  dropMarks,
  readMarks,
  type ClaimedMarks,
  type FinishedClaim,
  type HandleMedians,
  type MarkedPost,
  type PageClaim,
  type StoredClaimedPage,
  type StoredRule,
} from './marks.repository.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/**
 * Marks per evaluation batch. A mark holds the posts of one write: a page found by monitoring
 * (up to 100 posts) or a metric refresh's new numbers, so a batch is up to about 1,000 posts.
 */
const MARK_BATCH = 10;
/** How long a batch's claim on its marks holds before another worker may take them. */
const CLAIM_MS = 60_000;
/** Batches per round before deliveries resume. */
const MAX_ROUNDS = 80;
/** The follower rule compares counts within 24 h: two days of snapshots are enough. */
const PROFILE_LOOKBACK_MS = 2 * DAY_MS;

export interface AlertPassOptions extends DeliveredChannels {
  now: Date;
  /** Marks per batch (each mark holds the posts of one write). Default 10. */
  limit?: number;
}

export interface AlertPassResult {
  /** Posts (post rules) or rules (handle rules) looked at. */
  evaluated: number;
  /** New firings recorded. */
  fired: number;
  /** Outbox rows queued for them. */
  queued: number;
  /** The new firings, committed (their owners' open pages are told: main.ts). */
  firings: FiredAlert[];
}

/** What recording a batch's firings stored and queued. */
type Recorded = Pick<AlertPassResult, 'fired' | 'queued' | 'firings'>;

/** A new firing, as its owner's pages hear of it. */
export interface FiredAlert {
  id: number;
  userId: number;
  handleId: number;
}

/** What one batch of post marks did. */
export interface PostBatchResult extends AlertPassResult {
  /** The batch was full: more marks may be waiting. */
  more: boolean;
}

/** Stored kinds parsed, by their text: each distinct kind is parsed (and its words compiled) once. */
const kindsByText = new Map<string, AlertKind | null>();
/** Distinct kinds kept before the map starts over (rules are few; this only bounds it). */
const KINDS_KEPT = 10_000;

/** A stored rule with its kind parsed; null when the stored kind no longer parses. */
function parsedKind(rule: StoredRule): AlertKind | null {
  const known = kindsByText.get(rule.kind);
  if (known !== undefined) return known;
  let kind: AlertKind | null = null;
  try {
    const parsed = alertKindSchema.safeParse(JSON.parse(rule.kind));
    if (parsed.success) kind = parsed.data;
  } catch {
    // Not JSON: a kind that no longer parses is skipped, as one that fails the schema.
  }
  if (kindsByText.size >= KINDS_KEPT) kindsByText.clear();
  kindsByText.set(rule.kind, kind);
  return kind;
}

const isPostKind = (kind: AlertKind): kind is PostAlertKind =>
  (POST_ALERT_KINDS as readonly string[]).includes(kind.type);
const isHandleKind = (kind: AlertKind): kind is HandleAlertKind =>
  (HANDLE_ALERT_KINDS as readonly string[]).includes(kind.type);

/** The earliest posting time a post rule looks at (this file's header). */
function watchesFrom(rule: StoredRule, kind: PostAlertKind): number {
  const made = Date.parse(rule.created_at);
  return kind.type === 'metric_threshold' ? made - kind.within_hours * HOUR_MS : made;
}

/**
 * PostgreSQL: the claims of batches that fired nothing, whose marks the next claim of this
 * process deletes (by database). Until then they stay claimed, so nobody evaluates them again;
 * should the process end first, its claims run out and the posts are evaluated again, which
 * records nothing twice.
 */
const finishedClaims = new WeakMap<object, FinishedClaim[]>();

/**
 * Evaluates the post rules on one batch of marked posts (marks.repository.ts). Returns what it
 * did; call again while `more` (the batch was full).
 *
 * - SQLite (one process): one transaction reads the marks, their posts and rules, records the
 *   firings, queues their deliveries and deletes the marks.
 * - PostgreSQL (any number of workers): one statement claims the marks (skipping those another
 *   worker is claiming) and reads the posts, rules and medians. The marks of a batch that fired
 *   nothing are deleted by the next claim (so a quiet page costs that one statement); firings
 *   are recorded, their deliveries queued and the marks deleted in one transaction. A worker
 *   that crashes before that leaves its marks claimed: they are evaluated again once the claim
 *   runs out, and a firing recorded before is not recorded twice.
 */
export async function evaluatePendingPosts(
  database: Db,
  options: AlertPassOptions,
): Promise<PostBatchResult> {
  const { db } = database;
  const limit = options.limit ?? MARK_BATCH;
  if (database.dialect !== 'postgres') {
    return db.transaction().execute(async (trx) => {
      const batch = await readMarks(trx, limit, options.now);
      const recorded = await recordFirings(trx, await firingsOf(trx, batch, options), options);
      if (batch.marks.length > 0) await dropMarks(trx, batch.marks);
      return { evaluated: batch.posts.length, more: batch.marks.length === limit, ...recorded };
    });
  }
  const token = randomUUID();
  // The marks of earlier batches that fired nothing go with this claim (one statement a page).
  const finished = finishedClaims.get(db) ?? [];
  finishedClaims.set(db, []);
  let batch: ClaimedMarks;
  try {
    batch = await claimMarks(
      db,
      { token, now: options.now, until: new Date(options.now.getTime() + CLAIM_MS), limit },
      finished,
    );
  } catch (error) {
    finishedClaims.get(db)!.unshift(...finished);
    throw error;
  }
  const result: PostBatchResult = {
    evaluated: batch.posts.length,
    fired: 0,
    queued: 0,
    firings: [],
    more: batch.marks.length === limit,
  };
  if (batch.marks.length === 0) return result;
  const firings = await firingsOf(db, batch, options);
  if (firings.length === 0) {
    finishedClaims.get(db)!.push({ token, marks: batch.marks });
    return result;
  }
  return db.transaction().execute(async (trx) => {
    const recorded = await recordFirings(trx, firings, options);
    await dropClaimed(trx, token, batch.marks);
    return { ...result, ...recorded };
  });
}

/**
 * A page of posts found by monitoring is evaluated by the process that stores it, at once: the
 * store takes the page's marks under a claim (marks.repository.ts, PageClaim), so nobody else
 * evaluates them meanwhile. On PostgreSQL the store's statement also reads the handle's rules
 * and medians, so a page whose posts fire nothing costs no statement of its own: its mark goes
 * with this process's next store or claim. Firings are recorded, their deliveries queued and
 * the marks deleted in one transaction. Should the process end in between, the claim runs out
 * and the delivery worker's pass evaluates the page: nothing is lost and, firings being unique,
 * nothing doubles.
 */
export interface PageAlerts {
  /** The claim for a page's store. */
  claim(now: Date): PageClaim;
  /** A store that failed gives its claim back (the finished marks it was to delete). */
  release(claim: PageClaim): void;
  /** Evaluates a stored page under its claim; returns its new firings, committed. */
  evaluate(claim: PageClaim, page: StoredClaimedPage, now: Date): Promise<Recorded>;
}

/** PageAlerts on `database`, delivering to what `delivery` says at each page. */
export function createPageAlerts(database: Db, delivery: () => DeliveredChannels): PageAlerts {
  const { db } = database;
  const postgres = database.dialect === 'postgres';
  const finished = () => {
    let list = finishedClaims.get(db);
    if (!list) finishedClaims.set(db, (list = []));
    return list;
  };
  // SQLite deletes a quiet page's marks at once (in process, that costs next to nothing).
  const drop = (trx: Executor, claim: PageClaim, marks: readonly number[]) =>
    postgres ? dropClaimed(trx, claim.token, marks) : dropMarks(trx, marks);
  return {
    claim(now) {
      return {
        token: randomUUID(),
        until: new Date(now.getTime() + CLAIM_MS).toISOString(),
        finished: postgres ? finished().splice(0) : [],
      };
    },
    release(claim) {
      finished().unshift(...claim.finished);
    },
    async evaluate(claim, page, now) {
      const options = { now, ...delivery() };
      const firings = await firingsOf(db, page, options);
      if (firings.length === 0) {
        if (postgres) finished().push({ token: claim.token, marks: page.marks });
        else await drop(db, claim, page.marks);
        return { fired: 0, queued: 0, firings: [] };
      }
      return db.transaction().execute(async (trx) => {
        const recorded = await recordFirings(trx, firings, options);
        await drop(trx, claim, page.marks);
        return recorded;
      });
    },
  };
}

/** What the post rules of a batch fire. */
function firingsOf(
  db: Executor,
  batch: ClaimedMarks,
  options: AlertPassOptions,
): Promise<{ rule: StoredRule; firing: Firing }[]> | [] {
  const rules = batch.rules.flatMap((rule) => {
    const kind = parsedKind(rule);
    return kind && isPostKind(kind) ? [{ rule, kind }] : [];
  });
  return rules.length > 0 ? postFirings(db, batch.posts, rules, options.now, batch.medians) : [];
}

/** A post rule with its kind, and the earliest posting time it watches. */
interface WatchingRule {
  rule: StoredRule;
  kind: PostAlertKind;
  from: number;
}

/** A post with what the evaluation reads of it more than once. */
interface WatchedPost {
  post: MarkedPost;
  createdAt: number;
  /** The numbers stored now: its latest reading. */
  current: MetricReading;
  rules: WatchingRule[];
}

/** What the post rules fire on these posts. */
async function postFirings(
  db: Executor,
  posts: readonly MarkedPost[],
  rules: readonly { rule: StoredRule; kind: PostAlertKind }[],
  now: Date,
  claimedMedians: Map<number, HandleMedians> | undefined,
): Promise<{ rule: StoredRule; firing: Firing }[]> {
  // Each handle's rules once, so a post only meets its own handle's.
  const rulesOf = new Map<number, WatchingRule[]>();
  for (const { rule, kind } of rules) {
    const list = rulesOf.get(rule.handle_id) ?? [];
    list.push({ rule, kind, from: watchesFrom(rule, kind) });
    rulesOf.set(rule.handle_id, list);
  }
  const watched: WatchedPost[] = [];
  for (const post of posts) {
    const ofHandle = rulesOf.get(post.handle_id);
    if (!ofHandle) continue;
    const createdAt = Date.parse(post.created_at);
    const ofPost = ofHandle.filter((entry) => createdAt >= entry.from);
    if (ofPost.length > 0) {
      watched.push({ post, createdAt, current: currentReading(post), rules: ofPost });
    }
  }
  // The stored readings matter only where the latest one is past a threshold rule's hours.
  const readings = await readingsOf(
    db,
    watched
      .filter((entry) => entry.rules.some(({ kind }) => needsEarlierReadings(kind, entry)))
      .map((entry) => entry.post),
  );
  // Medians (unless the claim brought them) only for handles whose posts have any engagement
  // to compare with one.
  const medians =
    claimedMedians ??
    (await mediansOf(
      db,
      [
        ...new Set(
          watched
            .filter(
              (entry) =>
                engagementOf(entry.current) > 0 &&
                entry.rules.some(({ kind }) => kind.type === 'engagement_multiple'),
            )
            .map((entry) => entry.post.handle_id),
        ),
      ],
      now.getTime(),
    ));
  const firings: { rule: StoredRule; firing: Firing }[] = [];
  const at = now.getTime();
  for (const { post, createdAt, current, rules: ofPost } of watched) {
    const earlier = readings.get(`${post.handle_id}:${post.tweet_id}`);
    const alertPost: AlertPost = {
      id: post.tweet_id,
      text: post.text,
      createdAt,
      readings: earlier ? [...earlier, current] : [current],
    };
    const context = { now: at, medianEngagement: medians.get(post.handle_id) ?? {} };
    for (const { rule, kind } of ofPost) {
      const firing = evaluatePostRule({ id: rule.id, enabled: true, kind }, alertPost, context);
      if (firing) firings.push({ rule, firing });
    }
  }
  return firings;
}

/** The post's numbers as stored now: its latest reading. */
function currentReading(post: MarkedPost): MetricReading {
  return {
    takenAt: Date.parse(post.updated_at),
    likes: post.like_count,
    retweets: post.retweet_count,
    replies: post.reply_count,
    quotes: post.quote_count,
    views: post.impression_count,
  };
}

/**
 * A threshold rule counts the latest reading within its hours of posting. While the stored
 * numbers are within them they are that reading; after, an earlier one may be.
 */
function needsEarlierReadings(kind: PostAlertKind, post: WatchedPost): boolean {
  return (
    kind.type === 'metric_threshold' &&
    post.current.takenAt > post.createdAt + kind.within_hours * HOUR_MS
  );
}

/**
 * Evaluates every enabled handle rule once (followers and silence), storing each rule's memory
 * and its firing together. On PostgreSQL a rule another worker is evaluating is skipped.
 */
export async function evaluateHandleRules(
  { db, dialect }: Db,
  options: AlertPassOptions,
): Promise<AlertPassResult> {
  return db.transaction().execute(async (trx) => {
    let query = trx
      .selectFrom('alert_rules')
      .select(['id', 'user_id', 'handle_id', 'kind', 'memory', 'created_at'])
      .where('enabled', '=', true)
      .orderBy('id');
    if (dialect === 'postgres') query = query.forUpdate().skipLocked();
    const rules = (await query.execute()).flatMap((rule) => {
      const kind = parsedKind(rule);
      return kind && isHandleKind(kind) ? [{ rule, kind }] : [];
    });
    const result: AlertPassResult = { evaluated: rules.length, fired: 0, queued: 0, firings: [] };
    if (rules.length === 0) return result;
    const now = options.now.getTime();
    const handleIds = [...new Set(rules.map(({ rule }) => rule.handle_id))];
    const profiles = await followerCounts(trx, handleIds, now, PROFILE_LOOKBACK_MS);
    const lastPostAt = new Map(
      (await lastPostTimes(trx, handleIds)).flatMap((row) =>
        row.last === null ? [] : [[row.handle_id, Date.parse(row.last)] as const],
      ),
    );
    // Grouped once: every rule of a handle reads the same counts.
    const followersOf = new Map<number, { takenAt: number; followers: number }[]>();
    for (const row of profiles) {
      const list = followersOf.get(row.handle_id) ?? [];
      list.push({ takenAt: Date.parse(row.taken_at), followers: row.followers });
      followersOf.set(row.handle_id, list);
    }
    const firings: { rule: StoredRule; firing: Firing }[] = [];
    for (const { rule, kind } of rules) {
      const evaluated: HandleRule = { id: rule.id, enabled: true, kind };
      const memory = parseHandleMemory(rule.memory);
      const step = evaluateHandleRule(
        evaluated,
        {
          profileSnapshots: followersOf.get(rule.handle_id) ?? [],
          lastPostAt: lastPostAt.get(rule.handle_id) ?? null,
        },
        memory,
        now,
      );
      const stored = serializeHandleMemory(step.memory);
      if (stored !== rule.memory) {
        await trx
          .updateTable('alert_rules')
          .set({ memory: stored })
          .where('id', '=', rule.id)
          .execute();
      }
      if (step.firing) firings.push({ rule, firing: step.firing });
    }
    const recorded = await recordFirings(trx, firings, options);
    return { ...result, ...recorded };
  });
}

/** The posts' stored metric snapshots, by `handle:post`. */
async function readingsOf(
  trx: Executor,
  posts: readonly { handle_id: number; tweet_id: string }[],
): Promise<Map<string, MetricReading[]>> {
  const byPost = new Map<string, MetricReading[]>();
  if (posts.length === 0) return byPost;
  const rows = await trx
    .selectFrom('tweet_metric_snapshots')
    .select([
      'handle_id',
      'tweet_id',
      'taken_at',
      'likes',
      'retweets',
      'replies',
      'quotes',
      'impressions',
    ])
    .where('handle_id', 'in', [...new Set(posts.map((post) => post.handle_id))])
    .where(
      'tweet_id',
      'in',
      posts.map((post) => post.tweet_id),
    )
    .execute();
  for (const row of rows) {
    const key = `${row.handle_id}:${row.tweet_id}`;
    const list = byPost.get(key) ?? [];
    list.push({
      takenAt: Date.parse(row.taken_at),
      likes: row.likes,
      retweets: row.retweets,
      replies: row.replies,
      quotes: row.quotes,
      views: row.impressions,
    });
    byPost.set(key, list);
  }
  return byPost;
}

/** The median of a period's engagements (docs/analytics.md), or null without posts. */
const medianOrNull = (values: number[]) => (values.length === 0 ? null : median(values));

/**
 * How long a handle's medians are used before they are worked out again. A month's median moves
 * slowly, and working it out reads the handle's posts of the month.
 */
const MEDIANS_TTL_MS = 5 * 60_000;
/** Each database's handles' medians, and until when they hold. */
const mediansKept = new WeakMap<object, Map<number, { until: number; medians: HandleMedians }>>();

/** Each handle's median post engagement of the last 7 and 30 days. */
async function mediansOf(
  db: Executor,
  handleIds: number[],
  now: number,
): Promise<Map<number, HandleMedians>> {
  const medians = new Map<number, HandleMedians>();
  let kept = mediansKept.get(db);
  if (!kept) mediansKept.set(db, (kept = new Map()));
  const stale: number[] = [];
  for (const handleId of handleIds) {
    const entry = kept.get(handleId);
    if (entry && entry.until > now) medians.set(handleId, entry.medians);
    else stale.push(handleId);
  }
  if (stale.length === 0) return medians;
  // Stored times are ISO strings in UTC: they compare as text.
  const weekStart = new Date(now - 7 * DAY_MS).toISOString();
  const rows = await db
    .selectFrom('tweets')
    .select((eb) => [
      'handle_id',
      'created_at',
      eb(
        eb(eb('like_count', '+', eb.ref('retweet_count')), '+', eb.ref('reply_count')),
        '+',
        eb.ref('quote_count'),
      ).as('engagement'),
    ])
    .where('handle_id', 'in', stale)
    .where('created_at', '>=', new Date(now - 30 * DAY_MS).toISOString())
    .execute();
  const month = new Map<number, number[]>(stale.map((id) => [id, []]));
  const week = new Map<number, number[]>(stale.map((id) => [id, []]));
  for (const row of rows) {
    const engagement = Number(row.engagement);
    month.get(row.handle_id)!.push(engagement);
    if (row.created_at >= weekStart) week.get(row.handle_id)!.push(engagement);
  }
  for (const handleId of stale) {
    const value = {
      week: medianOrNull(week.get(handleId)!),
      month: medianOrNull(month.get(handleId)!),
    };
    medians.set(handleId, value);
    kept.set(handleId, { until: now + MEDIANS_TTL_MS, medians: value });
  }
  return medians;
}

/** The key a firing is stored once under: the post for post rules, the time for handle rules. */
const keyOf = (firing: Firing) =>
  firing.postId !== undefined
    ? firingKey(firing.ruleId, firing.postId)
    : `${firing.ruleId}@${new Date(firing.at).toISOString()}`;

/** Rows per INSERT: far below both databases' parameter limits. */
const INSERT_CHUNK = 500;

/**
 * Stores the firings (each key once: one already stored is left as it is) and queues the new
 * ones' deliveries to their owners' channels, in the firings' order: a few statements per
 * batch, whatever the number of firings.
 */
async function recordFirings(
  trx: Executor,
  firings: readonly { rule: StoredRule; firing: Firing }[],
  options: AlertPassOptions,
): Promise<Recorded> {
  if (firings.length === 0) return { fired: 0, queued: 0, firings: [] };
  const nowIso = options.now.toISOString();
  const values = firings.map(({ rule, firing }) => ({
    rule_id: rule.id,
    user_id: rule.user_id,
    handle_id: rule.handle_id,
    firing_key: keyOf(firing),
    tweet_id: firing.postId ?? null,
    fired_at: new Date(firing.at).toISOString(),
    numbers: JSON.stringify(firing.numbers),
  }));
  const inserted: { id: number; user_id: number; handle_id: number }[] = [];
  for (let start = 0; start < values.length; start += INSERT_CHUNK) {
    const rows = await trx
      .insertInto('alert_firings')
      .values(values.slice(start, start + INSERT_CHUNK))
      .onConflict((oc) => oc.columns(['rule_id', 'firing_key']).doNothing())
      .returning(['id', 'user_id', 'handle_id'])
      .execute();
    inserted.push(...rows);
  }
  if (inserted.length === 0) return { fired: 0, queued: 0, firings: [] };
  inserted.sort((a, b) => a.id - b.id);
  const channelsOf = await alertChannels(
    trx,
    [...new Set(inserted.map((firing) => firing.user_id))],
    options,
  );
  const rows = inserted.flatMap((firing) =>
    (channelsOf.get(firing.user_id) ?? []).map((channel) => ({
      user_id: firing.user_id,
      handle_id: firing.handle_id,
      tweet_id: `alert:${firing.id}`,
      channel,
      status: 'pending' as const,
      attempts: 0,
      next_attempt_at: nowIso,
      created_at: nowIso,
      last_error: null,
      alert_firing_id: firing.id,
    })),
  );
  let queued = 0;
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    const result = await trx
      .insertInto('notification_outbox')
      .values(rows.slice(start, start + INSERT_CHUNK))
      .onConflict((oc) => oc.columns(['user_id', 'handle_id', 'tweet_id', 'channel']).doNothing())
      .executeTakeFirst();
    queued += Number(result.numInsertedOrUpdatedRows ?? 0n);
  }
  if (rows.length > 0) await wakeChats(trx, rows, nowIso);
  const fired = inserted.map((row) => ({
    id: row.id,
    userId: row.user_id,
    handleId: row.handle_id,
  }));
  return { fired: inserted.length, queued, firings: fired };
}

/** Where each user's alerts go: connected, unstopped messaging channels and webhook endpoints. */
async function alertChannels(
  trx: Executor,
  userIds: number[],
  options: AlertPassOptions,
): Promise<Map<number, OutboxChannel[]>> {
  const [settings, endpoints] = await Promise.all([
    trx
      .selectFrom('user_settings')
      .select([
        'user_id',
        'telegram_chat_id',
        'telegram_stopped_reason',
        'discord_user_id',
        'discord_stopped_reason',
      ])
      .where('user_id', 'in', userIds)
      .execute(),
    options.webhooks ? activeWebhookEndpoints(trx, userIds) : Promise.resolve([]),
  ]);
  const channels = new Map<number, OutboxChannel[]>(userIds.map((id) => [id, []]));
  for (const row of settings) {
    const list = channels.get(row.user_id)!;
    if (
      row.telegram_chat_id &&
      !row.telegram_stopped_reason &&
      options.channels.includes('telegram')
    ) {
      list.push('telegram');
    }
    if (
      row.discord_user_id &&
      !row.discord_stopped_reason &&
      options.channels.includes('discord')
    ) {
      list.push('discord');
    }
  }
  for (const endpoint of endpoints)
    channels.get(endpoint.user_id)!.push(webhookChannel(endpoint.id));
  return channels;
}

/** Handle rules are evaluated this often by default. */
export const ALERT_SWEEP_MS = 60_000;

/**
 * The alert rules' part of a delivery round: every post with new numbers (in batches), and the
 * handle rules when their sweep is due. Made once per worker; `sweepMs` is how often handle rules
 * run (tests shorten it).
 */
export function createAlertPass(
  db: Db,
  options: {
    sweepMs?: number;
    log?: { info(data: object, message: string): void };
    /** Told of each batch's new firings once they are committed. */
    onFired?: (firings: FiredAlert[]) => void;
  } = {},
) {
  const sweepMs = options.sweepMs ?? ALERT_SWEEP_MS;
  let lastSweep = Number.NEGATIVE_INFINITY;
  const tell = (result: AlertPassResult) => {
    if (result.firings.length > 0) options.onFired?.(result.firings);
    return result.fired;
  };
  return async (context: Omit<AlertPassOptions, 'limit'>): Promise<void> => {
    let fired = 0;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const result = await evaluatePendingPosts(db, context);
      fired += tell(result);
      if (!result.more) break;
      // Let the deliveries in flight be recorded between two transactions.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (Date.now() - lastSweep >= sweepMs) {
      lastSweep = Date.now();
      fired += tell(await evaluateHandleRules(db, context));
    }
    if (fired > 0) options.log?.info({ fired }, 'alerts fired');
  };
}
