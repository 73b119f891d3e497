import { SETTINGS_MESSAGES, type BotStatus } from '@perch/shared';
import type { Db } from '../../db/index.js';
import { badRequest } from '../../lib/errors.js';
import type { UserRow } from '../users/users.repository.js';
import { startReadyBots, upsertUserSettings, type UserSettingsRow } from './settings.repository.js';
import { loadState, nowOf, type Connections, type SettingsDeps } from './settings-state.js';

function toBotStatus(row: UserSettingsRow | undefined, connections: Connections): BotStatus {
  const running = Boolean(row?.bot_running);
  return {
    botRunning: running,
    status: running ? 'running' : 'stopped',
    canStart: connections.canStart,
    twitterConnected: connections.twitterConnected,
    telegramConnected: connections.telegramConnected,
    discordConnected: connections.discordConnected,
  };
}

/**
 * Starts the user's forwarder the moment its last condition holds (X account and a channel
 * connected): saving a channel or the X username, linking Telegram, connecting X with OAuth.
 * Nothing happens when it already runs or cannot run yet. True when it was started now.
 */
export async function startBotWhenReady(
  deps: Pick<SettingsDeps, 'db' | 'wakeWorker' | 'now'>,
  userId: number,
): Promise<boolean> {
  const started = await startReadyBots(deps.db.db, nowOf(deps).toISOString(), userId);
  if (started.length === 0) return false;
  deps.wakeWorker?.();
  return true;
}

export async function botStatus(db: Db, user: UserRow): Promise<BotStatus> {
  const { row, connections } = await loadState(db, user.id);
  return toBotStatus(row, connections);
}

/**
 * POST /bot/start: refused unless Twitter and at least one channel are connected.
 * Starting a running bot is fine and changes nothing.
 */
export async function startBot(
  deps: SettingsDeps,
  user: UserRow,
): Promise<{ status: BotStatus; message: string }> {
  const { row, connections } = await loadState(deps.db, user.id);
  if (!connections.canStart) {
    throw badRequest(SETTINGS_MESSAGES.botStartRequirements);
  }
  if (row?.bot_running) {
    return { status: toBotStatus(row, connections), message: SETTINGS_MESSAGES.botAlreadyRunning };
  }
  const started = await upsertUserSettings(deps.db.db, user.id, {
    bot_running: true,
    updated_at: nowOf(deps).toISOString(),
  });
  deps.wakeWorker?.();
  return { status: toBotStatus(started, connections), message: SETTINGS_MESSAGES.botStarted };
}
