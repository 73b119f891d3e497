import { z } from 'zod';
import { HANDLE_PATTERN, normalizeHandle } from '../handles.js';
import { handleSchema } from './handles.js';

/**
 * Settings, notification channels, per-handle toggles, the user's forwarder ("bot") and the
 * delivery log (docs/spec-notes.md: Settings rules, Field rules, Error texts).
 */

export const NOTIFICATION_CHANNELS = ['telegram', 'discord'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

/** The Twitter username that counts as not set. */
export const PLACEHOLDER_TWITTER_USERNAME = 'placeholder_username';

/** Client timings of the Settings page. */
export const SETTINGS_FETCH_MIN_GAP_MS = 5_000;
export const SETTINGS_CACHE_MS = 30_000;
export const COMPONENT_STATUS_CACHE_MS = 60 * 60 * 1000;
export const BOT_AUTO_START_DELAY_MS = 5_000;
/** Local Discord messages clear after this long. */
export const DISCORD_MESSAGE_CLEAR_MS = 4_000;
export const SUCCESS_BANNER_MS = 5_000;
/** A one-click Telegram link works this long, once. */
export const TELEGRAM_LINK_TTL_MS = 15 * 60 * 1000;

/**
 * Every human text of the settings and notifications area: the spec's own
 * (docs/spec-notes.md, Error texts) and the few this product adds (marked "ours"). Server and
 * web show the same words.
 */
export const SETTINGS_MESSAGES = {
  fetchFailed: 'Failed to fetch settings',
  apiConnectionIssue: 'API connection issue detected!',

  telegramSaved: 'Telegram settings saved successfully.',
  telegramSaveFailed: 'Failed to save Telegram settings.',
  telegramDisconnected: 'Telegram disconnected successfully!',
  telegramDisconnectFailed: 'Failed to disconnect Telegram.',
  telegramTestSuccess:
    'Telegram test successful! You should receive a test message in your Telegram client.',
  telegramTestChatNotFound: 'Test message failed. Please double-check the Chat ID...',
  telegramTestBlocked:
    'The bot has been blocked by the user. Please unblock our bot in Telegram and try again.',
  telegramTestError: (message: string) => `Error testing Telegram connection: ${message}`,
  telegramChatIdRequired: 'Please enter a valid Telegram Chat ID',
  telegramChatIdNumeric: 'Please use your numeric Chat ID, not your username.',

  discordSaved: 'Discord settings saved successfully.',
  discordSaveFailed: 'Failed to save Discord settings.',
  discordDisconnected: 'Discord disconnected successfully.',
  discordDisconnectFailed: 'Failed to disconnect from Discord.',
  discordTestSuccess: 'Discord test connection successful! Please check your DMs.',
  discordTestFailed: 'Failed to test Discord connection.',
  discordUserIdRequired: 'Please enter your Discord User ID',
  discordUserIdRequiredForTest: 'Please enter your Discord User ID to test',
  /** Ours: a Discord user id is a snowflake of 17-20 digits. */
  discordUserIdInvalid: 'Please enter a valid Discord User ID (17 to 20 digits).',

  connectTelegramFirst: 'Please connect Telegram in Settings first',
  connectDiscordFirst: 'Please connect Discord in Settings first',
  toggleFailed: (channel: NotificationChannel) => `Failed to toggle ${channel} notification`,
  /** Ours: the answer of PUT /handles/{id}/notifications. */
  toggled: (channel: NotificationChannel | 'webhook', enabled: boolean, handle: string) =>
    `${channel === 'telegram' ? 'Telegram' : channel === 'discord' ? 'Discord' : 'Webhook'} notifications ${
      enabled ? 'enabled' : 'disabled'
    } for @${handle}`,

  botStartRequirements:
    'Twitter account and at least one notification channel (Telegram or Discord) must be configured first',
  botApiConfiguration:
    "API configuration issue: The server doesn't support the requested operation.",
  botNetworkError: 'Network error: Unable to connect to the API server.',
  botStartFailed: (message: string) => `Failed to start bot: ${message}`,
  botInvalidResponse: 'Invalid response from server when starting bot',
  /** Ours. */
  botStarted: 'Bot started: new tweets of your monitored handles will be forwarded.',
  botAlreadyRunning: 'Bot is already running.',

  /** Ours: POST /settings with twitter_username. */
  twitterSaved: 'Twitter account saved successfully.',
  twitterDisconnected: 'Twitter account disconnected successfully.',
  invalidTwitterUsername: 'Invalid Twitter handle provided',
  /** Ours: GET/PUT /settings/notifications. */
  preferencesSaved: 'Notification settings saved successfully.',
  nothingToSave: 'Nothing to save: send telegram_chat_id, discord_user_id or twitter_username.',

  /** Ours: a channel without its bot token on this server (a hint for the operator). */
  telegramUnavailable:
    'Telegram is not set up on this server. Ask the operator to set TELEGRAM_BOT_TOKEN.',
  discordUnavailable:
    'Discord is not set up on this server. Ask the operator to set DISCORD_BOT_TOKEN.',
  /** Ours: one-click Telegram linking. */
  telegramLinkReady:
    'Open the link and press Start in Telegram: your chat connects automatically within a few seconds.',
  telegramLinkConnected: (chatId: string) =>
    `Connected! Perch will send notifications to this chat (Chat ID ${chatId}).`,
  telegramLinkInvalid:
    'This link has expired or was already used. Open Perch Settings and create a new one.',
  telegramChatIdReply: (chatId: string) =>
    `Your Chat ID is ${chatId}. Enter it on the Perch Settings page, or use the one-click link there.`,
  invalidTelegramUsername: 'Please enter a valid Telegram username (5-32 letters, digits or _).',
  /** Ours: why delivery to a channel stopped (shown on the Settings page). */
  telegramBlockedReason:
    'The bot was blocked in Telegram. Unblock it, then save your Chat ID again to resume.',
} as const;

/** Text of the test message each channel receives. */
export const TEST_MESSAGE_TEXT =
  'Perch test message: notifications for your monitored handles will arrive here.';

// ---------------------------------------------------------------------------------------------
// Field rules (docs/spec-notes.md, Field rules)
// ---------------------------------------------------------------------------------------------

/** Removes leading @ signs and surrounding white space, as the chat id rule says. */
export function normalizeTelegramChatId(input: string): string {
  return input.trim().replace(/^@+/, '').trim();
}

/**
 * A Telegram chat id: leading @ stripped and trimmed; empty -> 'Please enter a valid Telegram
 * Chat ID'; any letter -> 'Please use your numeric Chat ID, not your username.'; then an
 * integer (negative for groups).
 */
export const telegramChatIdSchema = z
  .string({ error: SETTINGS_MESSAGES.telegramChatIdRequired })
  .max(64, SETTINGS_MESSAGES.telegramChatIdRequired)
  .transform(normalizeTelegramChatId)
  .pipe(
    z
      .string()
      .min(1, SETTINGS_MESSAGES.telegramChatIdRequired)
      .regex(/^[^\p{L}]*$/u, SETTINGS_MESSAGES.telegramChatIdNumeric)
      .regex(/^-?\d{1,20}$/, SETTINGS_MESSAGES.telegramChatIdRequired),
  );

/** A Discord user id: trimmed, required, a snowflake of 17-20 digits. */
export const discordUserIdSchema = z
  .string({ error: SETTINGS_MESSAGES.discordUserIdRequired })
  .max(64, SETTINGS_MESSAGES.discordUserIdInvalid)
  .trim()
  .min(1, SETTINGS_MESSAGES.discordUserIdRequired)
  .regex(/^\d{17,20}$/, SETTINGS_MESSAGES.discordUserIdInvalid);

/** The user's own X username when typed by hand (no OAuth): the X handle rule, @ removed. */
export const twitterUsernameSchema = z
  .string({ error: SETTINGS_MESSAGES.invalidTwitterUsername })
  .max(64, SETTINGS_MESSAGES.invalidTwitterUsername)
  .transform(normalizeHandle)
  .pipe(z.string().regex(HANDLE_PATTERN, SETTINGS_MESSAGES.invalidTwitterUsername));

/** A Telegram username (for POST /notifications/telegram): @ removed, 5-32 of [A-Za-z0-9_]. */
export const telegramUsernameSchema = z
  .string({ error: SETTINGS_MESSAGES.invalidTelegramUsername })
  .max(64, SETTINGS_MESSAGES.invalidTelegramUsername)
  .transform(normalizeHandle)
  .pipe(z.string().regex(/^[A-Za-z0-9_]{5,32}$/, SETTINGS_MESSAGES.invalidTelegramUsername));

/** `''` (or null) disconnects the channel; anything else must pass the field rule. */
const orDisconnect = <T extends z.ZodType<string>>(schema: T) =>
  z.union([z.literal('').transform(() => null), z.null(), schema]);

// ---------------------------------------------------------------------------------------------
// GET /settings, POST /settings
// ---------------------------------------------------------------------------------------------

/** One notification channel as this server and this user have it. */
export const channelStatusSchema = z.object({
  /** The server has the channel's bot token (TELEGRAM_BOT_TOKEN / DISCORD_BOT_TOKEN). */
  available: z.boolean(),
  /** Why delivery stopped for good (e.g. the bot was blocked), or null while it works. */
  stoppedReason: z.string().nullable(),
  /** When unavailable: what the operator has to do. */
  hint: z.string().nullable(),
});

export const telegramChannelStatusSchema = channelStatusSchema.extend({
  /** The bot's username (for t.me links), when the bot is reachable. */
  botUsername: z.string().nullable(),
  /**
   * One-click linking works: the bot is set up and its username known. The link itself comes
   * from POST /settings/telegram/link (a one-time code is minted per request, never on GET).
   */
  linkAvailable: z.boolean(),
});

/** GET /settings. */
export const settingsSchema = z.object({
  /** 'configured' when Twitter and at least one channel are connected (the bot can start). */
  status: z.enum(['configured', 'unconfigured']),
  /** The connected X account (OAuth) or the typed username; null when not set. */
  twitter_username: z.string().nullable(),
  telegram_chat_id: z.string().nullable(),
  discord_user_id: z.string().nullable(),
  /** False for no username and for 'placeholder_username'. */
  twitterConnected: z.boolean(),
  telegramConnected: z.boolean(),
  discordConnected: z.boolean(),
  /** How Twitter is connected: through X OAuth, by a typed username, or not. */
  twitterConnection: z.enum(['oauth', 'username', 'none']),
  /** The user's forwarder runs: new tweets are delivered to connected, enabled channels. */
  botRunning: z.boolean(),
  telegram: telegramChannelStatusSchema,
  discord: channelStatusSchema,
});
export type Settings = z.infer<typeof settingsSchema>;
export const settingsResponseSchema = z.object({ settings: settingsSchema });

/**
 * POST /settings: any of the three fields; `''` (or null) disconnects. The answer's message is
 * the spec's text of the first field sent (telegram, discord, twitter order).
 */
export const saveSettingsRequestSchema = z
  .object({
    telegram_chat_id: orDisconnect(telegramChatIdSchema).optional(),
    discord_user_id: orDisconnect(discordUserIdSchema).optional(),
    /** 'placeholder_username' is the legacy client's "not set": it disconnects too. */
    twitter_username: z
      .union([
        z.literal(PLACEHOLDER_TWITTER_USERNAME).transform(() => null),
        orDisconnect(twitterUsernameSchema),
      ])
      .optional(),
  })
  .refine(
    (body) =>
      body.telegram_chat_id !== undefined ||
      body.discord_user_id !== undefined ||
      body.twitter_username !== undefined,
    { message: SETTINGS_MESSAGES.nothingToSave },
  );
export type SaveSettingsRequest = z.input<typeof saveSettingsRequestSchema>;

// ---------------------------------------------------------------------------------------------
// GET/PUT /settings/notifications
// ---------------------------------------------------------------------------------------------

/** What kinds of tweets are forwarded (the fan-out obeys them). All on by default. */
export const notificationPreferencesSchema = z.object({
  /** Replies to other accounts (a handle's replies inside its own thread always count). */
  include_replies: z.boolean(),
  /** Retweets. */
  include_retweets: z.boolean(),
  /** Quote tweets. */
  include_quotes: z.boolean(),
});
export type NotificationPreferences = z.infer<typeof notificationPreferencesSchema>;
export const DEFAULT_NOTIFICATION_PREFERENCES: NotificationPreferences = {
  include_replies: true,
  include_retweets: true,
  include_quotes: true,
};
/** PUT /settings/notifications: any subset; the rest stays. */
export const updateNotificationPreferencesSchema = notificationPreferencesSchema.partial();
export const notificationPreferencesResponseSchema = z.object({
  preferences: notificationPreferencesSchema,
});

// ---------------------------------------------------------------------------------------------
// Tests, one-click linking, /notifications/*
// ---------------------------------------------------------------------------------------------

/** POST /settings/telegram/test. */
export const telegramTestRequestSchema = z.object({ chat_id: telegramChatIdSchema });
/** POST /test-telegram (alias). */
export const telegramTestAliasRequestSchema = z.object({ telegram_chat_id: telegramChatIdSchema });
const discordTestIdSchema = z
  .string({ error: SETTINGS_MESSAGES.discordUserIdRequiredForTest })
  .trim()
  .min(1, SETTINGS_MESSAGES.discordUserIdRequiredForTest)
  .pipe(discordUserIdSchema);
/** POST /settings/discord/test and POST /test-discord. */
export const discordTestRequestSchema = z.object({ discord_user_id: discordTestIdSchema });

/** A test that went through: the success envelope's message says so. */
export const channelTestResponseSchema = z.object({
  status: z.literal('ok'),
  channel: z.enum(NOTIFICATION_CHANNELS),
});

/** POST /settings/telegram/link and POST /notifications/telegram. */
export const telegramLinkSchema = z.object({
  /** https://t.me/<bot>?start=<one-time code>: open it and press Start. */
  url: z.string(),
  botUsername: z.string(),
  expiresAt: z.string(),
  /** What to do, in one sentence. */
  instructions: z.string(),
});
export type TelegramLink = z.infer<typeof telegramLinkSchema>;

/**
 * POST /notifications/telegram {username}: the Bot API cannot find a chat by username, so this
 * answers with a one-click link (a bot can only message a user who pressed Start).
 */
export const telegramByUsernameRequestSchema = z.object({ username: telegramUsernameSchema });
/** POST /notifications/discord {discord_user_id}: saves the Discord id. */
export const discordNotificationRequestSchema = z.object({
  discord_user_id: discordUserIdSchema,
});

// ---------------------------------------------------------------------------------------------
// PUT /handles/{id}/notifications
// ---------------------------------------------------------------------------------------------

export const handleNotificationsRequestSchema = z
  .object({
    telegramEnabled: z.boolean().optional(),
    discordEnabled: z.boolean().optional(),
    webhookEnabled: z.boolean().optional(),
  })
  .refine(
    (body) =>
      body.telegramEnabled !== undefined ||
      body.discordEnabled !== undefined ||
      body.webhookEnabled !== undefined,
    { message: 'Send telegramEnabled, discordEnabled or webhookEnabled.' },
  );
export type HandleNotificationsRequest = z.input<typeof handleNotificationsRequestSchema>;
export const handleNotificationsResponseSchema = z.object({ handle: handleSchema });

// ---------------------------------------------------------------------------------------------
// Bot
// ---------------------------------------------------------------------------------------------

/** POST /bot/start and GET /bot/status. */
export const botStatusSchema = z.object({
  botRunning: z.boolean(),
  status: z.enum(['running', 'stopped']),
  /** Twitter and at least one channel are connected. */
  canStart: z.boolean(),
  twitterConnected: z.boolean(),
  telegramConnected: z.boolean(),
  discordConnected: z.boolean(),
});
export type BotStatus = z.infer<typeof botStatusSchema>;

// ---------------------------------------------------------------------------------------------
// GET /settings/deliveries: the delivery log
// ---------------------------------------------------------------------------------------------

export const DELIVERY_STATUSES = [
  'pending',
  'sending',
  'sent',
  'failed',
  'cancelled',
  'expired',
  /** Held back by the user's notification filter of the handle (never sent; `note` says why). */
  'filtered',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const DELIVERY_LOG_DEFAULT_LIMIT = 20;
export const DELIVERY_LOG_MAX_LIMIT = 100;

/** Where a logged delivery went: a messaging service, or (any of) the user's webhooks. */
export const DELIVERY_CHANNELS = [...NOTIFICATION_CHANNELS, 'webhook'] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];

export const deliveryLogQuerySchema = z.object({
  channel: z.enum(DELIVERY_CHANNELS).optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(DELIVERY_LOG_MAX_LIMIT)
    .default(DELIVERY_LOG_DEFAULT_LIMIT),
});

export const deliverySchema = z.object({
  id: z.number().int(),
  channel: z.enum(DELIVERY_CHANNELS),
  /** For a webhook delivery: the endpoint's name (null once it was deleted). */
  webhookName: z.string().nullable().optional(),
  /** For an alert's delivery: the rule and what happened; the post fields are its post's. */
  alert: z.object({ ruleName: z.string(), summary: z.string() }).nullable().optional(),
  status: z.enum(DELIVERY_STATUSES),
  handle: z.string(),
  tweetId: z.string(),
  tweetUrl: z.string(),
  /** The first 140 characters of the tweet, when it is still stored. */
  excerpt: z.string().nullable(),
  attempts: z.number().int(),
  /** Why it is not sent yet or never will be (the service's last failure, expiry), if any. */
  error: z.string().nullable(),
  /**
   * How a sent delivery went when not as itself (as plain text, in a digest), or why the user's
   * filter held a 'filtered' one back.
   */
  note: z.string().nullable(),
  createdAt: z.string(),
  sentAt: z.string().nullable(),
  /** When a pending delivery is tried next. */
  nextAttemptAt: z.string().nullable(),
});
export type Delivery = z.infer<typeof deliverySchema>;
export const deliveryLogResponseSchema = z.object({ deliveries: z.array(deliverySchema) });
