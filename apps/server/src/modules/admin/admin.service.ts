import {
  ADMIN_MESSAGES,
  type AdminHandle,
  type AdminCreatedInvitation,
  type AdminInvitation,
  type AdminUser,
  type AdminUserHandle,
  type Role,
} from '@perch/shared';
import type { Db } from '../../db/index.js';
import { conflict, forbidden, notFound } from '../../lib/errors.js';
import type { SessionInvalidator } from '../auth/session-cache.js';
import { closeUserSessions } from '../auth/sessions.service.js';
import {
  findLinkedHandle,
  listLinkedHandles,
  type LinkedHandleRow,
} from '../handles/handles.repository.js';
import { removeHandle } from '../handles/handles.service.js';
import {
  findInvitationWithCreator,
  listInvitationsWithCreator,
  revokeInvitation,
  type InvitationRow,
  type InvitationWithCreatorRow,
} from '../invitations/invitations.repository.js';
import { createInvitation } from '../invitations/invitations.service.js';
import {
  findUserById,
  lockSuperAdminIds,
  setRoleFlags,
  type UserRow,
} from '../users/users.repository.js';
import { roleFlags, roleOf } from '../users/users.service.js';
import {
  findAdminUser,
  listAdminUsers,
  listFollowedHandles,
  type AdminUserRow,
  type FollowedHandleRow,
} from './admin.repository.js';

const userNotFound = () => notFound(ADMIN_MESSAGES.userNotFound, 'USER_NOT_FOUND');
const invitationNotFound = () =>
  notFound(ADMIN_MESSAGES.invitationNotFound, 'INVITATION_NOT_FOUND');
const invitationRoleForbidden = () =>
  forbidden(ADMIN_MESSAGES.invitationRoleForbidden, 'INVITATION_ROLE_FORBIDDEN');

// ---------------------------------------------------------------- users and their handles

export function toAdminUser(row: AdminUserRow): AdminUser {
  const role = roleOf(row);
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    created_at: row.created_at,
    role,
    isAdmin: role !== 'user',
    isSuperAdmin: role === 'superadmin',
    last_login_at: row.last_login_at,
    last_active_at: row.last_active_at,
    handles_count: Number(row.handles_count ?? 0),
  };
}

export async function listUsersForAdmin(db: Db): Promise<AdminUser[]> {
  return (await listAdminUsers(db.db)).map(toAdminUser);
}

async function existingUser(db: Db, id: number): Promise<UserRow> {
  const user = await findUserById(db.db, id);
  if (!user) throw userNotFound();
  return user;
}

/** A handle as one user follows it, for the admin's per-user list. */
export function toAdminUserHandle(row: LinkedHandleRow): AdminUserHandle {
  return {
    id: row.id,
    handle: row.username,
    created_at: row.created_at,
    added_at: row.added_at,
    backfill_days: row.backfill_days,
    backfill_status: row.backfill_status,
  };
}

/** The handles a user follows, oldest link first; 404 for an unknown user. */
export async function userHandlesForAdmin(db: Db, userId: number): Promise<AdminUserHandle[]> {
  const user = await existingUser(db, userId);
  return (await listLinkedHandles(db.db, user.id)).map(toAdminUserHandle);
}

/**
 * Takes a handle off one user's list, exactly as if they had removed it themselves: other
 * followers keep it, and once nobody follows it collection stops while its data stays.
 * Returns the handle as that user followed it.
 */
export async function removeHandleFromUser(
  db: Db,
  userId: number,
  handleId: number,
): Promise<LinkedHandleRow> {
  const user = await existingUser(db, userId);
  const link = await findLinkedHandle(db.db, user.id, handleId);
  if (!link) throw notFound(ADMIN_MESSAGES.userDoesNotFollow, 'NOT_FOLLOWING');
  await removeHandle(db, user, handleId);
  return link;
}

// ---------------------------------------------------------------- handles of the system

export function toAdminHandle(row: FollowedHandleRow): AdminHandle {
  return {
    id: row.id,
    handle: row.username,
    created_at: row.created_at,
    followers_count: row.followers_count,
    status: row.backfill_status,
    backfill_progress: row.backfill_progress,
    tweets: row.total_tweets_collected,
    users_count: Number(row.users_count),
    stopped: Boolean(row.paused),
    last_error: row.last_error,
  };
}

/** Every handle somebody follows, by id. */
export async function listSystemHandles(db: Db): Promise<AdminHandle[]> {
  return (await listFollowedHandles(db.db)).map(toAdminHandle);
}

// ---------------------------------------------------------------- roles

