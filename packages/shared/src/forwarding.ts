import type { NotificationChannel, Settings } from './contracts/settings.js';

/** The parts of the settings that decide whether a channel's notifications can arrive. */
export type ForwardingSettings = Pick<
  Settings,
  'twitterConnected' | 'telegramConnected' | 'discordConnected' | 'botRunning'
> & {
  telegram: Pick<Settings['telegram'], 'available' | 'stoppedReason'>;
  discord: Pick<Settings['discord'], 'available' | 'stoppedReason'>;
};

const LABELS: Record<NotificationChannel, string> = { telegram: 'Telegram', discord: 'Discord' };

/** Texts of a per-handle switch whose notifications cannot arrive, and what to do about it. */
export const FORWARDING_MESSAGES = {
  channelUnavailable: (channel: NotificationChannel) =>
    `${LABELS[channel]} is not set up on this server: ask the operator to set ${channel.toUpperCase()}_BOT_TOKEN`,
  connectChannel: (channel: NotificationChannel) =>
    `Connect ${LABELS[channel]} in Settings to receive notifications`,
  connectX: 'Connect your X account in Settings to receive notifications',
  stopped: (channel: NotificationChannel, reason: string) =>
    `${LABELS[channel]} delivery stopped: ${reason}`,
  forwardingOff: 'Forwarding is off: start it in Settings to receive notifications',
} as const;

/**
 * Why notifications on `channel` cannot arrive right now, or null when they can: the server has
 * no bot for it, the channel or the X account is not connected, delivery to it stopped (a
 * blocked bot), or the forwarder is not running. The first reason that applies is given.
 */
export function forwardingBlocker(
  settings: ForwardingSettings,
  channel: NotificationChannel,
): string | null {
  const status = settings[channel];
  if (!status.available) return FORWARDING_MESSAGES.channelUnavailable(channel);
  const connected = channel === 'telegram' ? settings.telegramConnected : settings.discordConnected;
  if (!connected) return FORWARDING_MESSAGES.connectChannel(channel);
  if (!settings.twitterConnected) return FORWARDING_MESSAGES.connectX;
  if (status.stoppedReason) return FORWARDING_MESSAGES.stopped(channel, status.stoppedReason);
  if (!settings.botRunning) return FORWARDING_MESSAGES.forwardingOff;
  return null;
}

/**
 * Why new posts cannot go to the user's webhooks right now, or null when they can: the X account
 * is not connected, or the forwarder is not running, as for Telegram and Discord. (Whether an
 * endpoint exists and takes requests is Settings → Webhooks' to show.)
 */
export function webhookForwardingBlocker(settings: ForwardingSettings): string | null {
  if (!settings.twitterConnected) return FORWARDING_MESSAGES.connectX;
  if (!settings.botRunning) return FORWARDING_MESSAGES.forwardingOff;
  return null;
}
