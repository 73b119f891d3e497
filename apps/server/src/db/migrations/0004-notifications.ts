import type { Kysely } from 'kysely';
import type { ColumnKinds } from './column-kinds.js';

/**
 * Notifications: each user's channels (Telegram chat, Discord user, X account), the outbox of
 * deliveries (one row per user, tweet and channel, so a message is sent once whatever retries
 * or restarts happen), Telegram one-click link codes, and connected X accounts.
 */
export function notifications(kinds: ColumnKinds) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('user_settings')
        .addColumn('user_id', 'integer', (col) =>
          col.primaryKey().references('users.id').onDelete('cascade'),
        )
        .addColumn('telegram_chat_id', 'text')
        .addColumn('discord_user_id', 'text')
        .addColumn('twitter_username', 'text')
        /** Why delivery to the channel stopped (a permanent failure), or null while it works. */
        .addColumn('telegram_stopped_reason', 'text')
        .addColumn('discord_stopped_reason', 'text')
        /** JSON object: the notification preferences of GET/PUT /settings/notifications. */
        .addColumn('notification_preferences', 'text', (col) => col.notNull().defaultTo('{}'))
        .addColumn('bot_running', kinds.bool, (col) => col.notNull().defaultTo(kinds.false))
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();

      await db.schema
        .createTable('notification_outbox')
        .addColumn('id', kinds.id, (col) => kinds.primaryKey(col))
        .addColumn('user_id', 'integer', (col) =>
          col.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('handle_id', 'integer', (col) =>
          col.notNull().references('handles.id').onDelete('cascade'),
        )
        .addColumn('tweet_id', 'text', (col) => col.notNull())
        .addColumn('channel', 'text', (col) => col.notNull())
        /** pending | sending | sent | failed | cancelled */
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'text', (col) => col.notNull())
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('sent_at', 'text')
        .addUniqueConstraint('notification_outbox_once_key', [
          'user_id',
          'handle_id',
          'tweet_id',
          'channel',
        ])
        .execute();
      await db.schema
        .createIndex('notification_outbox_due_idx')
        .on('notification_outbox')
        .columns(['status', 'next_attempt_at'])
        .execute();
      await db.schema
        .createIndex('notification_outbox_user_idx')
        .on('notification_outbox')
        .columns(['user_id', 'created_at'])
        .execute();

      // A tweet found by monitoring waits here for its fan-out into the outbox; inserting it with
      // the tweet, in the same transaction, means a crash cannot lose a notification.
      await db.schema
        .alterTable('tweets')
        .addColumn('fanout_pending', kinds.bool, (col) => col.notNull().defaultTo(kinds.false))
        .execute();
      await db.schema
        .createIndex('tweets_fanout_pending_idx')
        .on('tweets')
        .columns(['fanout_pending', 'handle_id'])
        .execute();

      await db.schema
        .createTable('telegram_link_codes')
        /** SHA-256 of the one-time code in the t.me link. */
        .addColumn('code_hash', 'text', (col) => col.primaryKey())
        .addColumn('user_id', 'integer', (col) =>
          col.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('expires_at', 'text', (col) => col.notNull())
        .addColumn('used_at', 'text')
        .execute();

      await db.schema
        .createTable('x_accounts')
        .addColumn('user_id', 'integer', (col) =>
          col.primaryKey().references('users.id').onDelete('cascade'),
        )
        .addColumn('x_user_id', 'text', (col) => col.notNull())
        .addColumn('username', 'text', (col) => col.notNull())
        /** Encrypted at rest (AES-256-GCM, base64url of iv | tag | ciphertext). */
        .addColumn('access_token', 'text', (col) => col.notNull())
        .addColumn('refresh_token', 'text')
        .addColumn('expires_at', 'text')
        .addColumn('scope', 'text')
        .addColumn('connected_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();

      await db.schema
        .createTable('oauth_states')
        .addColumn('state', 'text', (col) => col.primaryKey())
        .addColumn('user_id', 'integer', (col) =>
          col.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('code_verifier', 'text', (col) => col.notNull())
        .addColumn('redirect_uri', 'text', (col) => col.notNull())
        .addColumn('expires_at', 'text', (col) => col.notNull())
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      for (const table of [
        'oauth_states',
        'x_accounts',
        'telegram_link_codes',
        'notification_outbox',
        'user_settings',
      ]) {
        await db.schema.dropTable(table).execute();
      }
      await db.schema.dropIndex('tweets_fanout_pending_idx').execute();
      await db.schema.alterTable('tweets').dropColumn('fanout_pending').execute();
    },
  };
}
