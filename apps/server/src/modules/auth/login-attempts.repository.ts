import type { Executor } from '../../db/index.js';

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
 * Failed attempts for (login, ip) since `since`, counting only those after the last success,
 * with the time of the oldest one counted (when the lock lifts).
 */
export async function recentFailures(
  db: Executor,
  login: string,
  ip: string,
  since: string,
): Promise<{ count: number; oldest: string | null }> {
  const lowered = login.toLowerCase();
  const lastSuccess = await db
    .selectFrom('login_attempts')
    .select((eb) => eb.fn.max('created_at').as('at'))
    .where('login', '=', lowered)
    .where('ip', '=', ip)
    .where('success', '=', true)
    .where('created_at', '>', since)
    .executeTakeFirst();
  const from = lastSuccess?.at && lastSuccess.at > since ? lastSuccess.at : since;
  const row = await db
    .selectFrom('login_attempts')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('created_at').as('oldest')])
    .where('login', '=', lowered)
    .where('ip', '=', ip)
    .where('success', '=', false)
    .where('created_at', '>', from)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: row.oldest ?? null };
}
