import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';

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
      await replaceIndex(db, 'tweets_fanout_pending_idx', ['handle_id'], sql`fanout_pending`);
      await replaceIndex(
        db,
        'tweets_metrics_next_at_idx',
        ['metrics_next_at'],
        sql`metrics_next_at is not null`,
      );
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await replaceIndex(db, 'tweets_fanout_pending_idx', ['fanout_pending', 'handle_id']);
      await replaceIndex(db, 'tweets_metrics_next_at_idx', ['metrics_next_at']);
    },
  };
}

/** Drops the index `name` of `tweets` and makes it again on `columns`, partial when `where`. */
async function replaceIndex(
  db: Kysely<unknown>,
  name: string,
  columns: string[],
  where?: RawBuilder<unknown>,
): Promise<void> {
  await db.schema.dropIndex(name).execute();
  const index = db.schema.createIndex(name).on('tweets').columns(columns);
  await (where ? index.where(where.$castTo<SqlBool>()) : index).execute();
}
