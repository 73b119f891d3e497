import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../../db/index.js';
import type { SessionsTable } from '../../db/types.js';
import type { UserRow } from '../users/users.repository.js';

type Executor = Kysely<Database> | Transaction<Database>;
export type SessionRow = Selectable<SessionsTable>;

export interface NewSession {
  idHash: string;
  userId: number;
  createdAt: string;
  expiresAt: string;
  ip: string | null;
  userAgent: string | null;
  rememberMe: boolean;
}

export async function insertSession(db: Executor, session: NewSession): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      id: session.idHash,
      user_id: session.userId,
      created_at: session.createdAt,
      last_seen_at: session.createdAt,
      expires_at: session.expiresAt,
      ip: session.ip,
      user_agent: session.userAgent,
      remember_me: session.rememberMe,
    })
    .execute();
}

/** A live session (not revoked, not expired) with its user, in one query. */
export async function findLiveSession(
  db: Executor,
  idHash: string,
  now: string,
): Promise<{ session: SessionRow; user: UserRow } | undefined> {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id as s_id',
      'sessions.user_id as s_user_id',
      'sessions.created_at as s_created_at',
      'sessions.last_seen_at as s_last_seen_at',
      'sessions.expires_at as s_expires_at',
      'sessions.ip as s_ip',
      'sessions.user_agent as s_user_agent',
      'sessions.remember_me as s_remember_me',
      'sessions.revoked_at as s_revoked_at',
      'users.id',
      'users.username',
      'users.email',
      'users.password_hash',
      'users.is_admin',
      'users.is_super_admin',
      'users.profile',
      'users.created_at',
      'users.last_login_at',
    ])
    .where('sessions.id', '=', idHash)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  const { s_id, s_user_id, s_created_at, s_last_seen_at, s_expires_at, s_ip, s_user_agent, s_remember_me, s_revoked_at, ...user } = row;
  return {
    session: {
      id: s_id,
      user_id: s_user_id,
      created_at: s_created_at,
      last_seen_at: s_last_seen_at,
      expires_at: s_expires_at,
      ip: s_ip,
      user_agent: s_user_agent,
      remember_me: s_remember_me,
      revoked_at: s_revoked_at,
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

export async function revokeSession(db: Executor, idHash: string, at: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ revoked_at: at })
    .where('id', '=', idHash)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function revokeUserSessions(db: Executor, userId: number, at: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ revoked_at: at })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
}
