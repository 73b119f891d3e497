import type { Selectable } from 'kysely';
import type { Executor } from '../../db/index.js';
import type { LoginAttemptsTable } from '../../db/types.js';

export type LoginAttemptRow = Selectable<LoginAttemptsTable>;

// ---------------------------------------------------------------- sign-in attempts

/** Failed and successful sign-ins on one account since `since`. */
export async function countLoginAttempts(
  db: Executor,
  userId: number,
  since: string,
): Promise<{ failed: number; succeeded: number }> {
  const rows = await db
    .selectFrom('login_attempts')
    .select((eb) => ['success', eb.fn.countAll<number>().as('count')])
    .where('user_id', '=', userId)
    .where('created_at', '>=', since)
    .groupBy('success')
    .execute();
  const countOf = (success: boolean) =>
    rows
      .filter((row) => Boolean(row.success) === success)
      .reduce((sum, row) => sum + Number(row.count), 0);
  return { failed: countOf(false), succeeded: countOf(true) };
}

/** One account's sign-in attempts, newest first. */
export function listLoginAttempts(
  db: Executor,
  userId: number,
  limit: number,
): Promise<LoginAttemptRow[]> {
  return db
    .selectFrom('login_attempts')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Failed sign-ins on one account since `since`: how many, and the newest. */
export async function recentFailedLogins(
  db: Executor,
  userId: number,
  since: string,
): Promise<{ count: number; newest: LoginAttemptRow | undefined }> {
  const failed = () =>
    db
      .selectFrom('login_attempts')
      .where('user_id', '=', userId)
      .where('success', '=', false)
      .where('created_at', '>=', since);
  const row = await failed()
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  const newest = await failed()
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return { count: Number(row.count), newest };
}

/** One account's newest successful sign-in. */
export function newestSuccessfulLogin(
  db: Executor,
  userId: number,
): Promise<LoginAttemptRow | undefined> {
  return db
    .selectFrom('login_attempts')
    .selectAll()
    .where('user_id', '=', userId)
    .where('success', '=', true)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/**
 * The successful sign-ins on one account before `attempt` (older, or as old with a lower id),
 * optionally only those from one IP.
 */
export function successfulLoginsBefore(
  db: Executor,
  userId: number,
  attempt: Pick<LoginAttemptRow, 'id' | 'created_at'>,
  options: { ip?: string; limit: number },
): Promise<Pick<LoginAttemptRow, 'ip' | 'user_agent'>[]> {
  let query = db
    .selectFrom('login_attempts')
    .select(['ip', 'user_agent'])
    .where('user_id', '=', userId)
    .where('success', '=', true)
    .where((eb) =>
      eb.or([
        eb('created_at', '<', attempt.created_at),
        eb.and([eb('created_at', '=', attempt.created_at), eb('id', '<', attempt.id)]),
      ]),
    );
  if (options.ip !== undefined) query = query.where('ip', '=', options.ip);
  return query.orderBy('created_at', 'desc').limit(options.limit).execute();
}

// ---------------------------------------------------------------- two-factor state and settings

export interface SecurityAccountRow {
  totp_enabled_at: string | null;
  security_settings: string;
}

/** What the security settings of one account are made of. */
export function findSecurityAccount(
  db: Executor,
  userId: number,
): Promise<SecurityAccountRow | undefined> {
  return db
    .selectFrom('users')
    .select(['totp_enabled_at', 'security_settings'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

export async function saveSecuritySettings(
  db: Executor,
  userId: number,
  settingsJson: string,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ security_settings: settingsJson })
    .where('id', '=', userId)
    .execute();
}
