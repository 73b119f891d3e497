import type { Role } from '@perch/shared';
import type { Db } from '../../db/index.js';
import type { TokenCipher } from '../../lib/token-cipher.js';
import { invitationCode, isoAfter, nowIso } from '../../lib/tokens.js';
import { countUsers } from '../users/users.repository.js';
import {
  findOpenBootstrapInvitation,
  forgetSealedCodes,
  insertInvitation,
  invitationCodeHash,
  lockBootstrap,
  revokeInvitation,
  type InvitationRow,
} from './invitations.repository.js';

export interface CreateInvitationInput {
  role: Role;
  maxUses: number;
  expiresInDays: number | null;
  createdBy: number | null;
}

/** A new invitation with its code: the only time the code is known, as only its hash is kept. */
export interface CreatedInvitation extends InvitationRow {
  code: string;
}

/** Where a sealed first-start code is kept: its cipher context (see lib/token-cipher.ts). */
const SEALED_CODE_CONTEXT = 'invitations.code_sealed';

/**
 * Makes an invitation and answers it with its code, which is never stored: the table keeps its
 * hash, and `seal` (the first start) a copy only the secret key opens.
 */
export async function createInvitation(
  db: Db,
  input: CreateInvitationInput,
  seal?: (code: string) => string,
): Promise<CreatedInvitation> {
  const now = Date.now();
  const code = invitationCode();
  const row = await insertInvitation(db.db, {
    codeHash: invitationCodeHash(code),
    codeSealed: seal ? seal(code) : null,
    role: input.role,
    maxUses: input.maxUses,
    expiresAt:
      input.expiresInDays === null ? null : isoAfter(input.expiresInDays * 86_400_000, now),
    createdBy: input.createdBy,
    createdAt: new Date(now).toISOString(),
  });
  return { ...row, code };
}

/** The sealed code of a first-start invitation, or null when it has none this key opens. */
function unsealedCode(row: InvitationRow, cipher: TokenCipher): string | null {
  if (!row.code_sealed) return null;
  try {
    return cipher.decrypt(row.code_sealed, SEALED_CODE_CONTEXT);
  } catch {
    return null;
  }
}

/**
 * While nobody has registered yet, makes sure one single-use super-admin invitation exists and
 * answers it with its code, so every start can print the same one. Its code is kept sealed with
 * the secret key; an open one whose code this key cannot open (made before codes were hashed, or
 * under another SECRET_KEY) is revoked and replaced. Returns null once any user exists, and the
 * sealed copies are dropped then.
 */
export async function ensureBootstrapInvitation(
  db: Db,
  cipher: TokenCipher,
): Promise<CreatedInvitation | null> {
  return db.db.transaction().execute(async (trx) => {
    await lockBootstrap(trx, db.dialect);
    if ((await countUsers(trx)) > 0) {
      await forgetSealedCodes(trx);
      return null;
    }
    const open = await findOpenBootstrapInvitation(trx, nowIso());
    const code = open ? unsealedCode(open, cipher) : null;
    if (open && code !== null) return { ...open, code };
    if (open) await revokeInvitation(trx, open.id, nowIso());
    return createInvitation(
      { ...db, db: trx },
      { role: 'superadmin', maxUses: 1, expiresInDays: null, createdBy: null },
      (created) => cipher.encrypt(created, SEALED_CODE_CONTEXT),
    );
  });
}
