import type { Executor } from '../db/index.js';
import type { NotificationChannel } from '../db/types.js';

/**
 * The state of a user's channels that delivery changes on its own: a channel stopped after a
 * permanent failure, a Telegram group moved to its supergroup. The settings module reads and
 * clears that state; the delivery worker writes it here.
 */

/**
 * Stops delivery to a channel of a user (a permanent failure), unless the target changed in the
 * meantime: a failure of the old chat must not stop the one the user just saved.
 */
export async function stopChannel(
  db: Executor,
  userId: number,
  channel: NotificationChannel,
  target: string,
  reason: string,
  now: string,
): Promise<boolean> {
  const query =
    channel === 'telegram'
      ? db
          .updateTable('user_settings')
          .set({ telegram_stopped_reason: reason, updated_at: now })
          .where('telegram_chat_id', '=', target)
      : db
          .updateTable('user_settings')
          .set({ discord_stopped_reason: reason, updated_at: now })
          .where('discord_user_id', '=', target);
  const result = await query.where('user_id', '=', userId).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * A Telegram group became a supergroup: every user whose chat was `from` now has `to` (the
 * group's new id, Telegram's `migrate_to_chat_id`). Answers how many settings changed.
 */
export async function moveTelegramChat(
  db: Executor,
  from: string,
  to: string,
  now: string,
): Promise<number> {
  const result = await db
    .updateTable('user_settings')
    .set({ telegram_chat_id: to, updated_at: now })
    .where('telegram_chat_id', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
