import type { Kysely } from 'kysely';

/**
 * Word counts kept per handle and UTC day, so an analytics request reads the words block of a
 * whole day as one row instead of every letter of that day's posts (ANALYTICS.md, `words`).
 *
 * - `day`: the UTC date, `YYYY-MM-DD` (the first ten characters of the stored `created_at`).
 * - `counts`: the day's word counts over its posts (retweets left out), a JSON array of the
 *   counting's version and then word and count pairs, flattened (`[1, "word", 3, "other", 1]`);
 *   null while it is to be counted again. Counts of another version are counted again.
 * - `generation`: moves on with every write that adds a post to the day or changes the text of
 *   one of its posts (the same write sets `counts` to null). Counts worked out from the posts
 *   are stored only if the generation read before the posts is still the row's, so counts made
 *   from posts a concurrent write has since changed are never kept.
 *
 * A handle's rows go with it (ON DELETE CASCADE) and with its collected data (a reset).
 */
export function tweetWordDays() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('tweet_word_days')
        .addColumn('handle_id', 'integer', (col) =>
          col.notNull().references('handles.id').onDelete('cascade'),
        )
        .addColumn('day', 'text', (col) => col.notNull())
        .addColumn('generation', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('counts', 'text')
        .addPrimaryKeyConstraint('tweet_word_days_pkey', ['handle_id', 'day'])
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('tweet_word_days').execute();
    },
  };
}
