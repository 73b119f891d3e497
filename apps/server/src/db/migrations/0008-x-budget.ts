import type { Kysely } from 'kysely';
import type { ColumnKinds } from './column-kinds.js';

/**
 * Paying X per read: the billed resources of each UTC day (the cost meter), the state of the
 * X credentials (refused or out of credits, with the probe schedule), and the columns that let
 * the collector read less: profile refreshes on their own cadence, metric refreshes on a decay
 * schedule, the 3,200-post depth limit and the manual refresh limit.
 */
export function xBudget(kinds: ColumnKinds) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      /** Last profile read of the handle (batched lookups by id, PROFILE_REFRESH_MINUTES). */
      await db.schema.alterTable('handles').addColumn('profile_checked_at', 'text').execute();
      /** X's timeline depth limit ended the backfill before its window start. */
      await db.schema
        .alterTable('handles')
        .addColumn('depth_limited', kinds.bool, (col) => col.notNull().defaultTo(kinds.false))
        .execute();
      /** Last manual poll (analytics Refresh), whoever asked: one a minute per handle. */
      await db.schema.alterTable('handles').addColumn('manual_poll_at', 'text').execute();

      /** When the tweet's metrics are read next (decay schedule); null: never again. */
      await db.schema.alterTable('tweets').addColumn('metrics_next_at', 'text').execute();
      await db.schema
        .createIndex('tweets_metrics_next_at_idx')
        .on('tweets')
        .column('metrics_next_at')
        .execute();

      /**
       * One row per billed resource and UTC day, as X bills: a post or user returned twice on
       * one day costs once. `handle_id` is the handle the read was for (null when gone).
       */
      await db.schema
        .createTable('x_billed_reads')
        .addColumn('day', 'text', (col) => col.notNull())
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('resource_id', 'text', (col) => col.notNull())
        .addColumn('handle_id', 'integer')
        .addColumn('read_at', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('x_billed_reads_pkey', ['day', 'kind', 'resource_id'])
        .execute();
      await db.schema
        .createIndex('x_billed_reads_handle_idx')
        .on('x_billed_reads')
        .columns(['handle_id', 'day'])
        .execute();

      /**
       * The one row of the X credentials' state: 'ok', 'auth' (401/403) or 'credits' (402).
       * While not ok nothing is collected; one probe request runs at most every 5 minutes.
       */
      await db.schema
        .createTable('x_api_status')
        .addColumn('id', 'integer', (col) => col.primaryKey())
        .addColumn('state', 'text', (col) => col.notNull())
        .addColumn('detail', 'text')
        .addColumn('since', 'text')
        .addColumn('last_probe_at', 'text')
        .addColumn('next_probe_at', 'text')
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('x_api_status').execute();
      await db.schema.dropTable('x_billed_reads').execute();
      await db.schema.dropIndex('tweets_metrics_next_at_idx').execute();
      await db.schema.alterTable('tweets').dropColumn('metrics_next_at').execute();
      await db.schema.alterTable('handles').dropColumn('manual_poll_at').execute();
      await db.schema.alterTable('handles').dropColumn('depth_limited').execute();
      await db.schema.alterTable('handles').dropColumn('profile_checked_at').execute();
    },
  };
}
