import type { Kysely } from 'kysely';
import type { ColumnKinds } from './column-kinds.js';

/**
 * The x-web source's knowledge of X's web client, shared by every process:
 *
 * - `x_web_operations`: each GraphQL operation's query id, features and field toggles as last
 *   read from x.com's client bundle, with when they were seen there.
 * - `x_web_operation_pins`: values an operator pinned on the Admin page (used instead).
 * - `x_web_state` (one row, id 1): when the bundle was last read and why that failed; the pool's
 *   pause while X answers with HTML pages (Cloudflare), with its backoff step.
 * - `x_web_leases`: one request in flight per account and operation, across processes.
 */
export function xWebOperations(_kinds: ColumnKinds) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('x_web_operations')
        .addColumn('name', 'text', (col) => col.primaryKey())
        .addColumn('query_id', 'text', (col) => col.notNull())
        .addColumn('features', 'text', (col) => col.notNull())
        .addColumn('field_toggles', 'text', (col) => col.notNull())
        .addColumn('seen_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();
      await db.schema
        .createTable('x_web_operation_pins')
        .addColumn('name', 'text', (col) => col.primaryKey())
        .addColumn('query_id', 'text', (col) => col.notNull())
        .addColumn('features', 'text')
        .addColumn('field_toggles', 'text')
        .addColumn('pinned_at', 'text', (col) => col.notNull())
        .addColumn('pinned_by', 'text')
        .execute();
      await db.schema
        .createTable('x_web_state')
        .addColumn('id', 'integer', (col) => col.primaryKey())
        .addColumn('ops_checked_at', 'text')
        .addColumn('ops_refreshed_at', 'text')
        .addColumn('ops_error', 'text')
        .addColumn('paused_until', 'text')
        .addColumn('pause_reason', 'text')
        .addColumn('paused_since', 'text')
        .addColumn('pause_step', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createTable('x_web_leases')
        .addColumn('account_id', 'integer', (col) => col.notNull())
        .addColumn('operation', 'text', (col) => col.notNull())
        .addColumn('holder', 'text', (col) => col.notNull())
        .addColumn('until', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('x_web_leases_pk', ['account_id', 'operation'])
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('x_web_leases').execute();
      await db.schema.dropTable('x_web_state').execute();
      await db.schema.dropTable('x_web_operation_pins').execute();
      await db.schema.dropTable('x_web_operations').execute();
    },
  };
}
