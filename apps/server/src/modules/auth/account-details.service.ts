import { MESSAGES, SECURITY_MESSAGES } from '@perch/shared';
import type { Db } from '../../db/index.js';
import { AppError, conflict, isUniqueViolation } from '../../lib/errors.js';
import { emailExists, setEmail } from '../users/users.repository.js';
import type { AuthContext } from './auth-context.js';
import { recordAuthEvent, type ClientInfo } from './auth-events.js';
import { confirmCurrentPassword } from './current-password.js';
import type { SessionInvalidator } from './session-cache.js';

const emailTaken = () => conflict(MESSAGES.registerEmailTaken, 'EMAIL_TAKEN');

/**
 * Changes the signed-in user's email address: the current password must be right (wrong ones
 * count as failed sign-ins), and the address must be free in any case, as at registration. The
 * address signs in like the username, so the check comes after the password: a session alone
 * cannot probe which addresses have accounts. Other sessions stay (the password still holds);
 * every cached session of the user is dropped, since its cached row holds the old address.
 */
export async function changeEmail(
  db: Db,
  auth: AuthContext,
  input: { currentPassword: string; email: string },
  client: ClientInfo,
  sessions?: SessionInvalidator | null,
): Promise<{ email: string }> {
  const { user } = auth;
  const { email } = input;
  if (email.toLowerCase() === user.email.toLowerCase()) {
    throw new AppError(400, 'EMAIL_UNCHANGED', SECURITY_MESSAGES.emailUnchanged);
  }
  await confirmCurrentPassword(db, user, input.currentPassword, client);
  if (await emailExists(db.db, email)) throw emailTaken();
  try {
    await setEmail(db.db, user.id, email);
  } catch (error) {
    // Lost a race with a registration or another change to the same address.
    if (isUniqueViolation(error)) throw emailTaken();
    throw error;
  }
  await sessions?.invalidateUser(user.id);
  // Neither address goes into the log: the account's owner already knows both.
  await recordAuthEvent(db, client, {
    type: 'email_changed',
    severity: 'high',
    description: 'Email address changed.',
    userId: user.id,
  });
  return { email };
}
