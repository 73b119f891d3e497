import { SETTINGS_MESSAGES, TELEGRAM_LINK_TTL_MS, type TelegramLink } from '@perch/shared';
import { randomToken, sha256Hex } from '../../lib/tokens.js';
import { cancelPendingDeliveries } from '../../notify/outbox.repository.js';
import type { UserRow } from '../users/users.repository.js';
import { startBotWhenReady } from './bot.service.js';
import { stopChannel } from '../../notify/channel-state.repository.js';
import { telegramTestError, unavailable } from './channel-tests.service.js';
import { BOT_LOOKUP_TIMEOUT_MS } from './settings.service.js';
import {
  consumeLinkCode,
  findLinkCodeUser,
  findUserSettings,
  insertLinkCode,
  resumeTelegramChat,
  upsertUserSettings,
  usersWithTelegramChat,
} from './settings.repository.js';
import { nowOf, type SettingsDeps } from './settings-state.js';

/**
 * A one-time link `https://t.me/<bot>?start=<code>`: pressing Start sends `/start <code>` to the
 * bot, and the updates poller links that chat to this user. Only the code's hash is stored.
 */
export async function createTelegramLink(deps: SettingsDeps, user: UserRow): Promise<TelegramLink> {
  const { telegram } = deps.channels;
  if (!telegram.available) throw unavailable('telegram');
  let bot: string;
  try {
    bot = await telegram.botUsername(AbortSignal.timeout(BOT_LOOKUP_TIMEOUT_MS * 2));
  } catch (error) {
    throw telegramTestError(error);
  }
  const code = randomToken(24);
  const now = nowOf(deps);
  const expiresAt = new Date(now.getTime() + TELEGRAM_LINK_TTL_MS).toISOString();
  await insertLinkCode(deps.db.db, user.id, sha256Hex(code), expiresAt, now.toISOString());
  return {
    url: `https://t.me/${bot}?start=${code}`,
    botUsername: bot,
    expiresAt,
    instructions: SETTINGS_MESSAGES.telegramLinkReady,
  };
}

export type LinkOutcome =
  | { status: 'linked'; userId: number }
  | { status: 'already'; userId: number }
  | { status: 'invalid' };

/**
 * `/start <code>` arrived from `chatId`: links the chat to the code's user (once; a repeat from
 * the same chat, e.g. an update delivered twice, answers as linked again).
 */
export async function linkTelegramChat(
  deps: SettingsDeps,
  code: string,
  chatId: string,
): Promise<LinkOutcome> {
  const now = nowOf(deps).toISOString();
  const hash = sha256Hex(code);
  const userId = await consumeLinkCode(deps.db.db, hash, now);
  if (userId === null) {
    const owner = await findLinkCodeUser(deps.db.db, hash);
    if (owner !== null) {
      const row = await findUserSettings(deps.db.db, owner);
      if (row?.telegram_chat_id === chatId) return { status: 'already', userId: owner };
    }
    return { status: 'invalid' };
  }
  await upsertUserSettings(deps.db.db, userId, {
    telegram_chat_id: chatId,
    telegram_stopped_reason: null,
    updated_at: now,
  });
  await startBotWhenReady(deps, userId);
  deps.wakeWorker?.();
  return { status: 'linked', userId };
}

/** The bot was blocked ('kicked') in a chat: stop Telegram for everyone on it. */
export async function telegramChatBlocked(deps: SettingsDeps, chatId: string): Promise<void> {
  const now = nowOf(deps).toISOString();
  for (const userId of await usersWithTelegramChat(deps.db.db, chatId)) {
    await stopChannel(
      deps.db.db,
      userId,
      'telegram',
      chatId,
      SETTINGS_MESSAGES.telegramBlockedReason,
      now,
    );
    await cancelPendingDeliveries(
      deps.db.db,
      userId,
      'telegram',
      `Stopped: ${SETTINGS_MESSAGES.telegramBlockedReason}`,
    );
  }
}

/** The bot was unblocked: the chat works again, new tweets are delivered again. */
export async function telegramChatUnblocked(deps: SettingsDeps, chatId: string): Promise<void> {
  await resumeTelegramChat(deps.db.db, chatId, nowOf(deps).toISOString());
  deps.wakeWorker?.();
}
