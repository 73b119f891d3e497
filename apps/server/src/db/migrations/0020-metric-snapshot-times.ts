import type { Kysely } from 'kysely';

/**
 * Analytics reads a handle's metric snapshots taken since its window's start. The index of
 * 0002 leads with the tweet after the handle, so that read went through every snapshot the
 * handle ever had; this one finds the window's snapshots alone, as profile snapshots are found.
 */
export function metricSnapshotTimes() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('tweet_metric_snapshots_handle_taken_idx')
        .on('tweet_metric_snapshots')
        .columns(['handle_id', 'taken_at'])
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('tweet_metric_snapshots_handle_taken_idx').execute();
    },
  };
}
