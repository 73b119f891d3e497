import { PLACEHOLDER_TWITTER_USERNAME } from '@perch/shared';
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, Executor } from '../../db/index.js';
import type { UserSettingsTable } from '../../db/types.js';

export type UserSettingsRow = Selectable<UserSettingsTable>;
export type UserSettingsUpdate = Omit<Updateable<UserSettingsTable>, 'user_id'>;

/** The user's settings row, or undefined before the first save. */
export function findUserSettings(
  db: Executor,
  userId: number,
): Promise<UserSettingsRow | undefined> {
  return db
    .selectFrom('user_settings')
    .selectAll()
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/**
 * Writes some settings of a user, creating the row on first save (one statement, so two saves at
 * once cannot both try to create it). Returns the row as stored.
 */
export function upsertUserSettings(
  db: Executor,
  userId: number,
  values: UserSettingsUpdate & { updated_at: string },
): Promise<UserSettingsRow> {
  return db
    .insertInto('user_settings')
    .values({ user_id: userId, ...values })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The username of the user's X account connected with OAuth, if any. */
export async function findXAccountUsername(db: Executor, userId: number): Promise<string | null> {
  const row = await db
    .selectFrom('x_accounts')
    .select('username')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.username ?? null;
}

/**
 * Turns the forwarder on for every user (or only `userId`) whose X account and at least one
 * channel are connected while it is off: forwarding starts on the server as soon as it can,
 * with no page left open. Answers the users it started.
 */
export async function startReadyBots(
  db: Executor,
  now: string,
  userId?: number,
): Promise<number[]> {
  let query = db
    .updateTable('user_settings')
    .set({ bot_running: true, updated_at: now })
    .where('bot_running', '=', false)
    .where((eb) =>
      eb.or([
        eb.and([eb('telegram_chat_id', 'is not', null), eb('telegram_chat_id', '!=', '')]),
        eb.and([eb('discord_user_id', 'is not', null), eb('discord_user_id', '!=', '')]),
      ]),
    )
    .where((eb) =>
      eb.or([
        eb.and([
          eb('twitter_username', 'is not', null),
          eb('twitter_username', '!=', ''),
          eb('twitter_username', '!=', PLACEHOLDER_TWITTER_USERNAME),
        ]),
        eb.exists(
          eb
            .selectFrom('x_accounts')
            .select('x_accounts.user_id')
            .whereRef('x_accounts.user_id', '=', 'user_settings.user_id'),
        ),
      ]),
    );
  if (userId !== undefined) query = query.where('user_id', '=', userId);
  const rows = await query.returning('user_id').execute();
  return rows.map((row) => row.user_id);
}

/** Users whose Telegram chat is `chatId` (normally one). */
export async function usersWithTelegramChat(db: Executor, chatId: string): Promise<number[]> {
  const rows = await db
    .selectFrom('user_settings')
    .select('user_id')
    .where('telegram_chat_id', '=', chatId)
    .execute();
  return rows.map((row) => row.user_id);
}

/** Clears the stopped reason of every user on this Telegram chat (the bot was unblocked). */
export async function resumeTelegramChat(db: Executor, chatId: string, now: string): Promise<void> {
  await db
    .updateTable('user_settings')
    .set({ telegram_stopped_reason: null, updated_at: now })
    .where('telegram_chat_id', '=', chatId)
    .where('telegram_stopped_reason', 'is not', null)
    .execute();
}

// ---------------------------------------------------------------------------------------------
// Telegram one-click link codes
// ---------------------------------------------------------------------------------------------

/** Stores a new one-time code (its hash) and drops this user's expired or used ones. */
export async function insertLinkCode(
  db: Kysely<Database>,
  userId: number,
  codeHash: string,
  expiresAt: string,
  now: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('telegram_link_codes')
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('expires_at', '<=', now), eb('used_at', 'is not', null)]))
      .execute();
    await trx
      .insertInto('telegram_link_codes')
      .values({ code_hash: codeHash, user_id: userId, expires_at: expiresAt, used_at: null })
      .execute();
  });
}

/**
 * Uses a link code: only an unused, unexpired one, and only once even when two updates carrying
 * it are handled at the same time. Returns its user, or null.
 */
export async function consumeLinkCode(
  db: Executor,
  codeHash: string,
  now: string,
): Promise<number | null> {
  const row = await db
    .updateTable('telegram_link_codes')
    .set({ used_at: now })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id ?? null;
}

/** Who a (possibly used) code belonged to. */
export async function findLinkCodeUser(db: Executor, codeHash: string): Promise<number | null> {
  const row = await db
    .selectFrom('telegram_link_codes')
    .select('user_id')
    .where('code_hash', '=', codeHash)
    .executeTakeFirst();
  return row?.user_id ?? null;
}
