import type { Executor } from '../../db/index.js';

/**
 * The ids of the handles the session's user follows, or null when the session is no longer live
 * (signed out, revoked or expired). One query, so a stream re-checks both at once.
 */
export async function followedHandleIds(
  db: Executor,
  sessionIdHash: string,
  now: string,
): Promise<Set<number> | null> {
  const rows = await db
    .selectFrom('sessions')
    .leftJoin('user_handles', 'user_handles.user_id', 'sessions.user_id')
    .select('user_handles.handle_id')
    .where('sessions.id', '=', sessionIdHash)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', now)
    .execute();
  if (rows.length === 0) return null;
  const ids = new Set<number>();
  for (const row of rows) if (row.handle_id !== null) ids.add(Number(row.handle_id));
  return ids;
}
