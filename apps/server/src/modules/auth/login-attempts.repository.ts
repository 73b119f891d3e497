import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import type { Executor } from '../../db/index.js';
import type { Database } from '../../db/types.js';

export interface NewLoginAttempt {
  login: string;
  userId: number | null;
  ip: string;
  userAgent: string | null;
  success: boolean;
  createdAt: string;
}

export async function insertLoginAttempt(db: Executor, attempt: NewLoginAttempt): Promise<void> {
  await db
    .insertInto('login_attempts')
    .values({
      login: attempt.login.toLowerCase(),
      user_id: attempt.userId,
      ip: attempt.ip,
      user_agent: attempt.userAgent,
      success: attempt.success,
      created_at: attempt.createdAt,
    })
    .execute();
}

/**
 * Whose attempts are counted together: an account, by id, whichever of its names was typed; or,
 * for a name no account has, that name (lower-cased).
 */
export interface AttemptSubject {
  userId: number | null;
  login: string;
}

function ofSubject(subject: AttemptSubject) {
  return (eb: ExpressionBuilder<Database, 'login_attempts'>) =>
    subject.userId !== null
      ? eb('user_id', '=', subject.userId)
      : eb.and([eb('user_id', 'is', null), eb('login', '=', subject.login.toLowerCase())]);
}

/**
 * Failed attempts of the subject since `since` (from `ip` only, when given), counting only those
 * after its last success (from that IP), with the time of the oldest one counted.
 */
export async function recentFailures(
  db: Executor,
  subject: AttemptSubject,
  since: string,
  ip?: string,
): Promise<{ count: number; oldest: string | null }> {
  let attempts = db
    .selectFrom('login_attempts')
    .where(ofSubject(subject))
    .where('created_at', '>', since);
  if (ip !== undefined) attempts = attempts.where('ip', '=', ip);
  const lastSuccess = await attempts
    .select((eb) => eb.fn.max('created_at').as('at'))
    .where('success', '=', true)
    .executeTakeFirst();
  const from = lastSuccess?.at && lastSuccess.at > since ? lastSuccess.at : since;
  return failuresAfter(attempts, from);
}

/** Failed attempts from one IP since `since`, whatever names they were for. */
export async function failuresFromIp(
  db: Executor,
  ip: string,
  since: string,
): Promise<{ count: number; oldest: string | null }> {
  return failuresAfter(db.selectFrom('login_attempts').where('ip', '=', ip), since);
}

/** The failures among `attempts` made after `after`: how many, and when the oldest was. */
async function failuresAfter(
  attempts: SelectQueryBuilder<Database, 'login_attempts', object>,
  after: string,
): Promise<{ count: number; oldest: string | null }> {
  const row = await attempts
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('created_at').as('oldest')])
    .where('success', '=', false)
    .where('created_at', '>', after)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: row.oldest ?? null };
}

/** True when the account signed in successfully from `ip` since `since`. */
export async function signedInFrom(
  db: Executor,
  userId: number,
  ip: string,
  since: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('login_attempts')
    .select('id')
    .where('user_id', '=', userId)
    .where('ip', '=', ip)
    .where('success', '=', true)
    .where('created_at', '>', since)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
