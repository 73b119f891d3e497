import { randomBytes } from 'node:crypto';
import { recordAuthEvent } from '../modules/auth/auth-events.js';
import { revokeUserSessions } from '../modules/auth/sessions.repository.js';
import { hashPassword } from '../modules/auth/passwords.js';
import { deletePendingLoginsOf, disableTotp } from '../modules/auth/two-factor.repository.js';
import {
  countSuperAdmins,
  findUserByLogin,
  listUsers,
  setPasswordHash,
  setRoleFlags,
} from '../modules/users/users.repository.js';
import { roleFlags, roleOf } from '../modules/users/users.service.js';
import { CommandError, UsageError } from './cli-errors.js';
import { parseRole, printTable, type CliCommand, type CommandGroup } from './cli-command.js';
import type { Db } from '../db/index.js';

/** `user list`: every user with their role. */
async function listUsersCommand({ db }: CliCommand): Promise<void> {
  printTable(await listUsers(db.db), (r) => ({
    id: r.id,
    username: r.username,
    email: r.email,
    role: roleOf(r),
    created: r.created_at,
    last_login: r.last_login_at,
  }));
}

/** The user `username` names; `usage` is the error when no name was given. */
async function namedUser(db: Db, username: string | undefined, usage: string) {
  if (!username) throw new UsageError(usage);
  const user = await findUserByLogin(db.db, username);
  if (!user) throw new CommandError(`no user named ${username}`);
  return user;
}

/** Records, in the user's security log, a change an operator made with the CLI. */
function recordOperatorChange(
  db: Db,
  userId: number,
  type: 'password_changed' | 'two_factor_disabled',
  description: string,
): Promise<void> {
  return recordAuthEvent(db, null, {
    type,
    severity: 'high',
    description,
    userId,
    metadata: { source: 'cli' },
  });
}

/** `user set-role <username> <role>`: never demotes the last super admin. */
async function setUserRoleCommand({ db, positionals, userChanged }: CliCommand): Promise<void> {
  const [username, roleName] = positionals;
  if (!username) throw new UsageError('user set-role needs a username and a role');
  const role = parseRole(roleName);
  const user = await namedUser(db, username, 'user set-role needs a username and a role');
  if (user.is_super_admin && role !== 'superadmin' && (await countSuperAdmins(db.db)) <= 1) {
    throw new CommandError(`${user.username} is the only super admin; promote someone else first`);
  }
  await setRoleFlags(db.db, user.id, roleFlags(role));
  // A privilege change ends the user's sessions: they sign in again under the new role.
  if (roleOf(user) !== role) {
    await revokeUserSessions(db.db, user.id, new Date().toISOString());
  }
  await userChanged(user.id);
  console.log(`${user.username} is now ${role}`);
}

/** `user reset-password <username>`: a new random password, and every session signed out. */
async function resetUserPasswordCommand({
  db,
  positionals,
  userChanged,
}: CliCommand): Promise<void> {
  const user = await namedUser(db, positionals[0], 'user reset-password needs a username');
  const password = randomBytes(12).toString('base64url');
  const passwordHash = await hashPassword(password);
  await db.db.transaction().execute(async (trx) => {
    await setPasswordHash(trx, user.id, passwordHash);
    await deletePendingLoginsOf(trx, user.id);
    await revokeUserSessions(trx, user.id, new Date().toISOString());
  });
  await recordOperatorChange(
    db,
    user.id,
    'password_changed',
    'Password reset by an operator with the CLI; every session was signed out.',
  );
  await userChanged(user.id);
  console.log(`New password for ${user.username} (all their sessions were signed out):`);
  console.log(password);
}

/** `user disable-2fa <username>`: for a user who lost the authenticator and the recovery codes. */
async function disableUserTwoFactorCommand({
  db,
  positionals,
  userChanged,
}: CliCommand): Promise<void> {
  const user = await namedUser(db, positionals[0], 'user disable-2fa needs a username');
  if (!user.totp_secret) throw new CommandError(`${user.username} has no two-factor sign-in`);
  await db.db.transaction().execute((trx) => disableTotp(trx, user.id));
  await userChanged(user.id);
  await recordOperatorChange(
    db,
    user.id,
    'two_factor_disabled',
    'Two-factor sign-in was turned off by an operator with the CLI.',
  );
  console.log(`Two-factor sign-in is off for ${user.username}; the password alone signs in.`);
}

/** The `user` commands. */
export const userCommands: CommandGroup = {
  list: listUsersCommand,
  'set-role': setUserRoleCommand,
  'reset-password': resetUserPasswordCommand,
  'disable-2fa': disableUserTwoFactorCommand,
};
