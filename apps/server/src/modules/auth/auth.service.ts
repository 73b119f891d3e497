import {
  LOGIN_FAILURE_WINDOW_MS,
  LOGIN_MAX_FAILURES,
  MESSAGES,
  REMEMBER_ME_MS,
  SESSION_IDLE_MS,
  type User,
} from '@perch/shared';
import type { Db } from '../../db/index.js';
import {
  AppError,
  conflict,
  isUniqueViolation,
  notFound,
  tooManyRequests,
  unauthorized,
} from '../../lib/errors.js';
import { isoAfter, randomToken, sha256Hex } from '../../lib/tokens.js';
import {
  consumeInvitationUse,
  findInvitationByCode,
  findInvitationById,
  type InvitationRow,
} from '../invitations/invitations.repository.js';
import {
  emailExists,
  findUserByLogin,
  insertUser,
  setLastLogin,
  usernameExists,
  type UserRow,
} from '../users/users.repository.js';
import { roleFlags, toUser } from '../users/users.service.js';
import { insertLoginAttempt, recentFailures } from './login-attempts.repository.js';
import { hashPassword, verifyPassword } from './passwords.js';
import {
  findLiveSession,
  insertSession,
  revokeSession,
  touchSession,
} from './sessions.repository.js';

export interface ClientInfo {
  ip: string;
  userAgent: string | null;
}

export interface NewSessionResult {
  /** Raw session id for the cookie; only its hash is stored. */
  token: string;
  expiresAt: string;
  rememberMe: boolean;
}

/** Opens a session: 30 days with remember-me, otherwise 12 h that slide with use. */
export async function openSession(
  { db }: Db,
  userId: number,
  rememberMe: boolean,
  client: ClientInfo,
): Promise<NewSessionResult> {
  const token = randomToken();
  const now = Date.now();
  const expiresAt = isoAfter(rememberMe ? REMEMBER_ME_MS : SESSION_IDLE_MS, now);
  await insertSession(db, {
    idHash: sha256Hex(token),
    userId,
    createdAt: new Date(now).toISOString(),
    expiresAt,
    ip: client.ip,
    userAgent: client.userAgent,
    rememberMe,
  });
  return { token, expiresAt, rememberMe };
}

// Writing last-seen on every request would turn reads into writes; once a minute is enough.
const TOUCH_EVERY_MS = 60_000;

export interface AuthContext {
  user: UserRow;
  sessionIdHash: string;
}

/** Resolves a session cookie to its user; slides the idle expiry of non-remembered sessions. */
export async function resolveSession({ db }: Db, token: string): Promise<AuthContext | null> {
  const idHash = sha256Hex(token);
  const now = Date.now();
  const found = await findLiveSession(db, idHash, new Date(now).toISOString());
  if (!found) return null;
  const { session, user } = found;
  if (now - Date.parse(session.last_seen_at) > TOUCH_EVERY_MS) {
    const expiresAt = session.remember_me ? session.expires_at : isoAfter(SESSION_IDLE_MS, now);
    await touchSession(db, idHash, new Date(now).toISOString(), expiresAt);
  }
  return { user, sessionIdHash: idHash };
}

export async function closeSession({ db }: Db, sessionIdHash: string): Promise<void> {
  await revokeSession(db, sessionIdHash, new Date().toISOString());
}

export interface LoginInput {
  username: string;
  password: string;
  rememberMe: boolean;
}

/**
 * Checks credentials. Wrong password and unknown user fail alike (same text, same work);
 * after LOGIN_MAX_FAILURES failures for one name from one IP in the window, answers 429.
 */
