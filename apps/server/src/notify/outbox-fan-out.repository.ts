/**
 * The fan-out's SQL: reads the tweets waiting for their fan-out and their handles' followers,
 * writes the outbox rows the fan-out rules (fan-out-rules.ts) decide, in one transaction.
 */
import { sql, type SqlBool } from 'kysely';
import type { Executor, Db } from '../db/index.js';
import type { NotificationChannel } from '../db/types.js';
import { postIdLength } from '../db/posting-order.js';
import { wakeChats } from './delivery-chats.repository.js';
import { activeWebhookEndpoints } from './webhook/webhook-channel.js';
import { fanOutDeliveries, type FanOutDelivery, type FanOutFollower } from './fan-out-rules.js';

/** Rows per INSERT: 9 parameters each, far below both databases' limits. */
const INSERT_CHUNK = 500;

export interface FanOutResult {
  /** Tweets taken off the fan-out list. */
  tweets: number;
  /** Outbox rows created to be sent. */
  queued: number;
  /** Rows created as 'filtered': held back by a user's filter of the handle (the log shows them). */
  filtered: number;
}

export interface FanOutOptions {
  now: string;
  /** The channels this server delivers on (their bot tokens are set). */
  channels: readonly NotificationChannel[];
  /** This server delivers webhooks. */
  webhooks?: boolean;
  /** Tweets taken in one transaction. Default 200. */
  limit?: number;
}

/**
 * Turns tweets waiting for their fan-out (`tweets.fanout_pending`, set by monitoring in the same
 * transaction as the insert) into outbox rows, one per follower and channel the fan-out rules
 * pick (fan-out-rules.ts). A tweet the follower's filter of the handle holds back gets its rows
 * as 'filtered', with the reason, so the delivery log can say so; nothing sends them. The rows
 * are inserted with ON CONFLICT DO NOTHING and the marker cleared in the same transaction, so a
 * crash at any point neither loses nor doubles a delivery. On Postgres, concurrent fan-outs skip
 * each other's tweets.
 */
export async function fanOutPending(
  { db, dialect }: Db,
  options: FanOutOptions,
): Promise<FanOutResult> {
  return db.transaction().execute(async (trx) => {
    const pending = await selectPendingTweets(trx, dialect, options.limit ?? 200);
    if (pending.length === 0) return { tweets: 0, queued: 0, filtered: 0 };
    const followers = await selectFollowers(trx, [
      ...new Set(pending.map((tweet) => tweet.handle_id)),
    ]);
    const deliveries = fanOutDeliveries(
      pending,
      followers,
      options.channels,
      options.webhooks ?? false,
    );
    const inserted = await insertDeliveries(trx, deliveries, options.now);
    await wakeChats(
      trx,
      deliveries.filter((delivery) => delivery.heldBackReason === null),
      options.now,
    );
    await trx
      .updateTable('tweets')
      .set({ fanout_pending: false })
      .where(
        'id',
        'in',
        pending.map((tweet) => tweet.id),
      )
      .execute();
    return { tweets: pending.length, queued: inserted.pending, filtered: inserted.filtered };
  });
}

/** The oldest tweets waiting for their fan-out, locked against other fan-outs on Postgres. */
async function selectPendingTweets(trx: Executor, dialect: Db['dialect'], limit: number) {
  let query = trx
    .selectFrom('tweets')
    .innerJoin('handles', 'handles.id', 'tweets.handle_id')
    .select([
      'tweets.id',
      'tweets.handle_id',
      'tweets.tweet_id',
      'tweets.referenced_types',
      'tweets.in_reply_to_user_id',
      'tweets.text',
      'tweets.media',
      'handles.x_user_id',
    ])
    // The column alone, as the partial index names it (migration 0026).
    .where(sql<SqlBool>`tweets.fanout_pending`)
    // Posting order, ties by post id: the rows are inserted in this order, and their ids are
    // the order each chat gets its notices in (claimNextDelivery).
    .orderBy('tweets.created_at')
    .orderBy(postIdLength('tweets.tweet_id'))
    .orderBy('tweets.tweet_id')
    .limit(limit);
  if (dialect === 'postgres') query = query.forUpdate('tweets').skipLocked();
  return query.execute();
}

/**
 * The handles' followers whose bot runs, with what the fan-out rules read of them (their
 * webhook endpoints that are not stopped, for those who switched webhooks on for the handle).
 */
async function selectFollowers(trx: Executor, handleIds: number[]): Promise<FanOutFollower[]> {
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
      'user_handles.filter_include',
      'user_handles.filter_exclude',
      'user_handles.filter_media_only',
      'user_handles.webhook_enabled',
    ])
    .where('user_handles.handle_id', 'in', handleIds)
    .where('user_settings.bot_running', '=', true)
    .execute();
  const webhookUsers = [
    ...new Set(followers.filter((row) => row.webhook_enabled).map((row) => row.user_id)),
  ];
  if (webhookUsers.length === 0) return followers;
  const endpoints = await activeWebhookEndpoints(trx, webhookUsers);
  return followers.map((row) => ({
    ...row,
    webhook_endpoint_ids: endpoints.filter((e) => e.user_id === row.user_id).map((e) => e.id),
  }));
}

/**
 * Inserts the deliveries as outbox rows, the ones to send ('pending') first, then the held
 * back ones ('filtered'); a row that exists already is left as it is. Returns how many of each
 * were new.
 */
async function insertDeliveries(
  trx: Executor,
  deliveries: readonly FanOutDelivery[],
  now: string,
): Promise<{ pending: number; filtered: number }> {
  const values = deliveries.map(({ heldBackReason, ...delivery }) => ({
    ...delivery,
    status: heldBackReason === null ? ('pending' as const) : ('filtered' as const),
    last_error: heldBackReason,
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
  }));
  const inserted = { pending: 0, filtered: 0 };
  for (const status of ['pending', 'filtered'] as const) {
    const rows = values.filter((row) => row.status === status);
    for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
      const result = await trx
        .insertInto('notification_outbox')
        .values(rows.slice(start, start + INSERT_CHUNK))
        .onConflict((oc) => oc.columns(['user_id', 'handle_id', 'tweet_id', 'channel']).doNothing())
        .executeTakeFirst();
      inserted[status] += Number(result.numInsertedOrUpdatedRows ?? 0n);
    }
  }
  return inserted;
}
