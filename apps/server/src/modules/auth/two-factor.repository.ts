import type { Selectable } from 'kysely';
import type { Executor } from '../../db/index.js';
import { countRows } from '../../db/queries.js';
import type { PendingLoginsTable } from '../../db/types.js';

export type PendingLoginRow = Selectable<PendingLoginsTable>;

export interface TwoFactorState {
  username: string;
  totp_secret: string | null;
  totp_pending_secret: string | null;
  totp_last_step: number | null;
}

/** The two-factor columns of one user (the session's user row does not carry them). */
export function findTwoFactorState(
  db: Executor,
  userId: number,
): Promise<TwoFactorState | undefined> {
  return db
    .selectFrom('users')
    .select(['username', 'totp_secret', 'totp_pending_secret', 'totp_last_step'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

export async function setPendingSecret(
  db: Executor,
  userId: number,
  sealed: string | null,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ totp_pending_secret: sealed })
    .where('id', '=', userId)
    .execute();
}

/**
 * Turns two-factor sign-in on with the secret of the set-up, only while it is still off and
 * that set-up is still the pending one: of two confirmations racing, one wins.
 */
export async function enableTotp(
  db: Executor,
  userId: number,
  change: { pendingSealed: string; sealed: string; step: number; at: string },
): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({
      totp_secret: change.sealed,
      totp_enabled_at: change.at,
      totp_pending_secret: null,
      totp_last_step: change.step,
    })
    .where('id', '=', userId)
    .where('totp_secret', 'is', null)
    .where('totp_pending_secret', '=', change.pendingSealed)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Turns two-factor sign-in off: secrets, recovery codes and pending sign-ins go. */
export async function disableTotp(db: Executor, userId: number): Promise<void> {
  await db
    .updateTable('users')
    .set({
      totp_secret: null,
      totp_enabled_at: null,
      totp_pending_secret: null,
      totp_last_step: null,
    })
    .where('id', '=', userId)
    .execute();
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await deletePendingLoginsOf(db, userId);
}

/**
 * Records `step` as the last TOTP step used, only when it is later than the one recorded: a
 * code cannot be used twice, not even by two requests at once.
 */
export async function claimTotpStep(db: Executor, userId: number, step: number): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('id', '=', userId)
    .where('totp_secret', 'is not', null)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Replaces the user's recovery codes with these hashes. */
export async function replaceRecoveryCodes(
  db: Executor,
  userId: number,
  hashes: string[],
  at: string,
): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await db
    .insertInto('recovery_codes')
    .values(hashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: at })))
    .execute();
}

/** Marks an unused recovery code used; false when it is not one of the user's unused codes. */
export async function useRecoveryCode(
  db: Executor,
  userId: number,
  codeHash: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: at })
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Recovery codes of one account not used yet. */
export async function countUnusedRecoveryCodes(db: Executor, userId: number): Promise<number> {
  return countRows(
    db.selectFrom('recovery_codes').where('user_id', '=', userId).where('used_at', 'is', null),
  );
}

export interface NewPendingLogin {
  idHash: string;
  userId: number;
  rememberMe: boolean;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
  expiresAt: string;
}

/** Stores a password accepted for a two-factor account; expired ones are swept meanwhile. */
export async function insertPendingLogin(db: Executor, pending: NewPendingLogin): Promise<void> {
  await db.deleteFrom('pending_logins').where('expires_at', '<=', pending.createdAt).execute();
  await db
    .insertInto('pending_logins')
    .values({
      id: pending.idHash,
      user_id: pending.userId,
      remember_me: pending.rememberMe,
      ip: pending.ip,
      user_agent: pending.userAgent,
      created_at: pending.createdAt,
      expires_at: pending.expiresAt,
    })
    .execute();
}

export function findLivePendingLogin(
  db: Executor,
  idHash: string,
  now: string,
): Promise<PendingLoginRow | undefined> {
  return db
    .selectFrom('pending_logins')
    .selectAll()
    .where('id', '=', idHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Counts one more wrong code against a pending sign-in; answers the new count. */
export async function addPendingLoginAttempt(db: Executor, idHash: string): Promise<number> {
  const row = await db
    .updateTable('pending_logins')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', idHash)
    .returning('attempts')
    .executeTakeFirst();
  return row?.attempts ?? Number.MAX_SAFE_INTEGER;
}

/** Deletes a pending sign-in; false when it was already gone (used or dropped meanwhile). */
export async function deletePendingLogin(db: Executor, idHash: string): Promise<boolean> {
  const result = await db.deleteFrom('pending_logins').where('id', '=', idHash).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deletePendingLoginsOf(db: Executor, userId: number): Promise<void> {
  await db.deleteFrom('pending_logins').where('user_id', '=', userId).execute();
}
