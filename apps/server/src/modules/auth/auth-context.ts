import type { UserRow } from '../users/users.repository.js';

/** The signed-in user of a request and its session, as the session cache keeps it. */
export interface AuthContext {
  user: UserRow;
  sessionIdHash: string;
  /** When the password or a code was last given on this session (step-up), or null. */
  authenticatedAt: string | null;
}
