import type { Selectable } from 'kysely';
import { PLACEHOLDER_TWITTER_USERNAME } from '@perch/shared';
import type { Db } from '../db/index.js';
import type { NotificationChannel, NotificationOutboxTable, OutboxStatus } from '../db/types.js';
import type { TweetRow } from '../modules/handles/tweets.repository.js';
import { allowsTweet, parsePreferences } from './preferences.js';

export type OutboxRow = Selectable<NotificationOutboxTable>;

/** Rows per INSERT: 8 parameters each, far below both databases' limits. */
const INSERT_CHUNK = 500;

export interface FanOutResult {
  /** Tweets taken off the fan-out list. */
  tweets: number;
  /** Outbox rows created. */
  queued: number;
}

/**
 * Turns tweets waiting for their fan-out (`tweets.fanout_pending`, set by monitoring in the same
 * transaction as the insert) into outbox rows: one per follower of the handle and channel that
 * is connected, not stopped, enabled for that handle, allowed by the follower's preferences,
 * while the follower's bot runs and Twitter is connected. The rows are inserted with ON CONFLICT
 * DO NOTHING and the marker cleared in the same transaction, so a crash at any point neither
 * loses nor doubles a delivery. On Postgres, concurrent fan-outs skip each other's tweets.
 */
export async function fanOutPending(
  { db, dialect }: Db,
  options: { now: string; channels: readonly NotificationChannel[]; limit?: number },
): Promise<FanOutResult> {
  return db.transaction().execute(async (trx) => {
    let pendingQuery = trx
      .selectFrom('tweets')
      .innerJoin('handles', 'handles.id', 'tweets.handle_id')
      .select([
        'tweets.id',
        'tweets.handle_id',
        'tweets.tweet_id',
        'tweets.referenced_types',
        'tweets.in_reply_to_user_id',
        'handles.x_user_id',
      ])
      .where('tweets.fanout_pending', '=', true)
      .orderBy('tweets.created_at')
      .orderBy('tweets.id')
      .limit(options.limit ?? 200);
    if (dialect === 'postgres') pendingQuery = pendingQuery.forUpdate('tweets').skipLocked();
    const pending = await pendingQuery.execute();
    if (pending.length === 0) return { tweets: 0, queued: 0 };

    const handleIds = [...new Set(pending.map((tweet) => tweet.handle_id))];
    const followers = await trx
      .selectFrom('user_handles')
      .innerJoin('user_settings', 'user_settings.user_id', 'user_handles.user_id')
      .leftJoin('x_accounts', 'x_accounts.user_id', 'user_handles.user_id')
      .select([
        'user_handles.user_id',
        'user_handles.handle_id',
        'user_handles.telegram_enabled',
        'user_handles.discord_enabled',
        'user_settings.telegram_chat_id',
        'user_settings.telegram_stopped_reason',
        'user_settings.discord_user_id',
        'user_settings.discord_stopped_reason',
        'user_settings.twitter_username',
        'user_settings.notification_preferences',
        'x_accounts.username as x_username',
      ])
      .where('user_handles.handle_id', 'in', handleIds)
      .where('user_settings.bot_running', '=', true)
      .execute();

    const channelsOf = new Map<number, { userId: number; channel: NotificationChannel }[]>();
    const preferencesOf = new Map<number, ReturnType<typeof parsePreferences>>();
    for (const row of followers) {
      const twitter =
        row.x_username !== null ||
        (row.twitter_username !== null && row.twitter_username !== PLACEHOLDER_TWITTER_USERNAME);
      if (!twitter) continue;
      const wanted: NotificationChannel[] = [];
      if (row.telegram_enabled && row.telegram_chat_id && !row.telegram_stopped_reason) {
        wanted.push('telegram');
      }
      if (row.discord_enabled && row.discord_user_id && !row.discord_stopped_reason) {
        wanted.push('discord');
      }
      const list = channelsOf.get(row.handle_id) ?? [];
      for (const channel of wanted) {
        if (options.channels.includes(channel)) list.push({ userId: row.user_id, channel });
      }
      channelsOf.set(row.handle_id, list);
      preferencesOf.set(row.user_id, parsePreferences(row.notification_preferences));
    }

    const values = pending.flatMap((tweet) =>
      (channelsOf.get(tweet.handle_id) ?? [])
        .filter(({ userId }) => {
          const preferences = preferencesOf.get(userId);
          return preferences !== undefined && allowsTweet(preferences, tweet, tweet.x_user_id);
        })
        .map(({ userId, channel }) => ({
          user_id: userId,
          handle_id: tweet.handle_id,
          tweet_id: tweet.tweet_id,
          channel,
          status: 'pending' as const,
          attempts: 0,
          next_attempt_at: options.now,
          created_at: options.now,
        })),
    );
    let queued = 0;
    for (let start = 0; start < values.length; start += INSERT_CHUNK) {
      const result = await trx
        .insertInto('notification_outbox')
        .values(values.slice(start, start + INSERT_CHUNK))
        .onConflict((oc) => oc.columns(['user_id', 'handle_id', 'tweet_id', 'channel']).doNothing())
        .executeTakeFirst();
      queued += Number(result.numInsertedOrUpdatedRows ?? 0n);
    }
    await trx
      .updateTable('tweets')
      .set({ fanout_pending: false })
      .where(
        'id',
        'in',
        pending.map((tweet) => tweet.id),
      )
      .execute();
    return { tweets: pending.length, queued };
  });
}

