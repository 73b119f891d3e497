/**
 * The outbox rows' SQL: how a claimed delivery ends (sent, retried, failed, cancelled), what
 * sending one needs, and the changes that cancel, expire or speed up waiting rows. Fan-out,
 * claims and chat locks have their own repositories (outbox-fan-out, outbox-claims,
 * delivery-chats); the delivery log its own (delivery-log.repository.ts).
 */
import { type Selectable, sql } from 'kysely';
import type { Executor } from '../db/index.js';
import type {
  OutboxChannel,
  NotificationOutboxTable,
  OutboxStatus,
  WebhookChannel,
} from '../db/types.js';
import type { TweetRow } from '../db/types.js';
import { wakeChats } from './delivery-chats.repository.js';
import { isWebhookChannel, webhookEndpointId } from './webhook/webhook-channel.js';

export type OutboxRow = Selectable<NotificationOutboxTable>;

/** The Settings page's delivery log, where it was read before it had its own repository. */

/** An update of the rows of `ids` still being sent under `owner`'s claim (others are left). */
const claimedRows = (db: Executor, ids: readonly number[], owner: string) =>
  db
    .updateTable('notification_outbox')
    .where('id', 'in', ids)
    .where('status', '=', 'sending')
    .where('claimed_by', '=', owner);

/**
 * The service accepted the message: recorded at once, if the claim is still `owner`'s. `note`
 * says how it went when not as itself (as plain text, in a digest); the log shows it.
 */
export async function markSent(
  db: Executor,
  ids: readonly number[],
  owner: string,
  values: { now: string; attempts: number; note?: string | null },
): Promise<number> {
  const result = await claimedRows(db, ids, owner)
    .set({
      status: 'sent',
      sent_at: values.now,
      attempts: values.attempts,
      last_error: values.note ?? null,
    })
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** One more message of a multi-message notification was accepted. */
export async function markPartSent(
  db: Executor,
  id: number,
  owner: string,
  partsSent: number,
): Promise<void> {
  await claimedRows(db, [id], owner).set({ parts_sent: partsSent }).execute();
}

/** Back to pending (a digest's rows each alone again), to be tried at `nextAttemptAt`. */
export async function markRetry(
  db: Executor,
  ids: readonly number[],
  owner: string,
  values: { nextAttemptAt: string; attempts: number; error: string },
): Promise<void> {
  await claimedRows(db, ids, owner)
    .set({
      status: 'pending',
      next_attempt_at: values.nextAttemptAt,
      attempts: values.attempts,
      last_error: values.error,
      claimed_by: null,
      digest_of: null,
    })
    .execute();
}

/**
 * Pending rows of a channel that were waiting for its recovery are due now: the backlog goes
 * out at once, oldest first, when the channel's circuit closes.
 */
export async function resumeChannel(
  db: Executor,
  channel: OutboxChannel,
  now: string,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const resumed = await trx
      .updateTable('notification_outbox')
      .set({ next_attempt_at: now })
      .where('channel', '=', channel)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '>', now)
      .returning(['channel', 'user_id'])
      .execute();
    await wakeChats(trx, resumed, now);
    return resumed.length;
  });
}

/**
 * Rows waiting since before `createdBefore` are given up as 'expired', visibly: `reason`, then
 * the last error the service gave, if any.
 */
export async function expireDeliveries(
  db: Executor,
  createdBefore: string,
  reason: string,
): Promise<number> {
  const result = await db
    .updateTable('notification_outbox')
    .set({
      status: 'expired',
      last_error: sql<string>`${reason} || coalesce(' Last error: ' || last_error, '')`,
      claimed_by: null,
    })
    .where('status', '=', 'pending')
    .where('created_at', '<', createdBefore)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Ends a claimed delivery without sending it: 'failed' (refused) or 'cancelled' (unwanted). */
export async function markFinished(
  db: Executor,
  ids: readonly number[],
  owner: string,
  values: {
    status: Extract<OutboxStatus, 'failed' | 'cancelled'>;
    attempts?: number;
    error: string;
  },
): Promise<void> {
  await claimedRows(db, ids, owner)
    .set({
      status: values.status,
      last_error: values.error,
      ...(values.attempts === undefined ? {} : { attempts: values.attempts }),
    })
    .execute();
}

/**
 * Cancels every pending delivery of a user (on one channel, or all), e.g. when the channel is
 * stopped or disconnected: no retry storm, and nothing sent to a chat the user left.
 */
export async function cancelPendingDeliveries(
  db: Executor,
  userId: number,
  channel: OutboxChannel | null,
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
  db: Executor,
  userId: number,
  handleId: number,
  channel: OutboxChannel,
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
  link:
    | {
        telegram_enabled: boolean | number;
        discord_enabled: boolean | number;
        webhook_enabled?: boolean | number;
      }
    | undefined;
  /** For a webhook row: its endpoint (gone once deleted). */
  endpoint?:
    | {
        id: number;
        url: string;
        preset: string;
        secret_sealed: string;
        stopped_reason: string | null;
      }
    | undefined;
  /** For an alert's row: the firing and its rule (gone once the rule was deleted). */
  firing?:
    | {
        tweet_id: string | null;
        fired_at: string;
        numbers: string;
        rule_name: string;
        kind: string;
      }
    | undefined;
}

/** Reads what sending `row` needs, all at once. */
export async function loadDeliveryContext(db: Executor, row: OutboxRow): Promise<DeliveryContext> {
  const endpointId = isWebhookChannel(row.channel) ? webhookEndpointId(row.channel) : null;
  const firing =
    row.alert_firing_id === null
      ? undefined
      : await db
          .selectFrom('alert_firings')
          .innerJoin('alert_rules', 'alert_rules.id', 'alert_firings.rule_id')
          .select([
            'alert_firings.tweet_id',
            'alert_firings.fired_at',
            'alert_firings.numbers',
            'alert_rules.name as rule_name',
            'alert_rules.kind',
          ])
          .where('alert_firings.id', '=', row.alert_firing_id)
          .executeTakeFirst();
  // An alert's row names its firing in tweet_id: the post it is about is the firing's.
  const tweetId = row.alert_firing_id === null ? row.tweet_id : (firing?.tweet_id ?? null);
  const [tweet, handle, settings, link, endpoint] = await Promise.all([
    tweetId === null
      ? undefined
      : db
          .selectFrom('tweets')
          .selectAll()
          .where('handle_id', '=', row.handle_id)
          .where('tweet_id', '=', tweetId)
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
      .select(['telegram_enabled', 'discord_enabled', 'webhook_enabled'])
      .where('user_id', '=', row.user_id)
      .where('handle_id', '=', row.handle_id)
      .executeTakeFirst(),
    endpointId === null
      ? undefined
      : db
          .selectFrom('webhook_endpoints')
          .select(['id', 'url', 'preset', 'secret_sealed', 'stopped_reason'])
          .where('id', '=', endpointId)
          .where('user_id', '=', row.user_id)
          .executeTakeFirst(),
  ]);
  return { tweet, handle, settings, link, endpoint, firing };
}

/** A webhook endpoint refused for good: it stops (the reason on Settings), its waiting rows go. */
export async function stopWebhook(
  db: Executor,
  userId: number,
  channel: WebhookChannel,
  reason: string,
  now: string,
): Promise<void> {
  const id = webhookEndpointId(channel);
  await db
    .updateTable('webhook_endpoints')
    .set({ stopped_reason: reason, updated_at: now })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .execute();
  await cancelPendingDeliveries(db, userId, channel, `Stopped: ${reason}`);
}
