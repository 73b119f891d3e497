import {
  DEFAULT_NOTIFICATION_PREFERENCES,
  WEBHOOKS_PER_USER,
  type BotStatus,
  type Delivery,
  type Settings,
} from '@perch/shared';
import { ok, type StubHandler, type StubRequest } from '@/test/fetch-stub';

type SettingsOverrides = Omit<Partial<Settings>, 'telegram' | 'discord'> & {
  telegram?: Partial<Settings['telegram']>;
  discord?: Partial<Settings['discord']>;
};

/** Settings as the server answers them: nothing connected, both channels set up. */
export function makeSettings(overrides: SettingsOverrides = {}): Settings {
  const { telegram, discord, ...rest } = overrides;
  const settings: Settings = {
    status: 'unconfigured',
    twitter_username: null,
    telegram_chat_id: null,
    discord_user_id: null,
    twitterConnected: false,
    telegramConnected: false,
    discordConnected: false,
    twitterConnection: 'none',
    botRunning: false,
    telegram: {
      available: true,
      stoppedReason: null,
      hint: null,
      botUsername: 'perch_test_bot',
      linkAvailable: true,
      ...telegram,
    },
    discord: { available: true, stoppedReason: null, hint: null, ...discord },
    ...rest,
  };
  return withDerived(settings);
}

/** The derived flags, as the server computes them. */
function withDerived(settings: Settings): Settings {
  const twitterConnected = settings.twitter_username !== null;
  const telegramConnected = settings.telegram_chat_id !== null;
  const discordConnected = settings.discord_user_id !== null;
  return {
    ...settings,
    twitterConnected,
    telegramConnected,
    discordConnected,
    twitterConnection: twitterConnected
      ? settings.twitterConnection === 'none'
        ? 'username'
        : settings.twitterConnection
      : 'none',
    status:
      twitterConnected && (telegramConnected || discordConnected) ? 'configured' : 'unconfigured',
  };
}

export function botStatusOf(settings: Settings): BotStatus {
  return {
    botRunning: settings.botRunning,
    status: settings.botRunning ? 'running' : 'stopped',
    canStart: settings.status === 'configured',
    twitterConnected: settings.twitterConnected,
    telegramConnected: settings.telegramConnected,
    discordConnected: settings.discordConnected,
  };
}

let nextDeliveryId = 1;

export function makeDelivery(overrides: Partial<Delivery> = {}): Delivery {
  const id = overrides.id ?? nextDeliveryId++;
  return {
    id,
    channel: 'telegram',
    status: 'sent',
    handle: 'nasa',
    tweetId: `17000000000000${id}`,
    tweetUrl: `https://x.com/nasa/status/17000000000000${id}`,
    excerpt: 'Liftoff! The crew is on its way.',
    attempts: 1,
    error: null,
    note: null,
    createdAt: '2025-03-10T12:00:00.000Z',
    sentAt: '2025-03-10T12:00:01.000Z',
    nextAttemptAt: null,
    ...overrides,
  };
}

export const healthOk: StubHandler = () =>
  ok({
    status: 'ok',
    database: 'ok',
    uptimeSeconds: 12,
    version: '0.1.0',
    timestamp: '2025-03-10T12:00:00.000Z',
  });

/**
 * A little settings server: GET and POST /settings over one record (an empty string
 * disconnects), the bot status of that record, health, the X account status, the log, and empty
 * webhooks, handles and default notification preferences (webhooksServer serves real ones).
 */
export function settingsServer(initial: Settings = makeSettings()) {
  let current = initial;
  const apply = (request: StubRequest) => {
    const body = request.body as Record<string, string | undefined>;
    const value = (field: string | undefined, before: string | null) =>
      field === undefined ? before : field === '' ? null : field.replace(/^@+/, '').trim();
    current = withDerived({
      ...current,
      telegram_chat_id: value(body.telegram_chat_id, current.telegram_chat_id),
      discord_user_id: value(body.discord_user_id, current.discord_user_id),
      twitter_username: value(body.twitter_username, current.twitter_username),
    });
    // Like the server: the bot starts once it can run and stops once it no longer can.
    current = { ...current, botRunning: current.status === 'configured' };
    return current;
  };
  const handlers: Record<string, StubHandler> = {
    'GET /api/v1/settings': () => ok({ settings: current }),
    'POST /api/v1/settings': (request) => ok({ settings: apply(request) }),
    'GET /api/v1/bot/status': () => ok(botStatusOf(current)),
    'GET /api/v1/health': healthOk,
    'GET /api/v1/auth/twitter/status': () =>
      ok({
        available: false,
        connected: current.twitterConnected,
        username: current.twitter_username,
        connectedAt: null,
        method: current.twitterConnected ? 'manual' : null,
      }),
    'GET /api/v1/settings/deliveries': () => ok({ deliveries: [] }),
    'GET /api/v1/settings/feeds': () => ok({ createdAt: '2025-03-10T12:00:00.000Z', feeds: [] }),
    // The Webhooks and "What is forwarded" cards: nothing added, everything forwarded.
    'GET /api/v1/webhooks': () => ok({ endpoints: [], limit: WEBHOOKS_PER_USER }),
    'GET /api/v1/handles': () => ok({ handles: [] }),
    'GET /api/v1/settings/notifications': () =>
      ok({ preferences: DEFAULT_NOTIFICATION_PREFERENCES }),
  };
  return {
    handlers,
    get current() {
      return current;
    },
    set(next: Settings) {
      current = withDerived(next);
    },
  };
}