/** Who not to claim for now: users whose chat is busy or cooling down, or a whole channel. */
export type ClaimExclusions = Partial<Record<NotificationChannel, readonly number[] | 'all'>>;

/**
 * Claims the next due delivery atomically: the oldest pending row whose time has come, not
 * excluded, is moved to 'sending' with a lease (`next_attempt_at` = lease end) and returned. Two
 * workers never claim the same row: the update re-checks the status, and on Postgres the inner
 * select skips rows another transaction holds.
 */
export async function claimNextDelivery(
  { db, dialect }: Db,
  options: { now: string; leaseUntil: string; exclude?: ClaimExclusions },
): Promise<OutboxRow | undefined> {
  let due = db
    .selectFrom('notification_outbox')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', options.now);
  for (const [channel, users] of Object.entries(options.exclude ?? {})) {
    if (users === 'all') due = due.where('channel', '!=', channel as NotificationChannel);
    else if (users.length > 0) {
      due = due.where((eb) =>
        eb.or([
          eb('channel', '!=', channel as NotificationChannel),
          eb('user_id', 'not in', users),
        ]),
      );
    }
  }
  due = due.orderBy('next_attempt_at').orderBy('id').limit(1);
  if (dialect === 'postgres') due = due.forUpdate().skipLocked();
  return (
    db
      .updateTable('notification_outbox')
      .set({ status: 'sending', next_attempt_at: options.leaseUntil })
      // `=` with the scalar sub-select: SQLite then finds the row by its key; with `in` it walked
      // every pending row on each claim.
      .where('id', '=', due)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst()
  );
}

/** The service accepted the message: recorded at once, one row at a time. */
export async function markSent(
  { db }: Db,
  id: number,
  now: string,
  attempts: number,
): Promise<void> {
  await db
    .updateTable('notification_outbox')
    .set({ status: 'sent', sent_at: now, attempts, last_error: null })
    .where('id', '=', id)
    .where('status', '=', 'sending')
    .execute();
}

/** One more message of a multi-message notification was accepted. */
export async function markPartSent({ db }: Db, id: number, partsSent: number): Promise<void> {
  await db
    .updateTable('notification_outbox')
    .set({ parts_sent: partsSent })
    .where('id', '=', id)
    .where('status', '=', 'sending')
    .execute();
}

/** Back to pending, to be tried at `nextAttemptAt`. */
export async function markRetry(
  { db }: Db,
  id: number,
  values: { nextAttemptAt: string; attempts: number; error: string },
): Promise<void> {
  await db
    .updateTable('notification_outbox')
    .set({
      status: 'pending',
      next_attempt_at: values.nextAttemptAt,
      attempts: values.attempts,
      last_error: values.error,
    })
    .where('id', '=', id)
    .where('status', '=', 'sending')
    .execute();
}

/** Ends a delivery without sending it: 'failed' (given up) or 'cancelled' (no longer wanted). */
export async function markFinished(
  { db }: Db,
  id: number,
  values: {
    status: Extract<OutboxStatus, 'failed' | 'cancelled'>;
    attempts?: number;
    error: string;
  },
): Promise<void> {
  await db
    .updateTable('notification_outbox')
    .set({
      status: values.status,
      last_error: values.error,
      ...(values.attempts === undefined ? {} : { attempts: values.attempts }),
    })
    .where('id', '=', id)
    .where('status', 'in', ['sending', 'pending'])
    .execute();
}

