import type { Selectable, SelectQueryBuilder } from 'kysely';
import type { Database, Executor } from '../../db/index.js';
import { countRows } from '../../db/queries.js';
import type { LoginAttemptsTable } from '../../db/types.js';

export type LoginAttemptRow = Selectable<LoginAttemptsTable>;

// ---------------------------------------------------------------- sign-in attempts

/** The sign-in attempts on one account. */
const attemptsOf = (db: Executor, userId: number) =>
  db.selectFrom('login_attempts').where('user_id', '=', userId);

/** Newest first; of two attempts as old, the later one. */
const newestFirst = (query: SelectQueryBuilder<Database, 'login_attempts', LoginAttemptRow>) =>
  query.orderBy('created_at', 'desc').orderBy('id', 'desc');

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
  return newestFirst(attemptsOf(db, userId).selectAll()).limit(limit).execute();
}

/** Failed sign-ins on one account since `since`: how many, and the newest. */
export async function recentFailedLogins(
  db: Executor,
  userId: number,
  since: string,
): Promise<{ count: number; newest: LoginAttemptRow | undefined }> {
  const failed = () =>
    attemptsOf(db, userId).where('success', '=', false).where('created_at', '>=', since);
  const count = await countRows(failed());
  const newest = await newestFirst(failed().selectAll()).executeTakeFirst();
  return { count, newest };
}

/** One account's newest successful sign-in. */
export function newestSuccessfulLogin(
  db: Executor,
  userId: number,
): Promise<LoginAttemptRow | undefined> {
  return newestFirst(
    attemptsOf(db, userId).selectAll().where('success', '=', true),
  ).executeTakeFirst();
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
  let query = attemptsOf(db, userId)
    .select(['ip', 'user_agent'])
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
