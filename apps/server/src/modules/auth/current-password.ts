import { SECURITY_MESSAGES } from '@perch/shared';
import type { Db } from '../../db/index.js';
import { AppError } from '../../lib/errors.js';
import type { UserRow } from '../users/users.repository.js';
import type { ClientInfo } from './auth-events.js';
import { admitAttempt } from './login-throttle.js';
import { verifyPassword } from './passwords.js';

/**
 * The current password that an account details change (password, email) asks for. A wrong one
 * counts as a failed sign-in of the account (login-throttle.ts), so a stolen session cannot guess
 * it here: after 5 the account answers 429 until the window passes.
 */
export async function confirmCurrentPassword(
  db: Db,
  user: UserRow,
  currentPassword: string,
  client: ClientInfo,
): Promise<void> {
  const attempt = await admitAttempt(
    db,
    { userId: user.id, login: user.username },
    client,
    SECURITY_MESSAGES.tooManyAttempts,
  );
  if (!(await attempt.guard(verifyPassword(user.password_hash, currentPassword)))) {
    await attempt.failed();
    throw new AppError(400, 'CURRENT_PASSWORD_WRONG', SECURITY_MESSAGES.currentPasswordWrong);
  }
  await attempt.release();
}
