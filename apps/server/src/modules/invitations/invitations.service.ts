import type { Role } from '@perch/shared';
import type { Db } from '../../db/index.js';
import { invitationCode, isoAfter, nowIso } from '../../lib/tokens.js';
import { countUsers } from '../users/users.repository.js';
import {
  findOpenBootstrapInvitation,
  insertInvitation,
  lockBootstrap,
  type InvitationRow,
} from './invitations.repository.js';

export interface CreateInvitationInput {
  role: Role;
  maxUses: number;
  expiresInDays: number | null;
  createdBy: number | null;
}

export function createInvitation({ db }: Db, input: CreateInvitationInput): Promise<InvitationRow> {
  const now = Date.now();
  return insertInvitation(db, {
    code: invitationCode(),
    role: input.role,
    maxUses: input.maxUses,
    expiresAt:
      input.expiresInDays === null ? null : isoAfter(input.expiresInDays * 86_400_000, now),
    createdBy: input.createdBy,
    createdAt: new Date(now).toISOString(),
  });
}

/**
 * While nobody has registered yet, makes sure one single-use super-admin invitation exists and
 * returns it, so the first start can print it. Returns null once any user exists.
 */
export async function ensureBootstrapInvitation(database: Db): Promise<InvitationRow | null> {
  return database.db.transaction().execute(async (trx) => {
    await lockBootstrap(trx, database.dialect);
    if ((await countUsers(trx)) > 0) return null;
    const open = await findOpenBootstrapInvitation(trx, nowIso());
    if (open) return open;
    return createInvitation(
      { ...database, db: trx },
      { role: 'superadmin', maxUses: 1, expiresInDays: null, createdBy: null },
    );
  });
}
