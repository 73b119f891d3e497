/**
 * Two-factor sign-in (POST /security/2fa): set-up with a TOTP secret confirmed by a
 * code, one-time recovery codes, switching it off, and checking a code at sign-in. Secrets are
 * sealed with the stored-credentials key (token-cipher.ts); recovery codes are kept as hashes.
 */
import { SECURITY_MESSAGES, type TwoFactorResponse } from '@perch/shared';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { AppError, conflict } from '../../lib/errors.js';
import { nowIso, safeEqual } from '../../lib/tokens.js';
import { recordAuthEvent, recordWrongCode, type ClientInfo } from './auth-events.js';
import { admitAttempt, type AdmittedAttempt } from './login-throttle.js';
import type { SessionInvalidator } from './session-cache.js';
import { createTokenCipher, type TokenCipher } from '../../lib/token-cipher.js';
import {
  looksLikeTotp,
  newRecoveryCodes,
  newTotpSecret,
  normaliseSecret,
  otpauthUrl,
  qrCodeDataUrl,
  recoveryCodeHash,
  verifyTotp,
} from './totp.js';
import {
  claimTotpStep,
  countUnusedRecoveryCodes,
  disableTotp,
  enableTotp,
  findTwoFactorState,
  replaceRecoveryCodes,
  setPendingSecret,
  useRecoveryCode,
  type TwoFactorState,
} from './two-factor.repository.js';

/** The cipher of the TOTP secrets: the same key as the other stored credentials. */
export function createTwoFactorCipher(
  config: Pick<Config, 'SECRET_KEY' | 'DATA_DIR'>,
): TokenCipher {
  return createTokenCipher({ secretKey: config.SECRET_KEY, dataDir: config.DATA_DIR });
}

/** Where each sealed secret lives; bound into its ciphertext. */
const sealedAt = {
  secret: (userId: number) => `users.totp_secret:${userId}`,
  pending: (userId: number) => `users.totp_pending_secret:${userId}`,
};

export const twoFactorErrors = {
  alreadyEnabled: () =>
    conflict(SECURITY_MESSAGES.twoFactorAlreadyEnabled, 'TWO_FACTOR_ALREADY_ENABLED'),
  notEnabled: () => conflict(SECURITY_MESSAGES.twoFactorNotEnabled, 'TWO_FACTOR_NOT_ENABLED'),
  codeRequired: () =>
    new AppError(400, 'TWO_FACTOR_CODE_REQUIRED', SECURITY_MESSAGES.twoFactorCodeRequired),
  codeInvalid: (status: 400 | 401) =>
    new AppError(status, 'TWO_FACTOR_CODE_INVALID', SECURITY_MESSAGES.twoFactorCodeInvalid),
  secretMismatch: () =>
    new AppError(400, 'TWO_FACTOR_SECRET_MISMATCH', SECURITY_MESSAGES.twoFactorSecretMismatch),
};

export interface TwoFactorUser {
  id: number;
  username: string;
}

export type SecondFactor = { method: 'totp' } | { method: 'recovery_code'; remaining: number };

/** What a code is given for: signing in, turning two-factor off, confirming a change (step-up). */
export type SecondFactorPurpose = 'sign-in' | 'switch-off' | 'step-up';
const PURPOSE_TEXT: Record<SecondFactorPurpose, string> = {
  'sign-in': 'sign in',
  'switch-off': 'turn two-factor sign-in off',
  'step-up': 'confirm a sensitive change',
};

/** Where and how a second factor is being checked. */
export interface SecondFactorCheck {
  db: Db;
  cipher: TokenCipher;
  client: ClientInfo;
  purpose: SecondFactorPurpose;
  /** The 429's message once the account or address made too many attempts. */
  tooManyMessage: string;
}

/**
 * Admits one attempt of `user` (login-throttle.ts) and checks `code` as its second factor
 * (useSecondFactor). A wrong code is counted as a failed attempt; after a right one the
 * attempt is still open, for the caller to release once it is done.
 */
export async function attemptSecondFactor(
  { db, cipher, client, purpose, tooManyMessage }: SecondFactorCheck,
  user: { id: number; username: string },
  state: TwoFactorState,
  code: string,
): Promise<{ attempt: AdmittedAttempt; used: SecondFactor | null }> {
  const attempt = await admitAttempt(
    db,
    { userId: user.id, login: user.username },
    client,
    tooManyMessage,
  );
  const used = await attempt.guard(
    useSecondFactor(db, cipher, user.id, state, code, client, purpose),
  );
  if (!used) await attempt.failed();
  return { attempt, used };
}

/**
 * Checks and uses up a code of a user with two-factor sign-in on: a TOTP code of a step not used
 * before, or an unused recovery code (marked used, 'recovery_code_used' recorded). Null when the
 * code is neither.
 */
export async function useSecondFactor(
  db: Db,
  cipher: TokenCipher,
  userId: number,
  state: TwoFactorState,
  code: string,
  client: ClientInfo,
  purpose: SecondFactorPurpose,
): Promise<SecondFactor | null> {
  if (!state.totp_secret) return null;
  if (looksLikeTotp(code)) {
    const secret = cipher.decrypt(state.totp_secret, sealedAt.secret(userId));
    const step = await verifyTotp(secret, code, state.totp_last_step);
    if (step === null || !(await claimTotpStep(db.db, userId, step))) return null;
    return { method: 'totp' };
  }
  const hash = recoveryCodeHash(code);
  if (!hash || !(await useRecoveryCode(db.db, userId, hash, nowIso()))) return null;
  const remaining = await countUnusedRecoveryCodes(db.db, userId);
  await recordAuthEvent(db, client, {
    type: 'recovery_code_used',
    severity: 'medium',
    description: `A recovery code was used to ${PURPOSE_TEXT[purpose]} (${remaining} left).`,
    userId,
    metadata: { purpose, remaining },
  });
  return { method: 'recovery_code', remaining };
}

