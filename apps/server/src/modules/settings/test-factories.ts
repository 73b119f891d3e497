import type { Db } from '../../db/index.js';
import type { NotifyChannels } from '../../notify/channels.js';
import { createDiscordClient } from '../../notify/discord/discord-client.js';
import type { TelegramClient } from '../../notify/types.js';
import { TelegramUpdatesPoller, type TelegramUpdatesOptions } from './telegram-updates.js';

/**
 * An updates poller on `telegram` alone (Discord is not set up) and no database: only what
 * needs none, like `/id`, may be sent to it. Not started yet.
 */
export function telegramOnlyPoller(
  telegram: TelegramClient,
  options: Omit<TelegramUpdatesOptions, 'db' | 'channels'>,
): TelegramUpdatesPoller {
  const channels = {
    telegram,
    discord: createDiscordClient({ token: undefined, baseUrl: 'http://127.0.0.1:9' }),
  } as NotifyChannels;
  return new TelegramUpdatesPoller({ db: {} as Db, channels, ...options });
}
