import type { Kysely } from 'kysely';
import type { ColumnKinds } from './column-kinds.js';

/**
 * The x-web source's pool of collector accounts (TWEET_SOURCE=x-web): one row per X account
 * Perch signs in with. `secrets` (password, email, TOTP secret, or the cookies an admin pasted),
 * `session` (the cookies of the signed-in session) and `flow` (a sign-in waiting for a code)
 * are encrypted with the token cipher. `limits` is a JSON object of the rate limits X told per
 * GraphQL operation.
 */
export function xWebAccounts(kinds: ColumnKinds) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('x_web_accounts')
        .addColumn('id', kinds.id, (col) => kinds.primaryKey(col))
        .addColumn('username', 'text', (col) => col.notNull().unique())
        .addColumn('auth_method', 'text', (col) => col.notNull())
        .addColumn('secrets', 'text', (col) => col.notNull())
        .addColumn('session', 'text')
        .addColumn('flow', 'text')
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('status_reason', 'text')
        .addColumn('challenge_step', 'text')
        .addColumn('challenge_hint', 'text')
        .addColumn('challenge_since', 'text')
        .addColumn('limits', 'text', (col) => col.notNull().defaultTo('{}'))
        .addColumn('last_error', 'text')
        .addColumn('last_error_at', 'text')
        .addColumn('last_used_at', 'text')
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('x_web_accounts').execute();
    },
  };
}
