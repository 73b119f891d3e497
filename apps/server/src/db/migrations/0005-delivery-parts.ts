import type { Kysely } from 'kysely';

/**
 * A notification can take several messages (a photo, then the text; a long text in two parts).
 * `parts_sent` records how many went out, so a retry after a failure half-way sends only the
 * rest: the parts already delivered are never sent twice.
 */
export function deliveryParts() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('notification_outbox')
        .addColumn('parts_sent', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('notification_outbox').dropColumn('parts_sent').execute();
    },
  };
}
