import type { Role, User } from '@perch/shared';
import type { UserRow } from './users.repository.js';

/** Maps a users row to the API's user object (never the password hash). */
export function toUser(row: UserRow): User {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    isAdmin: Boolean(row.is_admin),
    isSuperAdmin: Boolean(row.is_super_admin),
    profile: parseProfile(row.profile),
    createdAt: row.created_at,
    lastLoginAt: row.last_login_at,
  };
}

function parseProfile(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The role flags a role grants: a super admin is an admin too. */
export function roleFlags(role: Role): { isAdmin: boolean; isSuperAdmin: boolean } {
  return { isAdmin: role !== 'user', isSuperAdmin: role === 'superadmin' };
}

export function roleOf(row: Pick<UserRow, 'is_admin' | 'is_super_admin'>): Role {
  if (row.is_super_admin) return 'superadmin';
  return row.is_admin ? 'admin' : 'user';
}
