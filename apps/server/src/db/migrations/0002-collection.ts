import { sql, type Kysely } from 'kysely';
import type { ColumnKinds } from './column-kinds.js';

/**
 * Collection: global handles, the users who follow them, their tweets and the snapshots that
 * growth and velocity analytics read.
 */
export function collection(kinds: ColumnKinds) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('handles')
        .addColumn('id', kinds.id, (col) => kinds.primaryKey(col))
        .addColumn('username', 'text', (col) => col.notNull())
        .addColumn('x_user_id', 'text')
        .addColumn('display_name', 'text')
        .addColumn('backfill_status', 'text', (col) => col.notNull().defaultTo('pending'))
        .addColumn('backfill_progress', 'real', (col) => col.notNull().defaultTo(0))
        .addColumn('backfill_days_covered', 'integer', (col) => col.notNull())
        .addColumn('backfill_target_start', 'text')
        .addColumn('backfill_window_end', 'text')
        .addColumn('oldest_covered_at', 'text')
        .addColumn('newest_tweet_id', 'text')
        .addColumn('initial_backfill_complete', kinds.bool, (col) =>
          col.notNull().defaultTo(kinds.false),
        )
        .addColumn('backfill_completed_at', 'text')
        .addColumn('estimated_completion', 'text')
        .addColumn('total_tweets_collected', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('followers_count', 'integer')
        .addColumn('following_count', 'integer')
        .addColumn('tweet_count', 'integer')
        .addColumn('like_count', 'integer')
        .addColumn('last_poll_at', 'text')
        .addColumn('next_poll_at', 'text')
        .addColumn('quiet_polls', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('last_error', 'text')
        .addColumn('paused', kinds.bool, (col) => col.notNull().defaultTo(kinds.false))
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('handles_username_lower_key')
        .on('handles')
        .unique()
        .expression(sql`lower(username)`)
        .execute();
      await db.schema
        .createIndex('handles_next_poll_at_idx')
        .on('handles')
        .column('next_poll_at')
        .execute();

      await db.schema
        .createTable('user_handles')
        .addColumn('id', kinds.id, (col) => kinds.primaryKey(col))
        .addColumn('user_id', 'integer', (col) =>
          col.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('handle_id', 'integer', (col) =>
          col.notNull().references('handles.id').onDelete('cascade'),
        )
        .addColumn('added_at', 'text', (col) => col.notNull())
        .addColumn('backfill_days', 'integer', (col) => col.notNull())
        .addColumn('telegram_enabled', kinds.bool, (col) => col.notNull().defaultTo(kinds.false))
        .addColumn('discord_enabled', kinds.bool, (col) => col.notNull().defaultTo(kinds.false))
        .addUniqueConstraint('user_handles_user_handle_key', ['user_id', 'handle_id'])
        .execute();
      await db.schema
        .createIndex('user_handles_handle_id_idx')
        .on('user_handles')
        .column('handle_id')
        .execute();

      await db.schema
        .createTable('tweets')
        .addColumn('id', kinds.id, (col) => kinds.primaryKey(col))
        .addColumn('handle_id', 'integer', (col) =>
          col.notNull().references('handles.id').onDelete('cascade'),
        )
        .addColumn('tweet_id', 'text', (col) => col.notNull())
        .addColumn('text', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('lang', 'text')
        .addColumn('like_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('retweet_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('reply_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('quote_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('impression_count', 'integer')
        .addColumn('conversation_id', 'text')
        .addColumn('in_reply_to_user_id', 'text')
        .addColumn('referenced_types', 'text', (col) => col.notNull().defaultTo('[]'))
        .addColumn('hashtags', 'text', (col) => col.notNull().defaultTo('[]'))
        .addColumn('urls', 'text', (col) => col.notNull().defaultTo('[]'))
        .addColumn('media', 'text', (col) => col.notNull().defaultTo('[]'))
        .addColumn('first_seen_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addUniqueConstraint('tweets_handle_tweet_key', ['handle_id', 'tweet_id'])
        .execute();
      await db.schema
        .createIndex('tweets_handle_created_idx')
        .on('tweets')
        .columns(['handle_id', 'created_at'])
        .execute();

      await db.schema
        .createTable('profile_snapshots')
        .addColumn('id', kinds.id, (col) => kinds.primaryKey(col))
        .addColumn('handle_id', 'integer', (col) =>
          col.notNull().references('handles.id').onDelete('cascade'),
        )
        .addColumn('taken_at', 'text', (col) => col.notNull())
        .addColumn('followers', 'integer', (col) => col.notNull())
        .addColumn('following', 'integer', (col) => col.notNull())
        .addColumn('tweet_count', 'integer', (col) => col.notNull())
        .addColumn('like_count', 'integer')
        .execute();
      await db.schema
        .createIndex('profile_snapshots_handle_taken_idx')
        .on('profile_snapshots')
        .columns(['handle_id', 'taken_at'])
        .execute();

      await db.schema
        .createTable('tweet_metric_snapshots')
        .addColumn('id', kinds.id, (col) => kinds.primaryKey(col))
        .addColumn('handle_id', 'integer', (col) =>
          col.notNull().references('handles.id').onDelete('cascade'),
        )
        .addColumn('tweet_id', 'text', (col) => col.notNull())
        .addColumn('taken_at', 'text', (col) => col.notNull())
        .addColumn('likes', 'integer', (col) => col.notNull())
        .addColumn('retweets', 'integer', (col) => col.notNull())
        .addColumn('replies', 'integer', (col) => col.notNull())
        .addColumn('quotes', 'integer', (col) => col.notNull())
        .addColumn('impressions', 'integer')
        .execute();
      await db.schema
        .createIndex('tweet_metric_snapshots_handle_tweet_idx')
        .on('tweet_metric_snapshots')
        .columns(['handle_id', 'tweet_id', 'taken_at'])
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      for (const table of [
        'tweet_metric_snapshots',
        'profile_snapshots',
        'tweets',
        'user_handles',
        'handles',
      ]) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
