import { SETTINGS_MESSAGES, type Settings } from '@perch/shared';
import { badRequest } from '../../lib/errors.js';
import type { NotifyChannels } from '../../notify/channels.js';
import { cancelPendingDeliveries } from '../../notify/outbox.repository.js';
import type { UserRow } from '../users/users.repository.js';
import { startBotWhenReady } from './bot.service.js';
import {
  upsertUserSettings,
  type UserSettingsRow,
  type UserSettingsUpdate,
} from './settings.repository.js';
import { loadState, nowOf, type Connections, type SettingsDeps } from './settings-state.js';

/** How long GET /settings waits for the bot's username before answering without it. */
export const BOT_LOOKUP_TIMEOUT_MS = 3_000;

/** The bot's username, or null when the bot is not set up or not reachable right now. */
async function botUsername(channels: NotifyChannels): Promise<string | null> {
  if (!channels.telegram.available) return null;
  try {
    return await channels.telegram.botUsername(AbortSignal.timeout(BOT_LOOKUP_TIMEOUT_MS));
  } catch {
    return null;
  }
}

function toSettings(
  row: UserSettingsRow | undefined,
  connections: Connections,
  channels: NotifyChannels,
  bot: string | null,
): Settings {
  return {
    status: connections.canStart ? 'configured' : 'unconfigured',
    twitter_username: connections.twitterUsername,
    telegram_chat_id: row?.telegram_chat_id ?? null,
    discord_user_id: row?.discord_user_id ?? null,
    twitterConnected: connections.twitterConnected,
    telegramConnected: connections.telegramConnected,
    discordConnected: connections.discordConnected,
    twitterConnection: connections.twitterConnection,
    botRunning: Boolean(row?.bot_running),
    telegram: {
      available: channels.telegram.available,
      stoppedReason: row?.telegram_stopped_reason ?? null,
      hint: channels.telegram.available ? null : SETTINGS_MESSAGES.telegramUnavailable,
      botUsername: bot,
      linkAvailable: bot !== null,
    },
    discord: {
      available: channels.discord.available,
      stoppedReason: row?.discord_stopped_reason ?? null,
      hint: channels.discord.available ? null : SETTINGS_MESSAGES.discordUnavailable,
    },
  };
}

/** GET /settings. */
export async function getSettings(deps: SettingsDeps, user: UserRow): Promise<Settings> {
  const [{ row, connections }, bot] = await Promise.all([
    loadState(deps.db, user.id),
    botUsername(deps.channels),
  ]);
  return toSettings(row, connections, deps.channels, bot);
}

/** POST /settings after validation: `null` disconnects a field, `undefined` leaves it. */
export interface SettingsChange {
  telegram_chat_id?: string | null;
  discord_user_id?: string | null;
  twitter_username?: string | null;
}

/** Each channel's field in a change and in the settings row, and what saving it answers. */
const CHANNEL_FIELDS = [
  {
    channel: 'telegram',
    name: 'Telegram',
    field: 'telegram_chat_id',
    stoppedReason: 'telegram_stopped_reason',
    saved: SETTINGS_MESSAGES.telegramSaved,
    disconnected: SETTINGS_MESSAGES.telegramDisconnected,
  },
  {
    channel: 'discord',
    name: 'Discord',
    field: 'discord_user_id',
    stoppedReason: 'discord_stopped_reason',
    saved: SETTINGS_MESSAGES.discordSaved,
    disconnected: SETTINGS_MESSAGES.discordDisconnected,
  },
] as const;

/**
 * Saves channels and the typed Twitter username. Saving a channel clears its stopped reason
 * (the user fixed something, or wants another try); disconnecting one cancels its pending
 * deliveries. The bot starts as soon as it can run (X and a channel connected) and stops when it
 * no longer can (no Twitter, or no channel left).
 */
export async function saveSettings(
  deps: SettingsDeps,
  user: UserRow,
  change: SettingsChange,
): Promise<{ settings: Settings; message: string }> {
  const now = nowOf(deps).toISOString();
  const values: UserSettingsUpdate & { updated_at: string } = { updated_at: now };
  const messages: string[] = [];
  for (const { field, stoppedReason, saved, disconnected } of CHANNEL_FIELDS) {
    const target = change[field];
    if (target === undefined) continue;
    values[field] = target;
    values[stoppedReason] = null;
    messages.push(target === null ? disconnected : saved);
  }
  if (change.twitter_username !== undefined) {
    values.twitter_username = change.twitter_username;
    messages.push(
      change.twitter_username === null
        ? SETTINGS_MESSAGES.twitterDisconnected
        : SETTINGS_MESSAGES.twitterSaved,
    );
  }
  if (messages.length === 0) throw badRequest(SETTINGS_MESSAGES.nothingToSave);

  await upsertUserSettings(deps.db.db, user.id, values);
  await startBotWhenReady(deps, user.id);
  for (const { channel, field, name } of CHANNEL_FIELDS) {
    if (change[field] === null) {
      await cancelPendingDeliveries(deps.db.db, user.id, channel, `${name} was disconnected`);
    }
  }
  const state = await loadState(deps.db, user.id);
  const { connections } = state;
  let { row } = state;
  if (row?.bot_running && !connections.canStart) {
    row = await upsertUserSettings(deps.db.db, user.id, { bot_running: false, updated_at: now });
    await cancelPendingDeliveries(deps.db.db, user.id, null, 'The bot stopped');
  }
  deps.wakeWorker?.();
  const bot = await botUsername(deps.channels);
  return { settings: toSettings(row, connections, deps.channels, bot), message: messages[0]! };
}
