import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index.js';
import type { ColumnKinds } from './column-kinds.js';

/**
 * Alerts and webhooks.
 * - `alert_rules`: a user's rules of one handle; `kind` is the rule's JSON (contracts/alerts.ts),
 *   `memory` a handle rule's crossing memory (alerts/crossing.ts), kept so a restart decides as
 *   if it had never happened.
 * - `alert_firings`: what fired, when and with which numbers. `firing_key` is unique per rule
 *   (the post for post rules, the crossing's time for handle rules), so however many workers
 *   evaluate the same event, a firing is stored once; its deliveries go in the same transaction.
 * - `webhook_endpoints`: a user's HTTPS endpoints, their secrets sealed like the X tokens.
 * - `user_handles.webhook_enabled`: new posts of the handle go to the user's webhooks too.
 * - `tweets.alerts_pending`: the post's numbers are new (found by monitoring, or a metric refresh
 *   changed them) and its alert rules have not looked at it yet; set by the same write, cleared
 *   by the evaluation that records its firings, so a crash neither loses nor doubles one.
 * - `notification_outbox.alert_firing_id`: the row delivers that firing instead of a post;
 *   webhook rows name their endpoint in `channel` (`webhook:<id>`), so each endpoint is a chat
 *   of its own with its own order, lock and circuit.
 */
export function alertsAndWebhooks(kinds: ColumnKinds, dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('alert_rules')
        .addColumn('id', kinds.id, (col) => kinds.primaryKey(col))
        .addColumn('user_id', 'integer', (col) =>
          col.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('handle_id', 'integer', (col) =>
          col.notNull().references('handles.id').onDelete('cascade'),
        )
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('enabled', kinds.bool, (col) => col.notNull())
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('memory', 'text')
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('alert_rules_handle_idx')
        .on('alert_rules')
        .columns(['handle_id'])
        .execute();
      await db.schema
        .createIndex('alert_rules_user_idx')
        .on('alert_rules')
        .columns(['user_id'])
        .execute();

      await db.schema
        .createTable('alert_firings')
        .addColumn('id', kinds.id, (col) => kinds.primaryKey(col))
        .addColumn('rule_id', 'integer', (col) =>
          col.notNull().references('alert_rules.id').onDelete('cascade'),
        )
        .addColumn('user_id', 'integer', (col) =>
          col.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('handle_id', 'integer', (col) =>
          col.notNull().references('handles.id').onDelete('cascade'),
        )
        .addColumn('firing_key', 'text', (col) => col.notNull())
        .addColumn('tweet_id', 'text')
        .addColumn('fired_at', 'text', (col) => col.notNull())
        /** JSON object of the numbers that fired it (alerts/types.ts FiringNumbers). */
        .addColumn('numbers', 'text', (col) => col.notNull())
        .addUniqueConstraint('alert_firings_once_key', ['rule_id', 'firing_key'])
        .execute();
      await db.schema
        .createIndex('alert_firings_user_idx')
        .on('alert_firings')
        .columns(['user_id', 'fired_at'])
        .execute();
      await db.schema
        .createIndex('alert_firings_tweet_idx')
        .on('alert_firings')
        .columns(['handle_id', 'tweet_id'])
        .execute();

      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', kinds.id, (col) => kinds.primaryKey(col))
        .addColumn('user_id', 'integer', (col) =>
          col.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('url', 'text', (col) => col.notNull())
        .addColumn('preset', 'text', (col) => col.notNull())
        /** The signing secret, sealed with the stored-credentials key (token-cipher.ts). */
        .addColumn('secret_sealed', 'text', (col) => col.notNull())
        /** Why delivery stopped for good (the endpoint refused the requests), or null. */
        .addColumn('stopped_reason', 'text')
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_endpoints_user_idx')
        .on('webhook_endpoints')
        .columns(['user_id'])
        .execute();

      await db.schema
        .alterTable('user_handles')
        .addColumn('webhook_enabled', kinds.bool, (col) => col.notNull().defaultTo(kinds.false))
        .execute();
      await db.schema
        .alterTable('notification_outbox')
        .addColumn('alert_firing_id', 'integer')
        .execute();
      await db.schema
        .alterTable('tweets')
        .addColumn('alerts_pending', kinds.bool, (col) => col.notNull().defaultTo(kinds.false))
        .execute();
      await db.schema
        .createIndex('tweets_alerts_pending_idx')
        .on('tweets')
        .columns(['alerts_pending', 'handle_id'])
        .execute();
      // An install with posts gets statistics for the new column at once: without them
      // PostgreSQL may look for the few marked posts by walking the whole table in id order,
      // every second, until autovacuum analyses it. An empty table is left alone: statistics
      // saying "empty" would mislead the planner while the first posts come in.
      if (dialect === 'postgres') {
        const { rows } = await sql<{ stored: boolean }>`
          select exists (select 1 from tweets) as stored`.execute(db);
        if (rows[0]?.stored) await sql`analyze tweets`.execute(db);
      }
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('tweets_alerts_pending_idx').execute();
      await db.schema.alterTable('tweets').dropColumn('alerts_pending').execute();
      await db.schema.alterTable('notification_outbox').dropColumn('alert_firing_id').execute();
      await db.schema.alterTable('user_handles').dropColumn('webhook_enabled').execute();
      await db.schema.dropTable('webhook_endpoints').execute();
      await db.schema.dropTable('alert_firings').execute();
      await db.schema.dropTable('alert_rules').execute();
    },
  };
}