export interface RoleChange {
  user: AdminUser;
  previous: Role;
}

/**
 * Gives a user a role. The super admins are locked and counted in the same transaction as the
 * change, so no pair of concurrent changes can leave the system without one (409). A privilege
 * change ends the user's sessions (on every node's cache too): whoever holds one signs in again
 * under the new role. `keepSessionIdHash` is the session of a super admin changing their own
 * role, which the route gives a new id instead.
 */
export async function changeRole(
  db: Db,
  userId: number,
  role: Role,
  sessions?: SessionInvalidator | null,
  keepSessionIdHash?: string,
): Promise<RoleChange> {
  const previous = await db.db.transaction().execute(async (trx) => {
    const superAdminIds = await lockSuperAdminIds(trx, db.dialect);
    const user = await findUserById(trx, userId);
    if (!user) throw userNotFound();
    const current = roleOf(user);
    const othersRemain = superAdminIds.some((id) => id !== user.id);
    if (current === 'superadmin' && role !== 'superadmin' && !othersRemain) {
      throw conflict(ADMIN_MESSAGES.lastSuperAdmin, 'LAST_SUPER_ADMIN');
    }
    if (current !== role) await setRoleFlags(trx, user.id, roleFlags(role));
    return current;
  });
  if (previous !== role) await closeUserSessions(db, userId, sessions, keepSessionIdHash);
  const user = await findAdminUser(db.db, userId);
  if (!user) throw userNotFound();
  return { user: toAdminUser(user), previous };
}

// ---------------------------------------------------------------- invitations

/** Admins manage invitations for plain users; only a super admin those for admin roles. */
export function mayManageInvitation(actor: UserRow, role: Role): boolean {
  return Boolean(actor.is_super_admin) || role === 'user';
}

export function invitationState(row: InvitationRow, now: string): AdminInvitation['state'] {
  if (row.revoked_at !== null) return 'revoked';
  if (row.uses >= row.max_uses) return 'used';
  if (row.expires_at !== null && row.expires_at <= now) return 'expired';
  return 'active';
}

export function toAdminInvitation(row: InvitationWithCreatorRow, now: string): AdminInvitation {
  return {
    id: row.id,
    role: row.role,
    max_uses: row.max_uses,
    uses: row.uses,
    expires_at: row.expires_at,
    created_at: row.created_at,
    created_by: row.creator_username,
    revoked_at: row.revoked_at,
    state: invitationState(row, now),
  };
}

/**
 * The invitations `actor` may see, newest first: a super admin sees every one, an admin only
 * those for plain users (so never the first-start super-admin invitation).
 */
export async function listInvitationsFor(db: Db, actor: UserRow): Promise<AdminInvitation[]> {
  const rows = await listInvitationsWithCreator(db.db, actor.is_super_admin ? null : 'user');
  const now = new Date().toISOString();
  return rows.map((row) => toAdminInvitation(row, now));
}

export interface InvitationRequest {
  role: Role;
  max_uses: number;
  /** Null never expires. */
  expires_in_days: number | null;
}

async function invitationWithCreator(db: Db, id: number): Promise<AdminInvitation> {
  const row = await findInvitationWithCreator(db.db, id);
  if (!row) throw invitationNotFound();
  return toAdminInvitation(row, new Date().toISOString());
}

/**
 * Makes an invitation on behalf of `actor` (403 when an admin asks for an admin role), and
 * answers it with its code: the only time the code is shown, as only its hash is kept.
 */
export async function createInvitationAs(
  db: Db,
  actor: UserRow,
  request: InvitationRequest,
): Promise<AdminCreatedInvitation> {
  if (!mayManageInvitation(actor, request.role)) throw invitationRoleForbidden();
  const created = await createInvitation(db, {
    role: request.role,
    maxUses: request.max_uses,
    expiresInDays: request.expires_in_days,
    createdBy: actor.id,
  });
  return { ...(await invitationWithCreator(db, created.id)), code: created.code };
}

export interface Revocation {
  invitation: AdminInvitation;
  /** False when it had been revoked before (the first revocation time stays). */
  revokedNow: boolean;
}

/** Revokes an invitation so nobody can register with it any more; revoking again is a no-op. */
export async function revokeInvitationAs(db: Db, actor: UserRow, id: number): Promise<Revocation> {
  const row = await findInvitationWithCreator(db.db, id);
  if (!row) throw invitationNotFound();
  if (!mayManageInvitation(actor, row.role)) throw invitationRoleForbidden();
  const revokedNow = await revokeInvitation(db.db, id, new Date().toISOString());
  return { invitation: await invitationWithCreator(db, id), revokedNow };
}
