/**
 * The Telegram and Discord clients of the notify tests, on their loopback fakes. Imports only the
 * server's code, so a worker process of the multi-process tests (test/fixtures) uses it too.
 */
import type { NotifyChannels } from '../src/notify/channels.js';
import { createDiscordClient } from '../src/notify/discord/discord-client.js';
import {
  createDiscordRateGate,
  createRateGate,
  createTelegramRateGate,
} from '../src/notify/rate-gate.js';
import { createTelegramClient } from '../src/notify/telegram/telegram-client.js';

/** Where a fake (or the real service) answers, and the bot token it takes. */
interface Service {
  token: string;
  baseUrl: string;
}

/** Clients of the fakes; `fast` gives them gates far above the services' limits. */
export function channelsFor(
  telegram: Service,
  discord: Service,
  options: { fast?: boolean; ratePerSecond?: number; withoutTokens?: boolean } = {},
): NotifyChannels {
  const rate = options.ratePerSecond ?? 10_000;
  const telegramGate = options.fast
    ? createRateGate({ perSecond: rate, perKeyPerSecond: rate })
    : createTelegramRateGate();
  const discordGate = options.fast ? createRateGate({ perSecond: rate }) : createDiscordRateGate();
  return {
    telegram: createTelegramClient({
      token: options.withoutTokens ? undefined : telegram.token,
      baseUrl: telegram.baseUrl,
      rateGate: telegramGate,
      requestTimeoutMs: 2_000,
    }),
    discord: createDiscordClient({
      token: options.withoutTokens ? undefined : discord.token,
      baseUrl: discord.baseUrl,
      rateGate: discordGate,
      requestTimeoutMs: 2_000,
    }),
    telegramGate,
    discordGate,
  };
}
