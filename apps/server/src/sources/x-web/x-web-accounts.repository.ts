/**
 * The x_web_accounts table (migration 0014): the x-web source's pool of collector accounts.
 * Secrets, sessions and waiting sign-in flows are stored sealed with the token cipher, bound
 * to the account's username and the column (see `sealFor`).
 */
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, XWebAccountsTable } from '../../db/types.js';
import type { TokenCipher } from '../../lib/token-cipher.js';

export type XWebAccountRow = Selectable<XWebAccountsTable>;
export type XWebAccountPatch = Updateable<XWebAccountsTable>;

/** What the credentials hold: by cookies, or what the sign-in flow needs. */
export type XWebSecrets =
  | { method: 'cookies'; authToken: string; ct0: string }
  | { method: 'credentials'; password: string; email: string; totpSecret: string | null };

type Sealed = 'secrets' | 'session' | 'flow';

/** The cipher context of a sealed column: a value copied to another row or column fails. */
const contextOf = (column: Sealed, username: string) => `x_web_accounts.${column}:${username}`;

export function seal(
  cipher: TokenCipher,
  column: Sealed,
  username: string,
  value: unknown,
): string {
  return cipher.encrypt(JSON.stringify(value), contextOf(column, username));
}

export function unseal<T>(
  cipher: TokenCipher,
  column: Sealed,
  username: string,
  sealed: string,
): T {
  return JSON.parse(cipher.decrypt(sealed, contextOf(column, username))) as T;
}

export function listXWebAccounts(db: Kysely<Database>): Promise<XWebAccountRow[]> {
  return db.selectFrom('x_web_accounts').selectAll().orderBy('id').execute();
}

export function findXWebAccount(
  db: Kysely<Database>,
  id: number,
): Promise<XWebAccountRow | undefined> {
  return db.selectFrom('x_web_accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findXWebAccountByUsername(
  db: Kysely<Database>,
  username: string,
): Promise<XWebAccountRow | undefined> {
  return db
    .selectFrom('x_web_accounts')
    .selectAll()
    .where('username', '=', username.toLowerCase())
    .executeTakeFirst();
}

export async function insertXWebAccount(
  db: Kysely<Database>,
  values: Omit<XWebAccountsTable, 'id' | 'limits'>,
): Promise<XWebAccountRow> {
  const { id } = await db
    .insertInto('x_web_accounts')
    .values(values)
    .returning('id')
    .executeTakeFirstOrThrow();
  return (await findXWebAccount(db, id))!;
}

export async function deleteXWebAccount(db: Kysely<Database>, id: number): Promise<boolean> {
  const result = await db.deleteFrom('x_web_accounts').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Updates an account; with `whenStatus`, only while it is in one of those statuses (so a
 * change decided on an old read cannot undo an admin's or another process's newer one).
 */
export async function updateXWebAccount(
  db: Kysely<Database>,
  id: number,
  patch: XWebAccountPatch,
  whenStatus?: XWebAccountsTable['status'][],
): Promise<boolean> {
  let query = db.updateTable('x_web_accounts').set(patch).where('id', '=', id);
  if (whenStatus) query = query.where('status', 'in', whenStatus);
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The account waiting longest for a verification code, or the one named. */
export function findAwaitingXWebAccount(
  db: Kysely<Database>,
  id?: number,
): Promise<XWebAccountRow | undefined> {
  let query = db
    .selectFrom('x_web_accounts')
    .selectAll()
    .where('status', '=', 'AWAITING_INPUT')
    .orderBy('challenge_since')
    .orderBy('id');
  if (id !== undefined) query = query.where('id', '=', id);
  return query.executeTakeFirst();
}

/**
 * An account became usable (added, reset, or its code accepted): collection stopped for want
 * of an account probes X at the next tick of any collector, not after the 5-minute probe wait.
 */
export async function probeSoon(db: Kysely<Database>, now: string): Promise<void> {
  await db
    .updateTable('x_api_status')
    .set({ next_probe_at: now })
    .where('id', '=', 1)
    .where('state', '!=', 'ok')
    .execute();
}

/** The status reason of an account whose sign-in runs (in some process). */
export const SIGNING_IN = 'Signing in';

/**
 * Claims the sign-in of a NEEDS_LOGIN account for this process, so two collectors never run two
 * sign-ins of one account (X would email two codes and see two logins). A claim older than
 * `staleBefore` (its process died) can be taken over. False when another process holds it.
 */
export async function claimSignIn(
  db: Kysely<Database>,
  id: number,
  now: string,
  staleBefore: string,
): Promise<boolean> {
  const result = await db
    .updateTable('x_web_accounts')
    .set({ status_reason: SIGNING_IN, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'NEEDS_LOGIN')
    .where((eb) =>
      eb.or([
        eb('status_reason', 'is', null),
        eb('status_reason', '!=', SIGNING_IN),
        eb('updated_at', '<', staleBefore),
      ]),
    )
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Claims the one request in flight of an account and operation for `holder` until `until`; a
 * claim whose time ran out (its process died or froze) is taken over. False when held.
 */
export async function claimXWebLease(
  db: Kysely<Database>,
  accountId: number,
  operation: string,
  holder: string,
  now: string,
  until: string,
): Promise<boolean> {
  const claimed = await db
    .insertInto('x_web_leases')
    .values({ account_id: accountId, operation, holder, until })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'operation'])
        .doUpdateSet({ holder, until })
        .where('x_web_leases.until', '<=', now),
    )
    .returning('holder')
    .executeTakeFirst();
  return claimed?.holder === holder;
}

export async function releaseXWebLease(
  db: Kysely<Database>,
  accountId: number,
  operation: string,
  holder: string,
): Promise<void> {
  await db
    .deleteFrom('x_web_leases')
    .where('account_id', '=', accountId)
    .where('operation', '=', operation)
    .where('holder', '=', holder)
    .execute();
}

/** The pool's pause (X answering with HTML pages), as every process sees it. */
export interface XWebPause {
  pausedUntil: string | null;
  reason: string | null;
  since: string | null;
  step: number;
}

export async function readXWebPause(db: Kysely<Database>): Promise<XWebPause> {
  const row = await db
    .selectFrom('x_web_state')
    .select(['paused_until', 'pause_reason', 'paused_since', 'pause_step'])
    .where('id', '=', 1)
    .executeTakeFirst();
  return {
    pausedUntil: row?.paused_until ?? null,
    reason: row?.pause_reason ?? null,
    since: row?.paused_since ?? null,
    step: row?.pause_step ?? 0,
  };
}

/** Sets (or, with nulls and step 0, ends) the pool's pause. */
export async function writeXWebPause(db: Kysely<Database>, pause: XWebPause): Promise<void> {
  const values = {
    paused_until: pause.pausedUntil,
    pause_reason: pause.reason,
    paused_since: pause.since,
    pause_step: pause.step,
  };
  await db
    .insertInto('x_web_state')
    .values({ id: 1, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .execute();
}
