/**
 * The tables of notifications: settings, the delivery outbox with its chat order and locks,
 * Telegram link codes and feed tokens.
 */
import type { Generated } from 'kysely';
import type { GeneratedBool, Timestamp } from './columns.js';

/** A user's notification channels and preferences (one row per user, made on first save). */
export interface UserSettingsTable {
  user_id: number;
  telegram_chat_id: string | null;
  discord_user_id: string | null;
  twitter_username: string | null;
  /** Why delivery to the channel stopped for good, or null while it works. */
  telegram_stopped_reason: string | null;
  discord_stopped_reason: string | null;
  /** JSON object (GET/PUT /settings/notifications). */
  notification_preferences: Generated<string>;
  bot_running: GeneratedBool;
  updated_at: Timestamp;
}

/** The messaging services, one bot each. */
export type NotificationChannel = 'telegram' | 'discord';
/** A webhook endpoint as an outbox channel: each endpoint is a chat of its own. */
export type WebhookChannel = `webhook:${number}`;
/** Where an outbox row goes: a messaging service, or one webhook endpoint. */
export type OutboxChannel = NotificationChannel | WebhookChannel;

/** 'filtered': held back by the user's filter of the handle, logged and never sent. */
export type OutboxStatus =
  'pending' | 'sending' | 'sent' | 'failed' | 'cancelled' | 'expired' | 'filtered';

/** One delivery: a tweet of a handle to one user on one channel, sent at most once. */
export interface NotificationOutboxTable {
  id: Generated<number>;
  user_id: number;
  handle_id: number;
  /** The post; for an alert's row `alert:<firing id>`, so each firing is delivered once. */
  tweet_id: string;
  channel: OutboxChannel;
  status: OutboxStatus;
  attempts: Generated<number>;
  /** Messages of this notification already accepted by the service (a retry sends the rest). */
  parts_sent: Generated<number>;
  next_attempt_at: Timestamp;
  last_error: string | null;
  created_at: Timestamp;
  sent_at: Timestamp | null;
  /** The worker holding a 'sending' row (its lease ends at `next_attempt_at`). */
  claimed_by: string | null;
  /** Rows sent together as one digest: the id of the digest's first row. */
  digest_of: number | null;
  /** The alert firing this row delivers (migration 0021); null for a post. */
  alert_firing_id: Generated<number | null>;
}

/** One send per chat at a time across processes: who holds a chat, and until when. */
export interface DeliveryChatLocksTable {
  channel: OutboxChannel;
  user_id: number;
  owner: string;
  lease_until: Timestamp;
}

/** A user's secret for the RSS and JSON feeds (migration 0013). */
export interface FeedTokensTable {
  user_id: number;
  /** SHA-256 hex of the token: how a feed request finds its user. */
  token_hash: string;
  /** The token sealed with the stored-credentials key, so Settings can show the addresses. */
  token_sealed: string;
  created_at: Timestamp;
}

/** A chat's place in the delivery order (migration 0010). */
export interface DeliveryChatsTable {
  channel: OutboxChannel;
  user_id: number;
  /** When its oldest waiting notice may go; null when nothing waits. */
  due_at: Timestamp | null;
  /** Grows with every write that adds or speeds up work for the chat. */
  version: Generated<number>;
}

export interface TelegramLinkCodesTable {
  /** SHA-256 hex of the one-time code. */
  code_hash: string;
  user_id: number;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}
