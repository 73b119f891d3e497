import {
  SETTINGS_MESSAGES,
  WEBHOOK_API_MESSAGES,
  type Handle,
  type NotificationChannel,
} from '@perch/shared';
import { badRequest, notFound } from '../../lib/errors.js';
import { cancelPendingForHandle } from '../../notify/outbox.repository.js';
import { loadState, type SettingsDeps } from '../settings/settings-state.js';
import type { UserRow } from '../users/users.repository.js';
import { cancelPendingWebhookDeliveries, countEndpoints } from '../webhooks/webhooks.repository.js';
import { findLinkedHandle, setLinkNotifications } from './handles.repository.js';
import { HANDLE_NOT_FOUND, toHandle } from './handles.service.js';

/** Where a handle's posts can go: the messaging services, and the user's webhooks. */
type HandleChannel = NotificationChannel | 'webhook';

const CHANNEL_NAMES: Record<HandleChannel, string> = {
  telegram: 'Telegram',
  discord: 'Discord',
  webhook: 'Webhook',
};

export interface HandleNotificationsChange {
  telegramEnabled?: boolean;
  discordEnabled?: boolean;
  webhookEnabled?: boolean;
}

const switchOf = (change: HandleNotificationsChange, channel: HandleChannel) =>
  channel === 'telegram'
    ? change.telegramEnabled
    : channel === 'discord'
      ? change.discordEnabled
      : change.webhookEnabled;

/** The answer's text: about the first switch the request changed. */
function toggledMessage(change: HandleNotificationsChange, handle: Handle): string {
  if (change.telegramEnabled !== undefined) {
    return SETTINGS_MESSAGES.toggled('telegram', handle.telegram_enabled, handle.handle);
  }
  if (change.discordEnabled !== undefined) {
    return SETTINGS_MESSAGES.toggled('discord', handle.discord_enabled, handle.handle);
  }
  return SETTINGS_MESSAGES.toggled('webhook', handle.webhook_enabled ?? false, handle.handle);
}

/**
 * PUT /handles/{id}/notifications: switching a channel on needs that channel connected (for
 * webhooks, at least one endpoint); switching it off always works and cancels what was still
 * waiting for that handle there.
 */
export async function setHandleNotifications(
  deps: Pick<SettingsDeps, 'db'>,
  user: UserRow,
  handleId: number,
  change: HandleNotificationsChange,
): Promise<{ handle: Handle; message: string }> {
  const { db } = deps.db;
  const linked = await findLinkedHandle(db, user.id, handleId);
  if (!linked) throw notFound(HANDLE_NOT_FOUND);
  if (change.telegramEnabled === true || change.discordEnabled === true) {
    const { connections } = await loadState(deps.db, user.id);
    if (change.telegramEnabled === true && !connections.telegramConnected) {
      throw badRequest(SETTINGS_MESSAGES.connectTelegramFirst);
    }
    if (change.discordEnabled === true && !connections.discordConnected) {
      throw badRequest(SETTINGS_MESSAGES.connectDiscordFirst);
    }
  }
  if (change.webhookEnabled === true && (await countEndpoints(db, user.id)) === 0) {
    throw badRequest(WEBHOOK_API_MESSAGES.addWebhookFirst);
  }
  await setLinkNotifications(db, user.id, handleId, {
    ...(change.telegramEnabled === undefined ? {} : { telegram_enabled: change.telegramEnabled }),
    ...(change.discordEnabled === undefined ? {} : { discord_enabled: change.discordEnabled }),
    ...(change.webhookEnabled === undefined ? {} : { webhook_enabled: change.webhookEnabled }),
  });
  for (const channel of ['telegram', 'discord', 'webhook'] as const) {
    if (switchOf(change, channel) !== false) continue;
    const reason = `${CHANNEL_NAMES[channel]} notifications were switched off for this handle`;
    if (channel === 'webhook') {
      await cancelPendingWebhookDeliveries(db, user.id, { handleId }, reason);
    } else {
      await cancelPendingForHandle(db, user.id, handleId, channel, reason);
    }
  }
  const updated = await findLinkedHandle(db, user.id, handleId);
  if (!updated) throw notFound(HANDLE_NOT_FOUND);
  const handle = toHandle(updated);
  return { handle, message: toggledMessage(change, handle) };
}
