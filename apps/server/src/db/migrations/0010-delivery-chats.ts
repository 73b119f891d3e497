import { sql, type Kysely } from 'kysely';

/**
 * `delivery_chats`: one row per chat (channel and user) that has had deliveries, with `due_at`,
 * when its oldest waiting notice may go (null: nothing waits). The worker picks chats in
 * `due_at` order, so a claim reads a handful of chats, however many rows wait behind them and
 * however many chats are held back. `version` grows with every write that adds or speeds up
 * work, so a claim that saw nothing to send does not mark the chat idle over a newer write.
 */
export function deliveryChats() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('delivery_chats')
        .addColumn('channel', 'text', (col) => col.notNull())
        .addColumn('user_id', 'integer', (col) =>
          col.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('due_at', 'text')
        .addColumn('version', 'integer', (col) => col.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('delivery_chats_pk', ['channel', 'user_id'])
        .execute();
      await db.schema
        .createIndex('delivery_chats_due_idx')
        .on('delivery_chats')
        .columns(['due_at'])
        .execute();
      // The expiry sweep (rows waiting since before NOTIFY_MAX_AGE_HOURS) reads this index
      // instead of every waiting row.
      await db.schema
        .createIndex('notification_outbox_age_idx')
        .on('notification_outbox')
        .columns(['status', 'created_at'])
        .execute();
      await sql`
        insert into delivery_chats (channel, user_id, due_at, version)
        select channel, user_id, min(next_attempt_at), 1
        from notification_outbox
        where status in ('pending', 'sending')
        group by channel, user_id
      `.execute(db);
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('notification_outbox_age_idx').execute();
      await db.schema.dropTable('delivery_chats').execute();
    },
  };
}
