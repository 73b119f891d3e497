import type { Kysely } from 'kysely';

/**
 * Analytics: a per-handle data version, bumped in the same statement batch that stores tweets,
 * metrics or profile snapshots, so cached analytics can tell at once that they are out of date
 * (in this process or any other sharing the database).
 */
export function analytics() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('handles')
        .addColumn('data_version', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('handles').dropColumn('data_version').execute();
    },
  };
}
