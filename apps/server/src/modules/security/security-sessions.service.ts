import { SECURITY_MESSAGES, type SecuritySession } from '@perch/shared';
import type { Db } from '../../db/index.js';
import { notFound } from '../../lib/errors.js';
import { sha256Hex } from '../../lib/tokens.js';
import type { AuthContext } from '../auth/auth-context.js';
import type { SessionInvalidator } from '../auth/session-cache.js';
import { revokeSession, revokeUserSessions, type SessionRow } from '../auth/sessions.repository.js';
import { deviceLabel } from './device-label.js';
import { recordSecurityEvent } from '../auth/security-events.repository.js';
import { listLiveSessions } from './security-sessions.repository.js';
import type { Client } from './security.service.js';

const sessionNotFound = () => notFound(SECURITY_MESSAGES.sessionNotFound, 'SESSION_NOT_FOUND');

/**
 * The id a session is known by in the API: derived from the stored hash, so the hash (the
 * database key) never leaves the server, and looked up again by deriving it for each of the
 * account's live sessions. 96 bits: unique among one account's sessions by a wide margin.
 */
export function publicSessionId(idHash: string): string {
  return sha256Hex(`public:${idHash}`).slice(0, 24);
}

function toSecuritySession(row: SessionRow, currentIdHash: string): SecuritySession {
  return {
    id: publicSessionId(row.id),
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    expiresAt: row.expires_at,
    ip: row.ip,
    userAgent: row.user_agent,
    device: deviceLabel(row.user_agent),
    rememberMe: Boolean(row.remember_me),
    current: row.id === currentIdHash,
  };
}

/** The signed-in user's live sessions, most recently used first, this one flagged. */
export async function listSessions(db: Db, auth: AuthContext): Promise<SecuritySession[]> {
  const rows = await listLiveSessions(db.db, auth.user.id, new Date().toISOString());
  return rows.map((row) => toSecuritySession(row, auth.sessionIdHash));
}

/** The session this request was made with. */
export async function currentSession(db: Db, auth: AuthContext): Promise<SecuritySession> {
  const current = (await listSessions(db, auth)).find((session) => session.current);
  if (!current) throw sessionNotFound();
  return current;
}

/**
 * Signs out one of the user's live sessions by its public id; answers whether it was the one
 * making this request. Another user's session, or one already ended, is not found.
 */
export async function revokeSessionById(
  db: Db,
  auth: AuthContext,
  publicId: string,
  client: Client,
  sessions?: SessionInvalidator | null,
): Promise<{ current: boolean }> {
  const now = new Date().toISOString();
  const rows = await listLiveSessions(db.db, auth.user.id, now);
  const row = rows.find((candidate) => publicSessionId(candidate.id) === publicId);
  if (!row) throw sessionNotFound();
  await revokeSession(db.db, row.id, now);
  await sessions?.invalidateSession(row.id);
  await recordSecurityEvent(db.db, {
    userId: auth.user.id,
    type: 'session_revoked',
    severity: 'low',
    description: `Signed out a session: ${deviceLabel(row.user_agent)}, ${row.ip ?? 'unknown IP'}`,
    ip: client.ip,
    userAgent: client.userAgent,
    metadata: { session: publicId },
    at: now,
  });
  return { current: row.id === auth.sessionIdHash };
}

/**
 * Signs out every other live session of the user; answers how many. The caches drop every
 * session of the user (this one is read again on its next request).
 */
export async function revokeOtherSessions(
  db: Db,
  auth: AuthContext,
  client: Client,
  sessions?: SessionInvalidator | null,
): Promise<number> {
  const now = new Date().toISOString();
  const revoked = await revokeUserSessions(db.db, auth.user.id, now, auth.sessionIdHash);
  await sessions?.invalidateUser(auth.user.id);
  await recordSecurityEvent(db.db, {
    userId: auth.user.id,
    type: 'sessions_revoked_others',
    severity: 'medium',
    description: SECURITY_MESSAGES.otherSessionsRevoked(revoked),
    ip: client.ip,
    userAgent: client.userAgent,
    metadata: { revoked },
    at: now,
  });
  return revoked;
}
