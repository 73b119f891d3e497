import type { Kysely } from 'kysely';

/**
 * Sign-in limits per account and per address (modules/auth/login-throttle.ts): the failures of
 * one account across addresses and of one address across accounts are counted from
 * `login_attempts`, which needs indexes for both; and each account (or unknown name) gets a hold
 * row, claimed by one attempt at a time, that says when its next attempt may start.
 */
export function signInLimits() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('login_attempts_user_idx')
        .on('login_attempts')
        .columns(['user_id', 'created_at'])
        .execute();
      await db.schema
        .createIndex('login_attempts_ip_idx')
        .on('login_attempts')
        .columns(['ip', 'created_at'])
        .execute();

      await db.schema
        .createTable('sign_in_holds')
        /** `account:<user id>`, or `name:<lower-cased name>` for a name no account has. */
        .addColumn('key', 'text', (col) => col.primaryKey())
        /** No attempt starts before this (the progressive delay after failures). */
        .addColumn('next_attempt_at', 'text', (col) => col.notNull())
        /** An attempt is being checked until this; it lapses should that process die. */
        .addColumn('claimed_until', 'text', (col) => col.notNull())
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('sign_in_holds').execute();
      await db.schema.dropIndex('login_attempts_ip_idx').execute();
      await db.schema.dropIndex('login_attempts_user_idx').execute();
    },
  };
}
