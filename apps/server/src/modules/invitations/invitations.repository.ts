import { sql, type Selectable, type Transaction } from 'kysely';
import type { Role } from '@perch/shared';
import type { Database, Executor } from '../../db/index.js';
import type { InvitationsTable } from '../../db/types.js';
import { sha256Hex } from '../../lib/tokens.js';

export type InvitationRow = Selectable<InvitationsTable>;

export function findInvitationById(db: Executor, id: number): Promise<InvitationRow | undefined> {
  return db.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** What the table keeps of a code: its SHA-256, hex (migration 0019). */
export function invitationCodeHash(code: string): string {
  return sha256Hex(code);
}

/** The invitation whose code is `code` (as typed, trimmed), found by the code's hash. */
export function findInvitationByCode(
  db: Executor,
  code: string,
): Promise<InvitationRow | undefined> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('code_hash', '=', invitationCodeHash(code))
    .executeTakeFirst();
}

export interface NewInvitation {
  codeHash: string;
  /** The first-start invitation's code, sealed with the secret key; null for every other one. */
  codeSealed: string | null;
  role: Role;
  maxUses: number;
  expiresAt: string | null;
  createdBy: number | null;
  createdAt: string;
}

export function insertInvitation(db: Executor, invitation: NewInvitation): Promise<InvitationRow> {
  return db
    .insertInto('invitations')
    .values({
      code_hash: invitation.codeHash,
      code_sealed: invitation.codeSealed,
      role: invitation.role,
      max_uses: invitation.maxUses,
      expires_at: invitation.expiresAt,
      created_by: invitation.createdBy,
      created_at: invitation.createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Takes one use of an invitation in a single conditional UPDATE, so two registrations racing
 * for the last use cannot both win. Returns false when no use is left, it has expired or it was
 * revoked.
 */
export async function consumeInvitationUse(
  db: Executor,
  id: number,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set((eb) => ({ uses: eb('uses', '+', 1) }))
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .where((eb) => eb('uses', '<', eb.ref('max_uses')))
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Revokes an invitation; a second revocation keeps the first time. False when already revoked. */
export async function revokeInvitation(db: Executor, id: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export function listInvitations(db: Executor): Promise<InvitationRow[]> {
  return db.selectFrom('invitations').selectAll().orderBy('id').execute();
}

/** An invitation with the username of whoever made it (null for first start and the CLI). */
export interface InvitationWithCreatorRow extends InvitationRow {
  creator_username: string | null;
}

function invitationsWithCreator(db: Executor) {
  return db
    .selectFrom('invitations')
    .leftJoin('users', 'users.id', 'invitations.created_by')
    .selectAll('invitations')
    .select('users.username as creator_username');
}

/** Invitations newest first, all of them or only those granting `role`. */
export function listInvitationsWithCreator(
  db: Executor,
  role: Role | null,
): Promise<InvitationWithCreatorRow[]> {
  let query = invitationsWithCreator(db);
  if (role !== null) query = query.where('invitations.role', '=', role);
  return query.orderBy('invitations.id', 'desc').execute();
}

export function findInvitationWithCreator(
  db: Executor,
  id: number,
): Promise<InvitationWithCreatorRow | undefined> {
  return invitationsWithCreator(db).where('invitations.id', '=', id).executeTakeFirst();
}

/** An open (unused, unexpired, unrevoked) super-admin invitation from the first start, if any. */
export function findOpenBootstrapInvitation(
  db: Executor,
  now: string,
): Promise<InvitationRow | undefined> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('role', '=', 'superadmin')
    .where('created_by', 'is', null)
    .where('revoked_at', 'is', null)
    .where((eb) => eb('uses', '<', eb.ref('max_uses')))
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('id')
    .executeTakeFirst();
}

/** Drops every sealed first-start code: once somebody registered, none is printed again. */
export async function forgetSealedCodes(db: Executor): Promise<void> {
  await db
    .updateTable('invitations')
    .set({ code_sealed: null })
    .where('code_sealed', 'is not', null)
    .execute();
}

/** Key of the PostgreSQL advisory lock that makes the first-start invitation one per database. */
const BOOTSTRAP_LOCK_KEY = 7_345_120_001;

/**
 * Holds the first-start lock until `trx` ends: several nodes starting together on one
 * PostgreSQL database create one invitation between them. SQLite serves one process and
 * needs nothing.
 */
export async function lockBootstrap(
  trx: Transaction<Database>,
  dialect: 'sqlite' | 'postgres',
): Promise<void> {
  if (dialect === 'postgres')
    await sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK_KEY})`.execute(trx);
}
