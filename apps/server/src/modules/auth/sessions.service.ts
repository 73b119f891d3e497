/**
 * Sessions from sign-in to sign-out: opening one, resolving the cookie on every request under
 * the lifetimes of session-lifetime.ts, the heartbeat's last-seen time, a new id for the same
 * sign-in (rotation) and ending them. The cookie holds a random 256-bit id; the database keeps its
 * SHA-256 only. Every change that could make a cached session wrong goes through `sessions`
 * (session-cache.ts), which drops it on every node.
 */
import type { Db, Executor } from '../../db/index.js';
import { randomToken, sha256Hex } from '../../lib/tokens.js';
import type { AuthContext } from './auth-context.js';
import type { ClientInfo } from './auth-events.js';
import type { SessionCache, SessionInvalidator } from './session-cache.js';
import {
  absoluteEnd,
  activityWriteDue,
  expiryAfterActivity,
  expiryAt,
  type SessionClock,
} from './session-lifetime.js';
import {
  findLiveSession,
  insertSession,
  markSessionSeen,
  revokeSession,
  revokeUserSessions,
  touchSession,
} from './sessions.repository.js';

const iso = (ms: number) => new Date(ms).toISOString();

export interface NewSessionResult {
  /** Raw session id for the cookie; only its hash is stored. */
  token: string;
  expiresAt: string;
  rememberMe: boolean;
}

export interface OpenSessionOptions {
  /**
   * The password (or a code) was given to open it, as at every sign-in: sensitive changes may
   * follow for a few minutes without asking again (step-up).
   */
  authenticated?: boolean;
  now?: number;
}

/**
 * Opens a session: it ends 30 days after sign-in with remember-me, otherwise 7 days after or
 * 12 h after the person's last own request, whichever is first.
 */
export async function openSession(
  db: Db,
  userId: number,
  rememberMe: boolean,
  client: ClientInfo,
  { authenticated = false, now = Date.now() }: OpenSessionOptions = {},
): Promise<NewSessionResult> {
  return insertNewSession(db.db, {
    userId,
    clock: { createdAt: now, rememberMe },
    client,
    authenticatedAt: authenticated ? iso(now) : null,
    now,
  });
}

async function insertNewSession(
  db: Executor,
  fields: {
    userId: number;
    clock: SessionClock;
    client: ClientInfo;
    authenticatedAt: string | null;
    now: number;
  },
): Promise<NewSessionResult> {
  const token = randomToken();
  const expiresAt = iso(expiryAt(fields.clock, fields.now));
  await insertSession(db, {
    idHash: sha256Hex(token),
    userId: fields.userId,
    createdAt: iso(fields.clock.createdAt),
    expiresAt,
    ip: fields.client.ip,
    userAgent: fields.client.userAgent,
    rememberMe: fields.clock.rememberMe,
    authenticatedAt: fields.authenticatedAt,
    lastSeenAt: iso(fields.now),
  });
  return { token, expiresAt, rememberMe: fields.clock.rememberMe };
}

export type { AuthContext } from './auth-context.js';

export interface ResolveOptions {
  /** The time of the request (ms since the epoch). */
  now?: number;
  /**
   * Whether the request is the person's own (session-lifetime.ts, rule 3): only those move the
   * idle timeout. Background requests and the heartbeat are not.
   */
  activity?: boolean;
  /** The SHA-256 of `token` (the sessions table's id), when the caller has it already. */
  idHash?: string;
}

/**
 * Resolves a session cookie to its user, or null when the session is unknown, revoked or over;
 * the person's own requests move the idle timeout (about once a minute). With a cache, a session
 * resolved a moment ago (and not invalidated since) is answered from memory, unless a write is
 * due: then it is read and written as without one.
 */
/**
 * The session as the cache holds it, when the cache can answer alone (a live entry and no
 * activity write due): what resolveSession would return, without waiting. Undefined otherwise.
 */
export function cachedSession(
  cache: SessionCache | null | undefined,
  idHash: string,
  { now = Date.now(), activity = true }: ResolveOptions = {},
): AuthContext | undefined {
  const cached = cache?.get(idHash, now);
  return cached && !activityWriteDue(cached, now, activity) ? cached.auth : undefined;
}

export async function resolveSession(
  db: Db,
  token: string,
  cache?: SessionCache | null,
  { now = Date.now(), activity = true, idHash = sha256Hex(token) }: ResolveOptions = {},
): Promise<AuthContext | null> {
  const cached = cachedSession(cache, idHash, { now, activity });
  if (cached) return cached;
  const snapshot = cache?.snapshot();
  const found = await findLiveSession(db.db, idHash, iso(now));
  if (!found) return null;
  const { session, user } = found;
  const clock = {
    createdAt: Date.parse(session.created_at),
    rememberMe: Boolean(session.remember_me),
  };
  // Never past the absolute lifetime, whatever the row says.
  if (now >= absoluteEnd(clock)) return null;
  let lastSeenAt = Date.parse(session.last_seen_at);
  let expiresAt = Date.parse(session.expires_at);
  if (activityWriteDue({ ...clock, expiresAt, lastSeenAt }, now, activity)) {
    lastSeenAt = now;
    expiresAt = expiryAfterActivity({ ...clock, expiresAt }, now);
    await touchSession(db.db, idHash, iso(lastSeenAt), iso(expiresAt));
  }
  const auth: AuthContext = {
    user,
    sessionIdHash: idHash,
    authenticatedAt: session.authenticated_at,
  };
  if (cache && snapshot !== undefined) {
    cache.set(idHash, { auth, ...clock, expiresAt, lastSeenAt }, snapshot, now);
  }
  return auth;
}

/**
 * The heartbeat of an open tab: the session was seen now (`last_seen_at`, the admin users list's
 * last activity), written on every beat. It does not move the idle timeout: a tab left open is
 * not somebody using it.
 */
export async function recordHeartbeat(db: Db, auth: AuthContext, now = Date.now()): Promise<void> {
  await markSessionSeen(db.db, auth.sessionIdHash, iso(now));
}

/**
 * A new id for the session of `auth`, same sign-in: same user, sign-in time (so the same absolute
 * end), remember-me and step-up time. The caller sets it as the cookie; the plugin then ends the
 * old one (modules/auth/auth.plugin.ts). Null when that session is over meanwhile.
 */
export async function rotateSession(
  db: Db,
  auth: AuthContext,
  client: ClientInfo,
  now = Date.now(),
): Promise<NewSessionResult | null> {
  const found = await findLiveSession(db.db, auth.sessionIdHash, iso(now));
  if (!found) return null;
  const { session } = found;
  return insertNewSession(db.db, {
    userId: session.user_id,
    clock: { createdAt: Date.parse(session.created_at), rememberMe: Boolean(session.remember_me) },
    client,
    authenticatedAt: session.authenticated_at,
    now,
  });
}

/** Ends one session; `sessions` drops it from the session caches of every node. */
export async function closeSession(
  db: Db,
  sessionIdHash: string,
  sessions?: SessionInvalidator | null,
): Promise<void> {
  await revokeSession(db.db, sessionIdHash, new Date().toISOString());
  await sessions?.invalidateSession(sessionIdHash);
}

/**
 * Ends every live session of a user but `exceptIdHash` (a privilege change: whoever holds them
 * signs in again under the new role); answers how many.
 */
export async function closeUserSessions(
  db: Db,
  userId: number,
  sessions?: SessionInvalidator | null,
  exceptIdHash?: string,
): Promise<number> {
  const ended = await revokeUserSessions(db.db, userId, new Date().toISOString(), exceptIdHash);
  await sessions?.invalidateUser(userId);
  return ended;
}
