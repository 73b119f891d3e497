import { SETTINGS_MESSAGES, type Handle, type NotificationChannel } from '@perch/shared';
import { badRequest, notFound } from '../../lib/errors.js';
import { cancelPendingForHandle } from '../../notify/outbox.repository.js';
import { setHandleNotifications as writeHandleNotifications } from '../settings/settings.repository.js';
import { loadState, type SettingsDeps } from '../settings/settings-state.js';
import type { UserRow } from '../users/users.repository.js';
import { findLinkedHandle } from './handles.repository.js';
import { HANDLE_NOT_FOUND, toHandle } from './handles.service.js';

const CHANNEL_NAMES: Record<NotificationChannel, string> = {
  telegram: 'Telegram',
  discord: 'Discord',
};

/**
 * PUT /handles/{id}/notifications: switching a channel on needs that channel connected;
 * switching it off always works and cancels what was still waiting for that handle.
 */
export async function setHandleNotifications(
  deps: Pick<SettingsDeps, 'db'>,
  user: UserRow,
  handleId: number,
  change: { telegramEnabled?: boolean; discordEnabled?: boolean },
): Promise<{ handle: Handle; message: string }> {
  const linked = await findLinkedHandle(deps.db.db, user.id, handleId);
  if (!linked) throw notFound(HANDLE_NOT_FOUND);
  const { connections } = await loadState(deps.db, user.id);
  if (change.telegramEnabled === true && !connections.telegramConnected) {
    throw badRequest(SETTINGS_MESSAGES.connectTelegramFirst);
  }
  if (change.discordEnabled === true && !connections.discordConnected) {
    throw badRequest(SETTINGS_MESSAGES.connectDiscordFirst);
  }
  await writeHandleNotifications(deps.db.db, user.id, handleId, {
    ...(change.telegramEnabled === undefined ? {} : { telegram_enabled: change.telegramEnabled }),
    ...(change.discordEnabled === undefined ? {} : { discord_enabled: change.discordEnabled }),
  });
  for (const channel of ['telegram', 'discord'] as const) {
    const enabled = channel === 'telegram' ? change.telegramEnabled : change.discordEnabled;
    if (enabled === false) {
      await cancelPendingForHandle(
        deps.db.db,
        user.id,
        handleId,
        channel,
        `${CHANNEL_NAMES[channel]} notifications were switched off for this handle`,
      );
    }
  }
  const updated = await findLinkedHandle(deps.db.db, user.id, handleId);
  if (!updated) throw notFound(HANDLE_NOT_FOUND);
  const handle = toHandle(updated);
  const channel: NotificationChannel =
    change.telegramEnabled !== undefined ? 'telegram' : 'discord';
  const enabled = channel === 'telegram' ? handle.telegram_enabled : handle.discord_enabled;
  return { handle, message: SETTINGS_MESSAGES.toggled(channel, enabled, handle.handle) };
}
