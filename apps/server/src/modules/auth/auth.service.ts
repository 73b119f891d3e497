import {
  LOGIN_MAX_FAILURES,
  MESSAGES,
  SECURITY_MESSAGES,
  TWO_FACTOR_LOGIN_TTL_MS,
  passwordSchema,
  type User,
} from '@perch/shared';
import type { Db } from '../../db/index.js';
import { AppError, conflict, isUniqueViolation, notFound, unauthorized } from '../../lib/errors.js';
import { isoAfter, nowIso, randomToken, sha256Hex } from '../../lib/tokens.js';
import {
  consumeInvitationUse,
  findInvitationByCode,
  findInvitationById,
  type InvitationRow,
} from '../invitations/invitations.repository.js';
import { attemptSecondFactor, twoFactorErrors, type SecondFactor } from './two-factor.service.js';
import {
  addPendingLoginAttempt,
  deletePendingLogin,
  deletePendingLoginsOf,
  findLivePendingLogin,
  insertPendingLogin,
} from './two-factor.repository.js';
import type { TokenCipher } from '../../lib/token-cipher.js';
import {
  emailExists,
  findUserById,
  findUserByLogin,
  insertUser,
  replacePasswordHash,
  setLastLogin,
  setPasswordHash,
  usernameExists,
  type UserRow,
} from '../users/users.repository.js';
import { roleFlags, toUser } from '../users/users.service.js';
import { recordAuthEvent, recordWrongCode, type ClientInfo } from './auth-events.js';
import { admitAttempt, countAttempt } from './login-throttle.js';
import { confirmCurrentPassword } from './current-password.js';
import { hashPassword, needsRehash, refuseCommonPassword, verifyPassword } from './passwords.js';
import type { SessionInvalidator } from './session-cache.js';
import { revokeUserSessions } from './sessions.repository.js';
import {
  closeSession,
  openSession,
  type AuthContext,
  type NewSessionResult,
} from './sessions.service.js';

/** Signs out: ends the session and records 'logout'. */
export async function logout(
  db: Db,
  auth: AuthContext,
  client: ClientInfo,
  sessions?: SessionInvalidator | null,
): Promise<void> {
  await closeSession(db, auth.sessionIdHash, sessions);
  await recordAuthEvent(db, client, {
    type: 'logout',
    severity: 'low',
    description: 'Signed out.',
    userId: auth.user.id,
  });
}

export interface LoginInput {
  username: string;
  password: string;
  rememberMe: boolean;
}

export interface SignedIn {
  user: User;
  session: NewSessionResult;
}

/** A right password for an account with two-factor sign-in: the code is still to come. */
export interface SecondStepDue {
  /** Raw value for the perch_2fa cookie; only its hash is stored. */
  pendingToken: string;
}

export type LoginOutcome =
  ({ status: 'signed-in' } & SignedIn) | ({ status: 'two-factor' } & SecondStepDue);

/**
 * Checks credentials. Wrong password and unknown user fail alike (same text, same work); the
 * sign-in limits (login-throttle.ts: per account and IP, per IP, per account) answer 429 first.
 * An account with two-factor sign-in gets no session yet: a pending sign-in waits for its code
 * (completeTwoFactorLogin), and no attempt is counted until then, so a known password does not
 * reset the count of wrong codes.
 */
export async function login(
  db: Db,
  input: LoginInput,
  client: ClientInfo,
  sessions?: SessionInvalidator | null,
): Promise<LoginOutcome> {
  const row = await findUserByLogin(db.db, input.username);
  const attempt = await admitAttempt(
    db,
    { userId: row?.id ?? null, login: input.username },
    client,
    MESSAGES.loginTooManyAttempts,
  );
  const valid = await attempt.guard(verifyPassword(row?.password_hash, input.password));
  if (!row || !valid) {
    await attempt.failed();
    await recordAuthEvent(db, client, {
      type: 'login_failed',
      severity: 'medium',
      description: row
        ? 'Failed sign-in: wrong password.'
        : 'Failed sign-in: no account has this username or email.',
      userId: row?.id ?? null,
      metadata: { login: input.username },
    });
    throw unauthorized(MESSAGES.loginWrongCredentials, 'INVALID_CREDENTIALS');
  }
  if (needsRehash(row.password_hash)) {
    const rehashed = await hashPassword(input.password);
    await replacePasswordHash(db.db, row.id, row.password_hash, rehashed);
  }
  if (row.totp_secret) {
    await attempt.release();
    const pendingToken = randomToken();
    const now = Date.now();
    await insertPendingLogin(db.db, {
      idHash: sha256Hex(pendingToken),
      userId: row.id,
      rememberMe: input.rememberMe,
      ip: client.ip,
      userAgent: client.userAgent,
      createdAt: new Date(now).toISOString(),
      expiresAt: isoAfter(TWO_FACTOR_LOGIN_TTL_MS, now),
    });
    return { status: 'two-factor', pendingToken };
  }
  const signedIn = await signIn(db, row, input.username, input.rememberMe, client, null, sessions);
  return { status: 'signed-in', ...signedIn };
}

