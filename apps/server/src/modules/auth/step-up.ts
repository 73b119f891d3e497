/**
 * Step-up (OWASP ASVS 4.0 3.7.1; docs/decisions.md): a session alone does not make sensitive
 * changes (two-factor sign-in on or off, notification channels that receive the user's data).
 * They want the password or a two-factor code given on this session within REAUTH_WINDOW_MS: at
 * sign-in, or with POST /auth/reauthenticate. Otherwise they answer 403 REAUTH_REQUIRED, which the
 * web app meets with a dialog asking for the proof, then sends the change again.
 *
 * A wrong proof counts as a failed sign-in of the account (login-throttle.ts), so a stolen session
 * cannot guess the password here without locking itself out.
 */
import type { FastifyRequest } from 'fastify';
import {
  REAUTH_REQUIRED_CODE,
  REAUTH_WINDOW_MS,
  SECURITY_MESSAGES,
  STEP_UP_MESSAGES,
  type ReauthenticateResponse,
} from '@perch/shared';
import type { Db } from '../../db/index.js';
import { AppError } from '../../lib/errors.js';
import type { TokenCipher } from '../../lib/token-cipher.js';
import { currentAuth } from './auth.plugin.js';
import { findTwoFactorState } from './two-factor.repository.js';
import { twoFactorErrors, useSecondFactor } from './two-factor.service.js';
import { recordAuthEvent, recordWrongCode, type ClientInfo } from './auth-events.js';
import { admitAttempt } from './login-throttle.js';
import { verifyPassword } from './passwords.js';
import type { SessionInvalidator } from './session-cache.js';
import { recentlyAuthenticated } from './session-lifetime.js';
import { setSessionAuthenticated } from './sessions.repository.js';
import type { AuthContext } from './auth-context.js';

const reauthRequired = () => new AppError(403, REAUTH_REQUIRED_CODE, STEP_UP_MESSAGES.required);

/** preHandler of a sensitive change: 403 REAUTH_REQUIRED without a recent proof. */
export async function requireRecentAuthentication(request: FastifyRequest): Promise<void> {
  if (!recentlyAuthenticated(currentAuth(request).authenticatedAt, request.now)) {
    throw reauthRequired();
  }
}

/** The proof of POST /auth/reauthenticate: the password, or a two-factor or recovery code. */
export interface Proof {
  password?: string;
  code?: string;
}

/**
 * Checks the proof and marks the session as proven at `now`; drops the session from the caches
 * of every node, so that each sees the new time. Refuses with the sign-in limits' 429 first.
 */
export async function reauthenticate(
  db: Db,
  cipher: TokenCipher,
  auth: AuthContext,
  proof: Proof,
  client: ClientInfo,
  sessions: SessionInvalidator | null | undefined,
  now: number,
): Promise<ReauthenticateResponse> {
  const { user } = auth;
  const state = proof.code ? await findTwoFactorState(db.db, user.id) : undefined;
  // Not a guess: the account has no codes to give.
  if (proof.code && !state?.totp_secret) {
    throw new AppError(400, 'TWO_FACTOR_NOT_ENABLED', STEP_UP_MESSAGES.codeNotEnabled);
  }
  const attempt = await admitAttempt(
    db,
    { userId: user.id, login: user.username },
    client,
    SECURITY_MESSAGES.tooManyAttempts,
  );
  const proven =
    proof.code && state
      ? (await attempt.guard(
          useSecondFactor(db, cipher, user.id, state, proof.code, client, 'step-up'),
        )) !== null
      : await attempt.guard(verifyPassword(user.password_hash, proof.password ?? ''));
  if (!proven) {
    await attempt.failed();
    throw await refusedProof(db, user.id, client, proof.code ? 'code' : 'password');
  }
  await attempt.release();
  const authenticatedAt = new Date(now).toISOString();
  await setSessionAuthenticated(db.db, auth.sessionIdHash, authenticatedAt);
  await sessions?.invalidateSession(auth.sessionIdHash);
  return { authenticatedAt, validUntil: new Date(now + REAUTH_WINDOW_MS).toISOString() };
}

/** Records a wrong proof in the security log, as a failed sign-in is; answers the refusal. */
async function refusedProof(
  db: Db,
  userId: number,
  client: ClientInfo,
  kind: 'password' | 'code',
): Promise<AppError> {
  if (kind === 'code') {
    await recordWrongCode(
      db,
      client,
      userId,
      'A wrong two-factor code was given to confirm a sensitive change.',
      { purpose: 'step-up' },
    );
    return twoFactorErrors.codeInvalid(400);
  }
  await recordAuthEvent(db, client, {
    type: 'login_failed',
    severity: 'medium',
    description: 'A wrong password was given to confirm a sensitive change.',
    userId,
    metadata: { purpose: 'step-up' },
  });
  return new AppError(400, 'REAUTH_PASSWORD_WRONG', STEP_UP_MESSAGES.passwordWrong);
}
