import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../db/index.js';
import type { SessionsTable } from '../../db/types.js';
import type { UserRow } from '../users/users.repository.js';

export type SessionRow = Selectable<SessionsTable>;

export interface NewSession {
  idHash: string;
  userId: number;
  createdAt: string;
  expiresAt: string;
  ip: string | null;
  userAgent: string | null;
  rememberMe: boolean;
  /** The password (or a code) was given for it now (a sign-in), or not (null). */
  authenticatedAt: string | null;
  /** Seen last: `createdAt` unless given (a rotated session was signed in earlier). */
  lastSeenAt?: string;
}

export async function insertSession(db: Executor, session: NewSession): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      id: session.idHash,
      user_id: session.userId,
      created_at: session.createdAt,
      last_seen_at: session.lastSeenAt ?? session.createdAt,
      expires_at: session.expiresAt,
      ip: session.ip,
      user_agent: session.userAgent,
      remember_me: session.rememberMe,
      authenticated_at: session.authenticatedAt,
    })
    .execute();
}

type LiveSessionRow = UserRow & {
  s_created_at: string;
  s_last_seen_at: string;
  s_expires_at: string;
  s_ip: string | null;
  s_user_agent: string | null;
  s_remember_me: boolean | number;
  s_authenticated_at: string | null;
};

/**
 * A live session (not revoked, not expired) with its user, in one query. It runs on every
 * signed-in request, so it is written as one SQL text: building it with the query builder cost
 * more than running it.
 */
export async function findLiveSession(
  db: Executor,
  idHash: string,
  now: string,
): Promise<{ session: SessionRow; user: UserRow } | undefined> {
  const { rows } = await sql<LiveSessionRow>`
    select u.id, u.username, u.email, u.password_hash, u.is_admin, u.is_super_admin, u.profile,
      u.created_at, u.last_login_at, s.created_at as s_created_at, s.last_seen_at as s_last_seen_at,
      s.expires_at as s_expires_at, s.ip as s_ip, s.user_agent as s_user_agent,
      s.remember_me as s_remember_me, s.authenticated_at as s_authenticated_at
    from sessions s join users u on u.id = s.user_id
    where s.id = ${idHash} and s.revoked_at is null and s.expires_at > ${now}`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  const {
    s_created_at,
    s_last_seen_at,
    s_expires_at,
    s_ip,
    s_user_agent,
    s_remember_me,
    s_authenticated_at,
    ...user
  } = row;
  return {
    session: {
      id: idHash,
      user_id: user.id,
      created_at: s_created_at,
      last_seen_at: s_last_seen_at,
      expires_at: s_expires_at,
      ip: s_ip,
      user_agent: s_user_agent,
      remember_me: s_remember_me,
      revoked_at: null,
      authenticated_at: s_authenticated_at,
    },
    user,
  };
}

export async function touchSession(
  db: Executor,
  idHash: string,
  lastSeenAt: string,
  expiresAt: string,
): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_seen_at: lastSeenAt, expires_at: expiresAt })
    .where('id', '=', idHash)
    .execute();
}

/** Records that the session was seen (the heartbeat), leaving its end where it is. */
export async function markSessionSeen(db: Executor, idHash: string, at: string): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', idHash).execute();
}

/** The password or a code was given on this live session at `at` (step-up). */
export async function setSessionAuthenticated(
  db: Executor,
  idHash: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('sessions')
    .set({ authenticated_at: at })
    .where('id', '=', idHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function revokeSession(db: Executor, idHash: string, at: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ revoked_at: at })
    .where('id', '=', idHash)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Ends every live session of a user, or every one but `exceptIdHash`; answers how many. */
export async function revokeUserSessions(
  db: Executor,
  userId: number,
  at: string,
  exceptIdHash?: string,
): Promise<number> {
  let query = db
    .updateTable('sessions')
    .set({ revoked_at: at })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', at);
  if (exceptIdHash !== undefined) query = query.where('id', '!=', exceptIdHash);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