export async function login(
  handle: Db,
  input: LoginInput,
  client: ClientInfo,
): Promise<{ user: User; session: NewSessionResult }> {
  const { db } = handle;
  const now = Date.now();
  const since = new Date(now - LOGIN_FAILURE_WINDOW_MS).toISOString();
  const failures = await recentFailures(db, input.username, client.ip, since);
  if (failures.count >= LOGIN_MAX_FAILURES) {
    const liftsAt = Date.parse(failures.oldest ?? since) + LOGIN_FAILURE_WINDOW_MS;
    throw tooManyRequests(MESSAGES.loginTooManyAttempts, (liftsAt - now) / 1000);
  }
  const row = await findUserByLogin(db, input.username);
  const valid = await verifyPassword(row?.password_hash, input.password);
  const at = new Date().toISOString();
  await insertLoginAttempt(db, {
    login: input.username,
    userId: row?.id ?? null,
    ip: client.ip,
    userAgent: client.userAgent,
    success: valid,
    createdAt: at,
  });
  if (!row || !valid) throw unauthorized(MESSAGES.loginWrongCredentials, 'INVALID_CREDENTIALS');
  await setLastLogin(db, row.id, at);
  const session = await openSession(handle, row.id, input.rememberMe, client);
  return { user: toUser({ ...row, last_login_at: at }), session };
}

export async function verifyInvite(
  { db }: Db,
  code: string,
): Promise<{ valid: boolean; message: string }> {
  const invitation = await findInvitationByCode(db, code.trim());
  if (!invitation) return { valid: false, message: MESSAGES.registerInviteNotFound };
  const unusable = whyUnusable(invitation, new Date().toISOString());
  if (unusable) return { valid: false, message: unusable.message };
  return { valid: true, message: MESSAGES.inviteValid };
}

/**
 * Why an invitation can no longer register anybody, or null while it can. A revoked invitation
 * reads as expired: an admin ended it early, and the person holding it needs a new one either way.
 */
function whyUnusable(invitation: InvitationRow, now: string): AppError | null {
  if (invitation.revoked_at !== null) {
    return conflict(MESSAGES.registerInviteExpired, 'INVITE_REVOKED');
  }
  if (invitation.expires_at !== null && invitation.expires_at <= now) {
    return conflict(MESSAGES.registerInviteExpired, 'INVITE_EXPIRED');
  }
  if (invitation.uses >= invitation.max_uses) {
    return conflict(MESSAGES.registerInviteUsed, 'INVITE_USED');
  }
  return null;
}

export interface RegisterInput {
  username: string;
  email: string;
  password: string;
  invitationCode: string;
}

/**
 * Creates an account from an invitation. The invitation use and the user row are written in
 * one transaction: if the user cannot be inserted the use is given back, and a conditional
 * update makes two registrations on a last use end with exactly one winner.
 */
export async function register(
  handle: Db,
  input: RegisterInput,
  client: ClientInfo,
): Promise<{ user: User; session: NewSessionResult }> {
  const { db } = handle;
  const invitation = await findInvitationByCode(db, input.invitationCode.trim());
  if (!invitation) throw notFound(MESSAGES.registerInviteNotFound, 'INVITE_NOT_FOUND');
  if (await usernameExists(db, input.username)) {
    throw conflict(MESSAGES.registerUsernameTaken, 'USERNAME_TAKEN');
  }
  if (await emailExists(db, input.email))
    throw conflict(MESSAGES.registerEmailTaken, 'EMAIL_TAKEN');
  const passwordHash = await hashPassword(input.password);
  const now = new Date().toISOString();
  let row: UserRow;
  try {
    row = await db.transaction().execute(async (trx) => {
      if (!(await consumeInvitationUse(trx, invitation.id, now))) {
        // Read again: it may have been used up or revoked since it was looked up above.
        const current = (await findInvitationById(trx, invitation.id)) ?? invitation;
        throw whyUnusable(current, now) ?? conflict(MESSAGES.registerInviteUsed, 'INVITE_USED');
      }
      return insertUser(trx, {
        username: input.username,
        email: input.email,
        passwordHash,
        ...roleFlags(invitation.role),
        createdAt: now,
      });
    });
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (isUniqueViolation(error)) {
      // Lost a race with a registration of the same name or email.
      const text = String((error as Error).message);
      if (text.includes('email')) throw conflict(MESSAGES.registerEmailTaken, 'EMAIL_TAKEN');
      if (text.includes('username'))
        throw conflict(MESSAGES.registerUsernameTaken, 'USERNAME_TAKEN');
      throw conflict(MESSAGES.registerConflict, 'USER_EXISTS');
    }
    throw error;
  }
  await setLastLogin(db, row.id, now);
  const session = await openSession(handle, row.id, false, client);
  return { user: toUser({ ...row, last_login_at: now }), session };
}