/**
 * The end of every sign-in: the attempt, the last-login time, the session and the event. The
 * last-login time is part of the user row cached with the user's other sessions: they are dropped.
 */
async function signIn(
  db: Db,
  row: UserRow,
  login: string,
  rememberMe: boolean,
  client: ClientInfo,
  secondFactor: SecondFactor | null,
  sessions: SessionInvalidator | null | undefined,
): Promise<SignedIn> {
  await countAttempt(db, login, row.id, client, true);
  const at = nowIso();
  await setLastLogin(db.db, row.id, at);
  await sessions?.invalidateUser(row.id);
  const session = await openSession(db, row.id, rememberMe, client, { authenticated: true });
  await recordAuthEvent(db, client, {
    type: 'login_success',
    severity: 'low',
    description: !secondFactor
      ? 'Signed in.'
      : secondFactor.method === 'totp'
        ? 'Signed in with a two-factor code.'
        : 'Signed in with a recovery code.',
    userId: row.id,
    metadata: { method: secondFactor ? secondFactor.method : 'password' },
  });
  return { user: toUser({ ...row, last_login_at: at }), session };
}

export type TwoFactorLoginOutcome =
  | ({ status: 'signed-in' } & SignedIn)
  /** `pendingGone`: the pending sign-in is over (expired, used up), so its cookie can go. */
  | { status: 'failed'; error: AppError; pendingGone: boolean };

const loginExpired = () =>
  unauthorized(SECURITY_MESSAGES.twoFactorLoginExpired, 'TWO_FACTOR_LOGIN_EXPIRED');

/**
 * The pending sign-in of a perch_2fa cookie and its user, while it is live and the user still
 * has two-factor sign-in; null otherwise (a pending sign-in whose user lost it is dropped).
 */
async function pendingSignIn(db: Db, token: string | undefined) {
  if (!token || token.length > 128) return null;
  const idHash = sha256Hex(token);
  const pending = await findLivePendingLogin(db.db, idHash, nowIso());
  if (!pending) return null;
  const row = await findUserById(db.db, pending.user_id);
  if (!row?.totp_secret) {
    await deletePendingLogin(db.db, idHash);
    return null;
  }
  return { idHash, pending, row };
}

/**
 * A wrong code at sign-in: counted on the pending sign-in, which is dropped at
 * LOGIN_MAX_FAILURES, and recorded. Returns whether it was dropped.
 */
async function wrongSignInCode(
  db: Db,
  idHash: string,
  userId: number,
  client: ClientInfo,
): Promise<boolean> {
  const attempts = await addPendingLoginAttempt(db.db, idHash);
  const dropped = attempts >= LOGIN_MAX_FAILURES;
  if (dropped) await deletePendingLogin(db.db, idHash);
  await recordWrongCode(
    db,
    client,
    userId,
    dropped
      ? 'A wrong two-factor code was given at sign-in; the sign-in was dropped.'
      : 'A wrong two-factor code was given at sign-in.',
    { purpose: 'sign-in', attempts },
  );
  return dropped;
}

/**
 * The second sign-in step: the pending sign-in of the perch_2fa cookie and a TOTP or recovery
 * code. A wrong code counts as a failed sign-in of the account (so the password's lock applies to
 * codes too) and after LOGIN_MAX_FAILURES wrong codes the pending sign-in is dropped.
 */
