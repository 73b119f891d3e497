import { sql, type Kysely } from 'kysely';
import type { ColumnKinds } from './column-kinds.js';

/** Users, sessions, invitations and sign-in attempts. */
export function foundation(kinds: ColumnKinds) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('users')
        .addColumn('id', kinds.id, (col) => kinds.primaryKey(col))
        .addColumn('username', 'text', (col) => col.notNull())
        .addColumn('email', 'text', (col) => col.notNull())
        .addColumn('password_hash', 'text', (col) => col.notNull())
        .addColumn('is_admin', kinds.bool, (col) => col.notNull().defaultTo(kinds.false))
        .addColumn('is_super_admin', kinds.bool, (col) => col.notNull().defaultTo(kinds.false))
        .addColumn('profile', 'text')
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('last_login_at', 'text')
        .execute();
      await db.schema
        .createIndex('users_username_lower_key')
        .on('users')
        .unique()
        .expression(sql`lower(username)`)
        .execute();
      await db.schema
        .createIndex('users_email_lower_key')
        .on('users')
        .unique()
        .expression(sql`lower(email)`)
        .execute();

      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('user_id', 'integer', (col) =>
          col.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('last_seen_at', 'text', (col) => col.notNull())
        .addColumn('expires_at', 'text', (col) => col.notNull())
        .addColumn('ip', 'text')
        .addColumn('user_agent', 'text')
        .addColumn('remember_me', kinds.bool, (col) => col.notNull().defaultTo(kinds.false))
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema
        .createIndex('sessions_user_id_idx')
        .on('sessions')
        .column('user_id')
        .execute();

      await db.schema
        .createTable('invitations')
        .addColumn('id', kinds.id, (col) => kinds.primaryKey(col))
        .addColumn('code', 'text', (col) => col.notNull().unique())
        .addColumn('role', 'text', (col) => col.notNull())
        .addColumn('max_uses', 'integer', (col) => col.notNull().defaultTo(1))
        .addColumn('uses', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('expires_at', 'text')
        .addColumn('created_by', 'integer', (col) =>
          col.references('users.id').onDelete('set null'),
        )
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addCheckConstraint('invitations_uses_check', sql`uses >= 0 and uses <= max_uses`)
        .addCheckConstraint('invitations_role_check', sql`role in ('user', 'admin', 'superadmin')`)
        .execute();

      await db.schema
        .createTable('login_attempts')
        .addColumn('id', kinds.id, (col) => kinds.primaryKey(col))
        .addColumn('login', 'text', (col) => col.notNull())
        .addColumn('user_id', 'integer', (col) => col.references('users.id').onDelete('cascade'))
        .addColumn('ip', 'text', (col) => col.notNull())
        .addColumn('user_agent', 'text')
        .addColumn('success', kinds.bool, (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('login_attempts_login_ip_idx')
        .on('login_attempts')
        .columns(['login', 'ip', 'created_at'])
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      for (const table of ['login_attempts', 'invitations', 'sessions', 'users']) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
