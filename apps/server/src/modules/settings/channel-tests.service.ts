import { SETTINGS_MESSAGES, TEST_MESSAGE_TEXT, type NotificationChannel } from '@perch/shared';
import { AppError, conflict } from '../../lib/errors.js';
import { DISCORD_BAD_TOKEN, DISCORD_NOT_SET_UP } from '../../notify/discord/discord-client.js';
import { escapeHtml } from '../../notify/format/telegram-html.js';
import { TELEGRAM_BAD_TOKEN, TELEGRAM_NOT_SET_UP } from '../../notify/telegram/telegram-client.js';
import { DeliveryError } from '../../notify/types.js';
import type { UserRow } from '../users/users.repository.js';
import { findUserSettings, upsertUserSettings } from './settings.repository.js';
import { nowOf, type SettingsDeps } from './settings-state.js';

const runOnce = (deps: SettingsDeps, key: string, send: () => Promise<void>) =>
  deps.duplicateTests ? deps.duplicateTests.run(key, send) : send();

/** The 409 for a channel the operator has not set up; one-click linking answers it too. */
export function unavailable(channel: NotificationChannel): AppError {
  return conflict(
    channel === 'telegram'
      ? SETTINGS_MESSAGES.telegramUnavailable
      : SETTINGS_MESSAGES.discordUnavailable,
    `${channel.toUpperCase()}_UNAVAILABLE`,
  );
}

/** Permanent failures that are the operator's to fix, not the user's. */
const OPERATOR_REASONS = new Set([
  TELEGRAM_BAD_TOKEN,
  TELEGRAM_NOT_SET_UP,
  DISCORD_BAD_TOKEN,
  DISCORD_NOT_SET_UP,
]);

/** A refused token or an unreachable service is not the user's doing: 502, not 400. */
function upstreamStatus(error: DeliveryError): number {
  if (error.kind === 'rate_limited') return 429;
  if (error.kind === 'transient') return 502;
  return OPERATOR_REASONS.has(error.reason ?? '') ? 502 : 400;
}

function retryHeaders(error: DeliveryError): Record<string, string> | undefined {
  if (error.kind !== 'rate_limited') return undefined;
  return { 'retry-after': String(Math.max(1, Math.ceil((error.retryAfterMs ?? 1000) / 1000))) };
}

/** What the service said, without our 'Telegram: ' prefix. */
const serviceText = (error: Error, service: string) =>
  error.message.replace(new RegExp(`^${service}:\\s*`), '');

/** The spec's answer to a failed Telegram test (docs/spec-notes.md, Error texts). */
export function telegramTestError(error: unknown): AppError {
  if (!(error instanceof DeliveryError)) {
    const text = error instanceof Error ? error.message : String(error);
    return new AppError(502, 'TELEGRAM_TEST_FAILED', SETTINGS_MESSAGES.telegramTestError(text));
  }
  const said = serviceText(error, 'Telegram');
  if (/chat not found/i.test(said) || /^bad request/i.test(said)) {
    return new AppError(400, 'TELEGRAM_CHAT_NOT_FOUND', SETTINGS_MESSAGES.telegramTestChatNotFound);
  }
  if (/bot was blocked/i.test(said)) {
    return new AppError(400, 'TELEGRAM_BOT_BLOCKED', SETTINGS_MESSAGES.telegramTestBlocked);
  }
  return new AppError(
    upstreamStatus(error),
    'TELEGRAM_TEST_FAILED',
    SETTINGS_MESSAGES.telegramTestError(error.reason ?? said),
    undefined,
    retryHeaders(error),
  );
}

/** The spec's answer to a failed Discord test, with what Discord said in `details`. */
export function discordTestError(error: unknown): AppError {
  if (!(error instanceof DeliveryError)) {
    const text = error instanceof Error ? error.message : String(error);
    return new AppError(502, 'DISCORD_TEST_FAILED', SETTINGS_MESSAGES.discordTestFailed, text);
  }
  return new AppError(
    upstreamStatus(error),
    'DISCORD_TEST_FAILED',
    SETTINGS_MESSAGES.discordTestFailed,
    error.reason ?? serviceText(error, 'Discord'),
    retryHeaders(error),
  );
}

/**
 * A working test to the chat the user has saved also clears its stopped reason: the problem
 * (a blocked bot, say) is evidently fixed.
 */
async function resumeAfterTest(
  deps: SettingsDeps,
  user: UserRow,
  channel: NotificationChannel,
  target: string,
): Promise<void> {
  const row = await findUserSettings(deps.db.db, user.id);
  if (!row) return;
  const saved = channel === 'telegram' ? row.telegram_chat_id : row.discord_user_id;
  const stopped = channel === 'telegram' ? row.telegram_stopped_reason : row.discord_stopped_reason;
  if (saved !== target || !stopped) return;
  await upsertUserSettings(deps.db.db, user.id, {
    ...(channel === 'telegram'
      ? { telegram_stopped_reason: null }
      : { discord_stopped_reason: null }),
    updated_at: nowOf(deps).toISOString(),
  });
}

/** POST /settings/telegram/test: a test message to `chatId`. */
export async function testTelegram(deps: SettingsDeps, user: UserRow, chatId: string) {
  const { telegram } = deps.channels;
  if (!telegram.available) throw unavailable('telegram');
  await runOnce(deps, `telegram:${user.id}:${chatId}`, async () => {
    try {
      await telegram.sendMessage(chatId, escapeHtml(TEST_MESSAGE_TEXT));
    } catch (error) {
      throw telegramTestError(error);
    }
  });
  await resumeAfterTest(deps, user, 'telegram', chatId);
  return SETTINGS_MESSAGES.telegramTestSuccess;
}

/** POST /settings/discord/test: a test DM to `userId`. */
export async function testDiscord(deps: SettingsDeps, user: UserRow, discordUserId: string) {
  const { discord } = deps.channels;
  if (!discord.available) throw unavailable('discord');
  await runOnce(deps, `discord:${user.id}:${discordUserId}`, async () => {
    try {
      const dm = await discord.openDm(discordUserId);
      await discord.send(dm, { content: TEST_MESSAGE_TEXT, embeds: [] });
    } catch (error) {
      throw discordTestError(error);
    }
  });
  await resumeAfterTest(deps, user, 'discord', discordUserId);
  return SETTINGS_MESSAGES.discordTestSuccess;
}
