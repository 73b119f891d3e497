import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/index.js';
import type { OauthStatesTable, XAccountsTable } from '../../db/types.js';

export type XAccountRow = Selectable<XAccountsTable>;
export type OauthStateRow = Selectable<OauthStatesTable>;

export async function insertOauthState(
  db: Executor,
  state: Insertable<OauthStatesTable>,
): Promise<void> {
  await db.insertInto('oauth_states').values(state).execute();
}

/** Drops the user's pending authorizations and everyone's expired ones. */
export async function deleteStaleOauthStates(
  db: Executor,
  userId: number,
  now: string,
): Promise<void> {
  await db
    .deleteFrom('oauth_states')
    .where((eb) => eb.or([eb('user_id', '=', userId), eb('expires_at', '<=', now)]))
    .execute();
}

/**
 * Removes and returns the pending authorization `state` of `userId`, in one statement, so a
 * state is used at most once even when two callbacks race. Another user's state is left alone.
 */
export function takeOauthState(
  db: Executor,
  state: string,
  userId: number,
): Promise<OauthStateRow | undefined> {
  return db
    .deleteFrom('oauth_states')
    .where('state', '=', state)
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirst();
}

export function findXAccount(db: Executor, userId: number): Promise<XAccountRow | undefined> {
  return db.selectFrom('x_accounts').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** Stores the user's connection, replacing an earlier one. */
export async function upsertXAccount(
  db: Executor,
  account: Insertable<XAccountsTable>,
): Promise<void> {
  const { user_id: _userId, ...changes } = account;
  await db
    .insertInto('x_accounts')
    .values(account)
    .onConflict((oc) => oc.column('user_id').doUpdateSet(changes))
    .execute();
}

export interface XAccountTokens {
  access_token: string;
  refresh_token: string | null;
  expires_at: string | null;
  scope: string | null;
  updated_at: string;
}

export async function updateXAccountTokens(
  db: Executor,
  userId: number,
  tokens: XAccountTokens,
): Promise<void> {
  await db.updateTable('x_accounts').set(tokens).where('user_id', '=', userId).execute();
}

/**
 * Deletes the user's connection; true when there was one. With `onlyIfAccessToken`, only while
 * the row still holds that (sealed) token, so a connection made meanwhile survives.
 */
export async function deleteXAccount(
  db: Executor,
  userId: number,
  onlyIfAccessToken?: string,
): Promise<boolean> {
  let query = db.deleteFrom('x_accounts').where('user_id', '=', userId);
  if (onlyIfAccessToken !== undefined) query = query.where('access_token', '=', onlyIfAccessToken);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function findTwitterUsername(db: Executor, userId: number): Promise<string | null> {
  const row = await db
    .selectFrom('user_settings')
    .select('twitter_username')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.twitter_username ?? null;
}

/** Sets user_settings.twitter_username, creating the user's settings row when needed. */
export async function setTwitterUsername(
  db: Executor,
  userId: number,
  username: string,
  now: string,
): Promise<void> {
  await db
    .insertInto('user_settings')
    .values({ user_id: userId, twitter_username: username, updated_at: now })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({ twitter_username: username, updated_at: now }),
    )
    .execute();
}

/** Clears user_settings.twitter_username; only while it still is `onlyIf`, when given. */
export async function clearTwitterUsername(
  db: Executor,
  userId: number,
  now: string,
  onlyIf?: string,
): Promise<void> {
  let query = db
    .updateTable('user_settings')
    .set({ twitter_username: null, updated_at: now })
    .where('user_id', '=', userId);
  if (onlyIf !== undefined) query = query.where('twitter_username', '=', onlyIf);
  await query.execute();
}
