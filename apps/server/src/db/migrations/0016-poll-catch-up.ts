import type { Kysely } from 'kysely';

/**
 * Polls that catch up: after a long pause a handle can have more new posts than one poll reads.
 * The walk through them then goes on over several polls, and `newest_tweet_id` moves only once
 * it reaches the last post stored, so no post of the gap is skipped.
 */
export function pollCatchUp() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      /** Where the next poll continues the walk; null: it starts at the newest post. */
      await db.schema.alterTable('handles').addColumn('catch_up_cursor', 'text').execute();
      /** The newest post the walk has seen: `newest_tweet_id` once the walk is done. */
      await db.schema.alterTable('handles').addColumn('catch_up_newest_id', 'text').execute();
      /** New posts the walk has stored so far (the handle's 'Catching up' text). */
      await db.schema
        .alterTable('handles')
        .addColumn('catch_up_found', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('handles').dropColumn('catch_up_found').execute();
      await db.schema.alterTable('handles').dropColumn('catch_up_newest_id').execute();
      await db.schema.alterTable('handles').dropColumn('catch_up_cursor').execute();
    },
  };
}
