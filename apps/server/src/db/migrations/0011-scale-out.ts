import type { Kysely } from 'kysely';
import type { ColumnKinds } from './column-kinds.js';

/**
 * Scale-out: several processes on one database.
 * - `handles.lease_owner` / `lease_until`: the one collector job that may write a handle's
 *   tweets and state; a job whose lease ran out (its process crashed or stalled) cannot write.
 * - `cluster_nodes`: the running processes, so a start without REDIS_URL can refuse to do the
 *   work another process already does.
 */
export function scaleOut(kinds: ColumnKinds) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('handles').addColumn('lease_owner', 'text').execute();
      await db.schema.alterTable('handles').addColumn('lease_until', 'text').execute();
      await db.schema
        .createTable('cluster_nodes')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('role', 'text', (col) => col.notNull())
        .addColumn('host', 'text', (col) => col.notNull())
        .addColumn('pid', 'integer', (col) => col.notNull())
        .addColumn('shared', kinds.bool, (col) => col.notNull().defaultTo(kinds.false))
        .addColumn('started_at', 'text', (col) => col.notNull())
        .addColumn('seen_at', 'text', (col) => col.notNull())
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('cluster_nodes').execute();
      await db.schema.alterTable('handles').dropColumn('lease_until').execute();
      await db.schema.alterTable('handles').dropColumn('lease_owner').execute();
    },
  };
}
