import { sql, type Kysely } from 'kysely';

/** The absolute lifetime of a session without remember-me when this migration shipped. */
const MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Session lifetimes and step-up (modules/auth/session-lifetime.ts, step-up.ts):
 * - `authenticated_at`: when the person last gave their password or a two-factor code on the
 *   session (the sign-in, or POST /auth/reauthenticate); sensitive changes want it recent.
 *   Sessions from before have none, so their first sensitive change asks for the password.
 * - A session without remember-me now ends 7 days after sign-in however active it is. Its
 *   `expires_at` slid with use until now, so a live one may lie beyond that: it is brought back
 *   to the end it has under the new rule (a session older than 7 days ends now).
 */
export function sessionLifetimes() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('sessions').addColumn('authenticated_at', 'text').execute();

      const { rows } = await sql<{
        id: string;
        created_at: string;
        expires_at: string;
        remember_me: boolean | number;
      }>`select id, created_at, expires_at, remember_me from sessions
         where revoked_at is null`.execute(db);
      for (const row of rows) {
        if (row.remember_me) continue;
        const end = new Date(Date.parse(row.created_at) + MAX_AGE_MS).toISOString();
        if (row.expires_at <= end) continue;
        await sql`update sessions set expires_at = ${end} where id = ${row.id}`.execute(db);
      }
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('sessions').dropColumn('authenticated_at').execute();
    },
  };
}
