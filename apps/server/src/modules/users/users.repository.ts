import { sql, type RawBuilder, type Selectable, type Transaction } from 'kysely';
import type { Database, Dialect, Executor } from '../../db/index.js';
import { countRows } from '../../db/queries.js';
import type { UsersTable } from '../../db/types.js';

export type UserRow = Selectable<UsersTable>;

export function findUserById(db: Executor, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Finds a user by username or email, case-insensitively. */
export function findUserByLogin(db: Executor, login: string): Promise<UserRow | undefined> {
  const lowered = login.toLowerCase();
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) =>
      eb.or([eb(sql`lower(username)`, '=', lowered), eb(sql`lower(email)`, '=', lowered)]),
    )
    .executeTakeFirst();
}

export function usernameExists(db: Executor, username: string): Promise<boolean> {
  return someUserHas(db, sql`lower(username)`, username);
}

export function emailExists(db: Executor, email: string): Promise<boolean> {
  return someUserHas(db, sql`lower(email)`, email);
}

/** Whether a user's `lowered` column (lower(username), lower(email)) is `value`, in any case. */
async function someUserHas(db: Executor, lowered: RawBuilder<unknown>, value: string) {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where(lowered, '=', value.toLowerCase())
    .executeTakeFirst();
  return row !== undefined;
}

export async function countUsers(db: Executor): Promise<number> {
  return countRows(db.selectFrom('users'));
}

export interface NewUser {
  username: string;
  email: string;
  passwordHash: string;
  isAdmin: boolean;
  isSuperAdmin: boolean;
  createdAt: string;
}

export function insertUser(db: Executor, user: NewUser): Promise<UserRow> {
  return db
    .insertInto('users')
    .values({
      username: user.username,
      email: user.email,
      password_hash: user.passwordHash,
      is_admin: user.isAdmin,
      is_super_admin: user.isSuperAdmin,
      created_at: user.createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function setLastLogin(db: Executor, id: number, at: string): Promise<void> {
  await db.updateTable('users').set({ last_login_at: at }).where('id', '=', id).execute();
}

export async function setRoleFlags(
  db: Executor,
  id: number,
  flags: { isAdmin: boolean; isSuperAdmin: boolean },
): Promise<void> {
  await db
    .updateTable('users')
    .set({ is_admin: flags.isAdmin, is_super_admin: flags.isSuperAdmin })
    .where('id', '=', id)
    .execute();
}

export async function setPasswordHash(db: Executor, id: number, hash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: hash }).where('id', '=', id).execute();
}

/**
 * Replaces a user's password hash with a new hash of the same password, unless the hash changed
 * meanwhile (a password change that came first wins).
 */
export async function replacePasswordHash(
  db: Executor,
  id: number,
  from: string,
  to: string,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: to })
    .where('id', '=', id)
    .where('password_hash', '=', from)
    .execute();
}

export async function setEmail(db: Executor, id: number, email: string): Promise<void> {
  await db.updateTable('users').set({ email }).where('id', '=', id).execute();
}

export function listUsers(db: Executor): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('id').execute();
}

export async function countSuperAdmins(db: Executor): Promise<number> {
  return countRows(db.selectFrom('users').where('is_super_admin', '=', true));
}

/**
 * The ids of every super admin, locked until the transaction ends on Postgres, so two role
 * changes cannot each count the other's super admin and together remove the last one. On SQLite
 * the one connection runs one transaction at a time, which gives the same guarantee.
 */
export async function lockSuperAdminIds(
  trx: Transaction<Database>,
  dialect: Dialect,
): Promise<number[]> {
  let query = trx.selectFrom('users').select('id').where('is_super_admin', '=', true);
  if (dialect === 'postgres') query = query.forUpdate();
  const rows = await query.orderBy('id').execute();
  return rows.map((row) => row.id);
}
