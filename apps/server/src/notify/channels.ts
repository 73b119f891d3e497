import type { Cluster } from '../cluster/cluster.js';
import type { Config } from '../config.js';
import type { NotificationChannel } from '../db/types.js';
import { createDiscordClient, type DmChannelStore } from './discord/discord-client.js';
import { discordMessage } from './format/discord-format.js';
import type { PlainMessage } from './format/fallback-format.js';
import { telegramMessages, type TelegramOutgoing } from './format/telegram-format.js';
import { createDiscordRateGate, createTelegramRateGate, type RateGate } from './rate-gate.js';
import { createTelegramClient, sendTelegramOutgoing } from './telegram/telegram-client.js';
import type { DiscordClient, DiscordEmbedMessage, TelegramClient, TweetNotice } from './types.js';
import { createTokenCipher } from '../lib/token-cipher.js';
import { VERSION } from '../lib/server-package.js';
import { addressPolicyFrom } from './webhook/address-policy.js';
import { webhookSecretContext } from './webhook/secret.js';
import { createWebhookClient, type WebhookClient } from './webhook/webhook-sender.js';

/**
 * The two messaging services with the rate gates their clients pace through. The delivery
 * worker reads the same gates to claim only deliveries that can go out now, so a busy chat
 * never holds a slot that another chat could use.
 */
export interface NotifyChannels {
  telegram: TelegramClient;
  discord: DiscordClient;
  telegramGate?: RateGate;
  discordGate?: RateGate;
  /** Signed HTTPS requests to users' endpoints; left out, webhook deliveries wait. */
  webhook?: WebhookChannelClient;
}

/** The webhook client with the key that opens the endpoints' sealed secrets. */
export interface WebhookChannelClient {
  client: WebhookClient;
  /** An endpoint's signing secret from its sealed form (webhook_endpoints.secret_sealed). */
  openSecret(sealed: string, endpointId: number): string;
}

/** The real clients, from TELEGRAM_* and DISCORD_* (unavailable without their tokens). */
export function createNotifyChannels(
  config: Pick<
    Config,
    | 'TELEGRAM_BOT_TOKEN'
    | 'TELEGRAM_API_BASE_URL'
    | 'DISCORD_BOT_TOKEN'
    | 'DISCORD_API_BASE_URL'
    | 'WEBHOOK_ALLOW_LOOPBACK'
    | 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'
    | 'SECRET_KEY'
    | 'DATA_DIR'
  >,
  options: { share?: () => number; dmChannelStore?: DmChannelStore } = {},
): NotifyChannels {
  // Scale-out: `share` is how many processes deliver with these tokens; each keeps to its part
  // of the services' overall limits.
  const telegramGate = createTelegramRateGate({ share: options.share });
  const discordGate = createDiscordRateGate({ share: options.share });
  return {
    telegram: createTelegramClient({
      token: config.TELEGRAM_BOT_TOKEN,
      baseUrl: config.TELEGRAM_API_BASE_URL,
      rateGate: telegramGate,
    }),
    discord: createDiscordClient({
      token: config.DISCORD_BOT_TOKEN,
      baseUrl: config.DISCORD_API_BASE_URL,
      rateGate: discordGate,
      dmChannelStore: options.dmChannelStore,
    }),
    telegramGate,
    discordGate,
    webhook: webhookChannelClient(config),
  };
}

/** Webhooks with the operator's address policy, their secrets opened with the stored key. */
export function webhookChannelClient(
  config: Pick<
    Config,
    'WEBHOOK_ALLOW_LOOPBACK' | 'WEBHOOK_ALLOW_PRIVATE_NETWORKS' | 'SECRET_KEY' | 'DATA_DIR'
  >,
): WebhookChannelClient {
  const cipher = createTokenCipher({ secretKey: config.SECRET_KEY, dataDir: config.DATA_DIR });
  return {
    client: createWebhookClient({ policy: addressPolicyFrom(config), version: VERSION }),
    openSecret: (sealed, endpointId) => cipher.decrypt(sealed, webhookSecretContext(endpointId)),
  };
}

/** A DM channel stays the same for a user and bot; kept a day, re-opened if Discord forgets it. */
const DM_CHANNEL_TTL_MS = 24 * 60 * 60 * 1000;

/** Discord DM channel ids shared through the cluster (Redis in scale-out mode). */
export function clusterDmChannelStore(
  cluster: Pick<Cluster, 'remember' | 'recall' | 'forget'>,
): DmChannelStore {
  return {
    get: (userId) => cluster.recall(`discord-dm:${userId}`),
    set: (userId, channelId) =>
      cluster.remember(`discord-dm:${userId}`, channelId, DM_CHANNEL_TTL_MS),
    delete: (userId) => cluster.forget(`discord-dm:${userId}`),
  };
}

/** One message of a notification, as its channel sends it. */
export type NoticePart =
  | { channel: 'telegram'; message: TelegramOutgoing }
  | { channel: 'discord'; message: DiscordEmbedMessage };

/**
 * The messages a notice becomes on a channel, in sending order. Telegram may need several (a
 * photo and then the text, or a long text in parts); Discord always one embed.
 */
export function noticeParts(channel: NotificationChannel, notice: TweetNotice): NoticePart[] {
  if (channel === 'telegram') {
    return telegramMessages(notice).map((message) => ({ channel, message }));
  }
  return [{ channel, message: discordMessage(notice) }];
}

/**
 * Sends one part to a user's chat (Telegram) or user id (Discord, through their DM channel).
 * `nonce` (Discord only) makes a resend of the same part, e.g. after a crash, a no-op.
 */
export async function sendPart(
  channels: NotifyChannels,
  target: string,
  part: NoticePart,
  signal?: AbortSignal,
  nonce?: string,
): Promise<void> {
  if (part.channel === 'telegram') {
    await sendTelegramOutgoing(channels.telegram, target, part.message, signal);
    return;
  }
  const dm = await channels.discord.openDm(target, signal);
  await channels.discord.send(dm, part.message, signal, nonce);
}

/** Sends a fallback or digest message (plain text with links). */
export async function sendPlain(
  channels: NotifyChannels,
  target: string,
  message: PlainMessage,
  signal?: AbortSignal,
  nonce?: string,
): Promise<void> {
  if (message.channel === 'telegram') {
    await channels.telegram.sendMessage(target, message.html, signal);
    return;
  }
  const dm = await channels.discord.openDm(target, signal);
  await channels.discord.send(dm, message.message, signal, nonce);
}

export const channelAvailable = (channels: NotifyChannels, channel: NotificationChannel) =>
  channels[channel].available;
