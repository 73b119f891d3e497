import type { Kysely } from 'kysely';
import type { ColumnKinds } from './column-kinds.js';

/**
 * The security area: two-factor sign-in (a sealed TOTP secret per user, one-time recovery codes,
 * the pending second sign-in step) and each user's security settings.
 */
export function security(kinds: ColumnKinds) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('users')
        /** AES-256-GCM sealed TOTP secret (token-cipher.ts); null while two-factor is off. */
        .addColumn('totp_secret', 'text')
        .execute();
      await db.schema.alterTable('users').addColumn('totp_enabled_at', 'text').execute();
      /** A secret issued by a set-up that has not been confirmed with a code yet (sealed). */
      await db.schema.alterTable('users').addColumn('totp_pending_secret', 'text').execute();
      /** The last TOTP time step accepted, so one code cannot be used twice. */
      await db.schema.alterTable('users').addColumn('totp_last_step', 'integer').execute();
      /** JSON object: GET/PUT /security/settings. */
      await db.schema
        .alterTable('users')
        .addColumn('security_settings', 'text', (col) => col.notNull().defaultTo('{}'))
        .execute();

      await db.schema
        .createTable('recovery_codes')
        .addColumn('id', kinds.id, (col) => kinds.primaryKey(col))
        .addColumn('user_id', 'integer', (col) =>
          col.notNull().references('users.id').onDelete('cascade'),
        )
        /** SHA-256 of the normalised code. */
        .addColumn('code_hash', 'text', (col) => col.notNull())
        .addColumn('used_at', 'text')
        .addColumn('created_at', 'text', (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('recovery_codes_user_idx')
        .on('recovery_codes')
        .column('user_id')
        .execute();

      await db.schema
        .createTable('pending_logins')
        /** SHA-256 of the perch_2fa cookie value. */
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('user_id', 'integer', (col) =>
          col.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('remember_me', kinds.bool, (col) => col.notNull().defaultTo(kinds.false))
        .addColumn('ip', 'text')
        .addColumn('user_agent', 'text')
        .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('expires_at', 'text', (col) => col.notNull())
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('pending_logins').execute();
      await db.schema.dropTable('recovery_codes').execute();
      for (const column of [
        'security_settings',
        'totp_last_step',
        'totp_pending_secret',
        'totp_enabled_at',
        'totp_secret',
      ]) {
        await db.schema.alterTable('users').dropColumn(column).execute();
      }
    },
  };
}
