/**
 * Who receives a new tweet, and on which channel: the fan-out rules, kept apart from the SQL
 * that reads their inputs and writes their answer (outbox-fan-out.repository.ts).
 *
 * A follower of the tweet's handle gets one delivery per channel that is
 * - connected (a chat id or a Discord user id), not stopped, and switched on for that handle;
 *   webhooks: one per endpoint that is not stopped, when they are switched on for the handle;
 * - delivering on this server (its bot token is set: `channels`; webhooks: `webhooks`);
 * while the follower's Twitter is connected (an X account, or a username other than the
 * placeholder) and the tweet is wanted by the follower's preferences (replies, reposts and
 * quotes; a thread of the handle is not a reply). The bot must run: the query reads only
 * followers whose bot runs.
 *
 * A tweet the follower's filter of the handle holds back still gets its deliveries, with the
 * filter's reason (`heldBackReason`): they are stored as 'filtered' for the delivery log, and
 * nothing sends them. A filter is read once per tweet and follower (both channels share it).
 *
 * After downtime, the waiting notices of one handle for one chat go as one digest when there
 * are more than `digestAfter` of them (`goesAsDigest`).
 */
import { PLACEHOLDER_TWITTER_USERNAME } from '@perch/shared';
import type { NotificationChannel, OutboxChannel } from '../db/types.js';
import {
  compileFilter,
  filterOfLink,
  prepareText,
  type CompiledFilter,
  type PreparedText,
} from './notification-filter.js';
import { allowsTweet, parsePreferences } from './preferences.js';
import { isWebhookChannel, webhookChannel } from './webhook/webhook-channel.js';

/** A tweet waiting for its fan-out, with its handle's X user id (threads are not replies). */
export interface FanOutTweet {
  handle_id: number;
  tweet_id: string;
  /** JSON array of X's reference types ('replied_to', 'retweeted', 'quoted'). */
  referenced_types: string;
  in_reply_to_user_id: string | null;
  text: string;
  /** The stored media column (a JSON array): only whether it holds anything counts. */
  media: string;
  x_user_id: string | null;
}

/** A follower of a handle (a `user_handles` row) with the settings the rules read. */
export interface FanOutFollower {
  user_id: number;
  handle_id: number;
  telegram_enabled: boolean | number;
  discord_enabled: boolean | number;
  telegram_chat_id: string | null;
  telegram_stopped_reason: string | null;
  discord_user_id: string | null;
  discord_stopped_reason: string | null;
  twitter_username: string | null;
  /** The connected X account's username, if any. */
  x_username: string | null;
  notification_preferences: string | null;
  filter_include: string | null;
  filter_exclude: string | null;
  filter_media_only: boolean | number | null;
  /** New posts of the handle also go to the follower's webhooks. */
  webhook_enabled?: boolean | number;
  /** The follower's webhook endpoints that are not stopped. */
  webhook_endpoint_ids?: readonly number[];
}

/** One delivery to create: to be sent (`heldBackReason` null) or held back by a filter. */
export interface FanOutDelivery {
  user_id: number;
  handle_id: number;
  tweet_id: string;
  channel: OutboxChannel;
  /** Why the follower's filter holds the tweet back; null when it is to be sent. */
  heldBackReason: string | null;
}

/** A follower's channel for one handle, with what decides about each tweet. */
interface Recipient {
  userId: number;
  channel: OutboxChannel;
  filter: CompiledFilter | null;
  preferences: ReturnType<typeof parsePreferences>;
}

/** Whether the follower's Twitter is connected (an X account, or a real username). */
export function hasTwitter(follower: FanOutFollower): boolean {
  return (
    follower.x_username !== null ||
    (follower.twitter_username !== null &&
      follower.twitter_username !== PLACEHOLDER_TWITTER_USERNAME)
  );
}

/** The follower's channels that are connected, not stopped and switched on for the handle. */
export function wantedChannels(follower: FanOutFollower): OutboxChannel[] {
  const wanted: OutboxChannel[] = [];
  if (follower.telegram_enabled && follower.telegram_chat_id && !follower.telegram_stopped_reason) {
    wanted.push('telegram');
  }
  if (follower.discord_enabled && follower.discord_user_id && !follower.discord_stopped_reason) {
    wanted.push('discord');
  }
  if (follower.webhook_enabled) {
    for (const id of follower.webhook_endpoint_ids ?? []) wanted.push(webhookChannel(id));
  }
  return wanted;
}

/** Each handle's recipients, in the followers' order, on the channels this server delivers. */
function recipientsByHandle(
  followers: readonly FanOutFollower[],
  channels: readonly NotificationChannel[],
  webhooks: boolean,
): Map<number, Recipient[]> {
  const delivered = (channel: OutboxChannel) =>
    isWebhookChannel(channel) ? webhooks : channels.includes(channel);
  const byHandle = new Map<number, Recipient[]>();
  for (const follower of followers) {
    if (!hasTwitter(follower)) continue;
    const list = byHandle.get(follower.handle_id) ?? [];
    const filter = compileFilter(filterOfLink(follower));
    const preferences = parsePreferences(follower.notification_preferences);
    for (const channel of wantedChannels(follower)) {
      if (delivered(channel)) {
        list.push({ userId: follower.user_id, channel, filter, preferences });
      }
    }
    byHandle.set(follower.handle_id, list);
  }
  return byHandle;
}

/** A stored media column (a JSON array); only whether it holds anything counts. */
export function mediaOf(text: string): unknown[] {
  if (text === '[]' || text === '') return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

/** The deliveries of one tweet: each follower's verdict is worked out once, the text read once. */
function deliveriesOfTweet(tweet: FanOutTweet, recipients: readonly Recipient[]): FanOutDelivery[] {
  let prepared: PreparedText | undefined;
  const verdicts = new Map<number, string | null>();
  const heldBack = (userId: number, filter: CompiledFilter) => {
    let reason = verdicts.get(userId);
    if (reason === undefined) {
      prepared ??= prepareText(tweet.text);
      reason = filter.heldBackReason({ text: tweet.text, media: mediaOf(tweet.media) }, prepared);
      verdicts.set(userId, reason);
    }
    return reason;
  };
  return recipients
    .filter(({ preferences }) => allowsTweet(preferences, tweet, tweet.x_user_id))
    .map(({ userId, channel, filter }) => ({
      user_id: userId,
      handle_id: tweet.handle_id,
      tweet_id: tweet.tweet_id,
      channel,
      heldBackReason: filter ? heldBack(userId, filter) : null,
    }));
}

/**
 * The deliveries the tweets make among their handles' followers, tweet by tweet in the given
 * order, then follower by follower, Telegram, Discord, then webhooks (the order they are
 * inserted in).
 */
export function fanOutDeliveries(
  tweets: readonly FanOutTweet[],
  followers: readonly FanOutFollower[],
  channels: readonly NotificationChannel[],
  webhooks = false,
): FanOutDelivery[] {
  const recipients = recipientsByHandle(followers, channels, webhooks);
  return tweets.flatMap((tweet) => deliveriesOfTweet(tweet, recipients.get(tweet.handle_id) ?? []));
}

/**
 * Whether a chat's waiting notices of one handle go as one digest: more than `digestAfter` of
 * them (0: never).
 */
export function goesAsDigest(waiting: number, digestAfter: number): boolean {
  return digestAfter > 0 && waiting > digestAfter;
}
