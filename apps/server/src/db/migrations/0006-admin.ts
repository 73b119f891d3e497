import type { Kysely } from 'kysely';
import type { ColumnKinds } from './column-kinds.js';

/**
 * Admin: the security event log (admin actions now; sign-ins and the rest of the security area
 * later), revocable invitations, and the collector account's verification challenge, kept in
 * the database so an API process and a worker process see the same state.
 */
export function admin(kinds: ColumnKinds) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('security_events')
        .addColumn('id', kinds.id, (col) => kinds.primaryKey(col))
        /** Whose record this is (the account acted on or signing in); null for system-wide. */
        .addColumn('user_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
        /** Who did it, when somebody else than `user_id` (an admin). */
        .addColumn('actor_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('event_type', 'text', (col) => col.notNull())
        /** critical | high | medium | low */
        .addColumn('severity', 'text', (col) => col.notNull())
        .addColumn('description', 'text', (col) => col.notNull())
        .addColumn('ip', 'text')
        .addColumn('user_agent', 'text')
        /** JSON object with the event's particulars (ids, names). */
        .addColumn('metadata', 'text', (col) => col.notNull().defaultTo('{}'))
        .addColumn('created_at', 'text', (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('security_events_user_created_idx')
        .on('security_events')
        .columns(['user_id', 'created_at'])
        .execute();
      await db.schema
        .createIndex('security_events_created_idx')
        .on('security_events')
        .column('created_at')
        .execute();

      await db.schema.alterTable('invitations').addColumn('revoked_at', 'text').execute();

      await db.schema
        .createTable('collector_account')
        /** Always 1: one collector account per installation. */
        .addColumn('id', 'integer', (col) => col.primaryKey())
        /** IDLE | AWAITING_INPUT | CODE_SUBMITTED */
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('challenge_type', 'text')
        .addColumn('challenge_details', 'text')
        .addColumn('last_challenge_at', 'text')
        /** The code a super admin submitted, until the collector has tried it. */
        .addColumn('submitted_code', 'text')
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('collector_account').execute();
      await db.schema.alterTable('invitations').dropColumn('revoked_at').execute();
      await db.schema.dropTable('security_events').execute();
    },
  };
}
