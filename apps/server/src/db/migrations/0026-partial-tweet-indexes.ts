import { sql, type Kysely, type SqlBool } from 'kysely';

/**
 * The two indexes of `tweets` that find the few posts waiting for something hold only those
 * posts, not every post a handle ever had.
 *
 * - `tweets_fanout_pending_idx`: posts waiting for their fan-out (`fanout_pending`, 0004). Only
 *   monitoring sets it, and the fan-out clears it within seconds; a backfilled post never has it.
 * - `tweets_metrics_next_at_idx`: posts with a metric reading due (`metrics_next_at`, 0008). A
 *   post has one only in its first days (or its first UTC day under `economy`); a backfill's
 *   older posts never do.
 *
 * A 30-day backfill no longer writes an entry to either index for each post it stores, and the
 * indexes stay as small as the work they find. The fan-out's query names `fanout_pending` as the
 * index does, and the due-readings query's `metrics_next_at <= ?` implies `is not null`, so both
 * databases use them.
 */
export function partialTweetIndexes() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('tweets_fanout_pending_idx').execute();
      await db.schema
        .createIndex('tweets_fanout_pending_idx')
        .on('tweets')
        .column('handle_id')
        .where(sql<SqlBool>`fanout_pending`)
        .execute();
      await db.schema.dropIndex('tweets_metrics_next_at_idx').execute();
      await db.schema
        .createIndex('tweets_metrics_next_at_idx')
        .on('tweets')
        .column('metrics_next_at')
        .where(sql<SqlBool>`metrics_next_at is not null`)
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('tweets_fanout_pending_idx').execute();
      await db.schema
        .createIndex('tweets_fanout_pending_idx')
        .on('tweets')
        .columns(['fanout_pending', 'handle_id'])
        .execute();
      await db.schema.dropIndex('tweets_metrics_next_at_idx').execute();
      await db.schema
        .createIndex('tweets_metrics_next_at_idx')
        .on('tweets')
        .column('metrics_next_at')
        .execute();
    },
  };
}