export async function completeTwoFactorLogin(
  db: Db,
  cipher: TokenCipher,
  token: string | undefined,
  code: string,
  requestClient: ClientInfo,
  sessions?: SessionInvalidator | null,
): Promise<TwoFactorLoginOutcome> {
  const failed = (error: AppError, pendingGone: boolean) =>
    ({ status: 'failed', error, pendingGone }) as const;
  const found = await pendingSignIn(db, token);
  if (!found) return failed(loginExpired(), true);
  const { idHash, pending, row } = found;
  // The browser the password came from (its device info), seen at this request's address.
  const client = { ip: requestClient.ip, userAgent: pending.user_agent ?? requestClient.userAgent };
  const { attempt, used } = await attemptSecondFactor(
    { db, cipher, client, purpose: 'sign-in', tooManyMessage: MESSAGES.loginTooManyAttempts },
    row,
    row,
    code,
  );
  if (!used) {
    const dropped = await wrongSignInCode(db, idHash, row.id, client);
    return failed(twoFactorErrors.codeInvalid(401), dropped);
  }
  // Of two requests finishing one pending sign-in, one wins.
  if (!(await deletePendingLogin(db.db, idHash))) {
    await attempt.release();
    return failed(loginExpired(), true);
  }
  const rememberMe = Boolean(pending.remember_me);
  const signedIn = await signIn(db, row, row.username, rememberMe, client, used, sessions);
  return { status: 'signed-in', ...signedIn };
}

/** The user a development sign-in names (username or email), if there is one. */
export async function devLoginUser(db: Db, login: string): Promise<UserRow | undefined> {
  return findUserByLogin(db.db, login);
}

/**
 * Changes the signed-in user's password: the new one must pass the registration rules and the
 * current one must be right (wrong ones count as failed sign-ins). Every other session of the
 * user ends, and so does any sign-in waiting for its two-factor code. Every cached session of the
 * user is dropped, this one too (its cached row holds the old password hash).
 */
export async function changePassword(
  db: Db,
  auth: AuthContext,
  input: { currentPassword: string; newPassword: string },
  client: ClientInfo,
  sessions?: SessionInvalidator | null,
): Promise<{ revokedSessions: number }> {
  const { user } = auth;
  const checked = passwordSchema.safeParse(input.newPassword);
  if (!checked.success) {
    throw new AppError(
      400,
      'INVALID_PASSWORD',
      checked.error.issues[0]?.message ?? MESSAGES.invalidRequest,
    );
  }
  await refuseCommonPassword(checked.data);
  await confirmCurrentPassword(db, user, input.currentPassword, client);
  const passwordHash = await hashPassword(checked.data);
  const at = nowIso();
  const revokedSessions = await db.db.transaction().execute(async (trx) => {
    await setPasswordHash(trx, user.id, passwordHash);
    await deletePendingLoginsOf(trx, user.id);
    return revokeUserSessions(trx, user.id, at, auth.sessionIdHash);
  });
  await sessions?.invalidateUser(user.id);
  await recordAuthEvent(db, client, {
    type: 'password_changed',
    severity: 'high',
    description:
      revokedSessions === 1
        ? 'Password changed; 1 other session was signed out.'
        : `Password changed; ${revokedSessions} other sessions were signed out.`,
    userId: user.id,
    metadata: { revokedSessions },
  });
  return { revokedSessions };
}

export async function verifyInvite(
  db: Db,
  code: string,
): Promise<{ valid: boolean; message: string }> {
  const invitation = await findInvitationByCode(db.db, code.trim());
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
  db: Db,
  input: RegisterInput,
  client: ClientInfo,
): Promise<SignedIn> {
  const invitation = await findInvitationByCode(db.db, input.invitationCode.trim());
  if (!invitation) throw notFound(MESSAGES.registerInviteNotFound, 'INVITE_NOT_FOUND');
  if (await usernameExists(db.db, input.username)) {
    throw conflict(MESSAGES.registerUsernameTaken, 'USERNAME_TAKEN');
  }
  if (await emailExists(db.db, input.email))
    throw conflict(MESSAGES.registerEmailTaken, 'EMAIL_TAKEN');
  await refuseCommonPassword(input.password);
  const passwordHash = await hashPassword(input.password);
  const now = new Date().toISOString();
  let row: UserRow;
  try {
    row = await db.db.transaction().execute(async (trx) => {
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
  await setLastLogin(db.db, row.id, now);
  const session = await openSession(db, row.id, false, client, { authenticated: true });
  await recordAuthEvent(db, client, {
    type: 'registration',
    severity: 'low',
    description: `Account created with an invitation (${invitation.role}).`,
    userId: row.id,
    metadata: { invitationId: invitation.id, role: invitation.role },
  });
  return { user: toUser({ ...row, last_login_at: now }), session };
}