/**
 * Cancels every pending delivery of a user (on one channel, or all), e.g. when the channel is
 * stopped or disconnected: no retry storm, and nothing sent to a chat the user left.
 */
export async function cancelPendingDeliveries(
  { db }: Db,
  userId: number,
  channel: NotificationChannel | null,
  reason: string,
): Promise<number> {
  let query = db
    .updateTable('notification_outbox')
    .set({ status: 'cancelled', last_error: reason })
    .where('user_id', '=', userId)
    .where('status', '=', 'pending');
  if (channel) query = query.where('channel', '=', channel);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Cancels a user's pending deliveries of one handle on one channel (its toggle went off). */
export async function cancelPendingForHandle(
  { db }: Db,
  userId: number,
  handleId: number,
  channel: NotificationChannel,
  reason: string,
): Promise<number> {
  const result = await db
    .updateTable('notification_outbox')
    .set({ status: 'cancelled', last_error: reason })
    .where('user_id', '=', userId)
    .where('handle_id', '=', handleId)
    .where('channel', '=', channel)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Puts deliveries left in 'sending' back to pending: all of them at start-up (a crashed process
 * never marked them), or only those whose lease ran out (a worker that hung).
 */
export async function releaseSendingDeliveries(
  { db }: Db,
  now: string,
  onlyExpired: boolean,
): Promise<number> {
  let query = db
    .updateTable('notification_outbox')
    .set({ status: 'pending', next_attempt_at: now })
    .where('status', '=', 'sending');
  if (onlyExpired) query = query.where('next_attempt_at', '<=', now);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** What sending one delivery needs: the tweet, its handle, the user's channel settings. */
export interface DeliveryContext {
  tweet: TweetRow | undefined;
  handle: { username: string; display_name: string | null } | undefined;
  settings:
    | {
        telegram_chat_id: string | null;
        discord_user_id: string | null;
        telegram_stopped_reason: string | null;
        discord_stopped_reason: string | null;
        bot_running: boolean | number;
      }
    | undefined;
  /** The user's link to the handle (gone when they stopped following it). */
  link: { telegram_enabled: boolean | number; discord_enabled: boolean | number } | undefined;
}

export async function loadDeliveryContext({ db }: Db, row: OutboxRow): Promise<DeliveryContext> {
  const [tweet, handle, settings, link] = await Promise.all([
    db
      .selectFrom('tweets')
      .selectAll()
      .where('handle_id', '=', row.handle_id)
      .where('tweet_id', '=', row.tweet_id)
      .executeTakeFirst(),
    db
      .selectFrom('handles')
      .select(['username', 'display_name'])
      .where('id', '=', row.handle_id)
      .executeTakeFirst(),
    db
      .selectFrom('user_settings')
      .select([
        'telegram_chat_id',
        'discord_user_id',
        'telegram_stopped_reason',
        'discord_stopped_reason',
        'bot_running',
      ])
      .where('user_id', '=', row.user_id)
      .executeTakeFirst(),
    db
      .selectFrom('user_handles')
      .select(['telegram_enabled', 'discord_enabled'])
      .where('user_id', '=', row.user_id)
      .where('handle_id', '=', row.handle_id)
      .executeTakeFirst(),
  ]);
  return { tweet, handle, settings, link };
}

export interface DeliveryLogRow extends OutboxRow {
  username: string | null;
  text: string | null;
}

/** A user's latest deliveries, newest first (the Settings page's delivery log). */
export function listDeliveries(
  { db }: Db,
  userId: number,
  channel: NotificationChannel | undefined,
  limit: number,
): Promise<DeliveryLogRow[]> {
  let query = db
    .selectFrom('notification_outbox')
    .leftJoin('handles', 'handles.id', 'notification_outbox.handle_id')
    .leftJoin('tweets', (join) =>
      join
        .onRef('tweets.handle_id', '=', 'notification_outbox.handle_id')
        .onRef('tweets.tweet_id', '=', 'notification_outbox.tweet_id'),
    )
    .selectAll('notification_outbox')
    .select(['handles.username', 'tweets.text'])
    .where('notification_outbox.user_id', '=', userId);
  if (channel) query = query.where('notification_outbox.channel', '=', channel);
  return query
    .orderBy('notification_outbox.created_at', 'desc')
    .orderBy('notification_outbox.id', 'desc')
    .limit(limit)
    .execute();
}
