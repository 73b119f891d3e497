import { LOGIN_FAILURE_WINDOW_MS, LOGIN_MAX_FAILURES } from '@perch/shared';
import type { Db } from '../../db/index.js';
import { tooManyRequests } from '../../lib/errors.js';
import { recordAuthEvent, type ClientInfo } from './auth-events.js';
import { insertLoginAttempt, recentFailures } from './login-attempts.repository.js';

/**
 * Brute-force protection for anything that proves who somebody is (password, two-factor code):
 * after LOGIN_MAX_FAILURES failures for one login name from one IP within the window, answers 429
 * with `message` until the oldest failure leaves the window, and records 'login_locked'.
 */
export async function assertNotLocked(
  db: Db,
  login: string,
  client: ClientInfo,
  lock: { userId: number | null; message: string },
): Promise<void> {
  const now = Date.now();
  const since = new Date(now - LOGIN_FAILURE_WINDOW_MS).toISOString();
  const failures = await recentFailures(db.db, login, client.ip, since);
  if (failures.count < LOGIN_MAX_FAILURES) return;
  await recordAuthEvent(db, client, {
    type: 'login_locked',
    severity: 'high',
    description: `Blocked after ${failures.count} failed attempts in ${LOGIN_FAILURE_WINDOW_MS / 60_000} minutes.`,
    userId: lock.userId,
    metadata: { login },
  });
  const liftsAt = Date.parse(failures.oldest ?? since) + LOGIN_FAILURE_WINDOW_MS;
  throw tooManyRequests(lock.message, (liftsAt - now) / 1000);
}

/** Counts one attempt (right or wrong) for the login name and IP. */
export async function countAttempt(
  { db }: Db,
  login: string,
  userId: number | null,
  client: ClientInfo,
  success: boolean,
): Promise<void> {
  await insertLoginAttempt(db, {
    login,
    userId,
    ip: client.ip,
    userAgent: client.userAgent,
    success,
    createdAt: new Date().toISOString(),
  });
}