export interface TwoFactorChange {
  enabled: boolean;
  totpSecret?: string;
  code?: string;
}

export interface TwoFactorOutcome {
  data: TwoFactorResponse;
  message: string;
}

/**
 * POST /security/2fa: starts or finishes the set-up, or switches two-factor sign-in off. Turning
 * it on or off drops the user's cached sessions on every node, so nothing cached predates it.
 */
export async function changeTwoFactor(
  db: Db,
  cipher: TokenCipher,
  user: TwoFactorUser,
  change: TwoFactorChange,
  client: ClientInfo,
  sessions?: SessionInvalidator | null,
): Promise<TwoFactorOutcome> {
  const state = await findTwoFactorState(db.db, user.id);
  if (!state) throw twoFactorErrors.notEnabled();
  const code = change.code?.trim() ?? '';
  if (!change.enabled) {
    const outcome = await switchOff(db, cipher, user, state, code, client);
    await sessions?.invalidateUser(user.id);
    return outcome;
  }
  if (state.totp_secret) throw twoFactorErrors.alreadyEnabled();
  if (change.totpSecret === undefined && change.code === undefined) {
    return startSetup(db, cipher, user);
  }
  const outcome = await finishSetup(db, cipher, user, state, change.totpSecret ?? '', code, client);
  await sessions?.invalidateUser(user.id);
  return outcome;
}

/** A new secret, kept as the pending one until a code confirms it; replaces an earlier one. */
async function startSetup(
  db: Db,
  cipher: TokenCipher,
  user: TwoFactorUser,
): Promise<TwoFactorOutcome> {
  const secret = newTotpSecret();
  await setPendingSecret(db.db, user.id, cipher.encrypt(secret, sealedAt.pending(user.id)));
  const url = otpauthUrl(user.username, secret);
  return {
    message: SECURITY_MESSAGES.twoFactorSetupStarted,
    data: {
      status: 'pending',
      totpSecret: secret,
      otpauthUrl: url,
      qrCodeDataUrl: await qrCodeDataUrl(url),
    },
  };
}

async function finishSetup(
  db: Db,
  cipher: TokenCipher,
  user: TwoFactorUser,
  state: TwoFactorState,
  totpSecret: string,
  code: string,
  client: ClientInfo,
): Promise<TwoFactorOutcome> {
  if (!code) throw twoFactorErrors.codeRequired();
  const pendingSealed = state.totp_pending_secret;
  if (!pendingSealed) throw twoFactorErrors.secretMismatch();
  const secret = cipher.decrypt(pendingSealed, sealedAt.pending(user.id));
  if (!safeEqual(normaliseSecret(totpSecret), secret)) throw twoFactorErrors.secretMismatch();
  const step = await verifyTotp(secret, code, null);
  if (step === null) throw twoFactorErrors.codeInvalid(400);

  const recoveryCodes = newRecoveryCodes();
  const hashes = recoveryCodes.map((recoveryCode) => recoveryCodeHash(recoveryCode) ?? '');
  const at = nowIso();
  const enabled = await db.db.transaction().execute(async (trx) => {
    const changed = await enableTotp(trx, user.id, {
      pendingSealed,
      sealed: cipher.encrypt(secret, sealedAt.secret(user.id)),
      step,
      at,
    });
    if (changed) await replaceRecoveryCodes(trx, user.id, hashes, at);
    return changed;
  });
  // Another request finished (or restarted) this set-up meanwhile.
  if (!enabled) {
    const current = await findTwoFactorState(db.db, user.id);
    throw current?.totp_secret
      ? twoFactorErrors.alreadyEnabled()
      : twoFactorErrors.secretMismatch();
  }
  await recordAuthEvent(db, client, {
    type: 'two_factor_enabled',
    severity: 'high',
    description: 'Two-factor sign-in was turned on.',
    userId: user.id,
  });
  return {
    message: SECURITY_MESSAGES.twoFactorEnabled,
    data: { status: 'enabled', recoveryCodes },
  };
}

/**
 * Switches two-factor sign-in off with a current code or a recovery code. Wrong codes count as
 * failed sign-ins of the account, so a stolen session cannot try codes without end.
 */
async function switchOff(
  db: Db,
  cipher: TokenCipher,
  user: TwoFactorUser,
  state: TwoFactorState,
  code: string,
  client: ClientInfo,
): Promise<TwoFactorOutcome> {
  if (!state.totp_secret) throw twoFactorErrors.notEnabled();
  if (!code) throw twoFactorErrors.codeRequired();
  const { attempt, used } = await attemptSecondFactor(
    {
      db,
      cipher,
      client,
      purpose: 'switch-off',
      tooManyMessage: SECURITY_MESSAGES.tooManyAttempts,
    },
    user,
    state,
    code,
  );
  if (!used) {
    await recordWrongCode(
      db,
      client,
      user.id,
      'A wrong two-factor code was given to turn two-factor sign-in off.',
      { purpose: 'switch-off' },
    );
    throw twoFactorErrors.codeInvalid(400);
  }
  await attempt.release();
  await db.db.transaction().execute((trx) => disableTotp(trx, user.id));
  await recordAuthEvent(db, client, {
    type: 'two_factor_disabled',
    severity: 'high',
    description:
      used.method === 'totp'
        ? 'Two-factor sign-in was turned off.'
        : 'Two-factor sign-in was turned off with a recovery code.',
    userId: user.id,
    metadata: { method: used.method },
  });
  return { message: SECURITY_MESSAGES.twoFactorDisabled, data: { status: 'disabled' } };
}
