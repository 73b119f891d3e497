import type { Kysely } from 'kysely';

/**
 * Deliveries that hold up across processes and outages:
 * - `claimed_by`: the worker that holds a 'sending' row; only it may mark the row, and a
 *   starting worker leaves other workers' live claims alone (their lease is `next_attempt_at`).
 * - `digest_of`: rows sent as one digest message carry the id of the digest's first row.
 * - `delivery_chat_locks`: one send per chat at a time, whichever process sends, held by the
 *   database (a row per channel and user, with its owner and lease).
 * - An index to find the oldest pending row of each chat (deliveries go out in order).
 * Status 'expired' (a row older than NOTIFY_MAX_AGE_HOURS) needs no schema change.
 */
export function deliveryOwnership() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('notification_outbox').addColumn('claimed_by', 'text').execute();
      await db.schema.alterTable('notification_outbox').addColumn('digest_of', 'integer').execute();
      await db.schema
        .createIndex('notification_outbox_chat_idx')
        .on('notification_outbox')
        .columns(['user_id', 'channel', 'status', 'id'])
        .execute();
      await db.schema
        .createTable('delivery_chat_locks')
        .addColumn('channel', 'text', (col) => col.notNull())
        .addColumn('user_id', 'integer', (col) =>
          col.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('owner', 'text', (col) => col.notNull())
        .addColumn('lease_until', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('delivery_chat_locks_pk', ['channel', 'user_id'])
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('delivery_chat_locks').execute();
      await db.schema.dropIndex('notification_outbox_chat_idx').execute();
      await db.schema.alterTable('notification_outbox').dropColumn('digest_of').execute();
      await db.schema.alterTable('notification_outbox').dropColumn('claimed_by').execute();
    },
  };
}
