import type { Db } from '../../db/index.js';
import { followedHandleIds } from './events.repository.js';

/** The ids of the handles the session's user follows now, or null once the session is not live. */
export function followedHandles(db: Db, sessionIdHash: string): Promise<Set<number> | null> {
  return followedHandleIds(db.db, sessionIdHash, new Date().toISOString());
}
