import type { Executor } from '../../db/index.js';
import { countRows } from '../../db/queries.js';
import type { SessionRow } from '../auth/sessions.repository.js';

/** One account's live sessions (not revoked, not expired), most recently used first. */
export function listLiveSessions(db: Executor, userId: number, now: string): Promise<SessionRow[]> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('last_seen_at', 'desc')
    .orderBy('created_at', 'desc')
    .execute();
}

/** How many live sessions one account has. */
export async function countLiveSessions(
  db: Executor,
  userId: number,
  now: string,
): Promise<number> {
  return countRows(
    db
      .selectFrom('sessions')
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now),
  );
}

/** The account a live session belongs to, without touching the session. */
export async function liveSessionUserId(
  db: Executor,
  idHash: string,
  now: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('sessions')
    .select('user_id')
    .where('id', '=', idHash)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.user_id;
}
