import {
  PLACEHOLDER_TWITTER_USERNAME,
  SETTINGS_MESSAGES,
  TELEGRAM_LINK_TTL_MS,
  TEST_MESSAGE_TEXT,
  type BotStatus,
  type Delivery,
  type Handle,
  type NotificationChannel,
  type NotificationPreferences,
  type Settings,
  type TelegramLink,
} from '@perch/shared';
import type { Db } from '../../db/index.js';
import { AppError, badRequest, conflict, notFound } from '../../lib/errors.js';
import { randomToken, sha256Hex } from '../../lib/tokens.js';
import type { NotifyChannels } from '../../notify/channels.js';
import { DISCORD_BAD_TOKEN, DISCORD_NOT_SET_UP } from '../../notify/discord/discord-client.js';
import { escapeHtml } from '../../notify/format/telegram-html.js';
import {
  cancelPendingDeliveries,
  cancelPendingForHandle,
  listDeliveries,
} from '../../notify/outbox.repository.js';
import { parsePreferences } from '../../notify/preferences.js';
import { TELEGRAM_BAD_TOKEN, TELEGRAM_NOT_SET_UP } from '../../notify/telegram/telegram-client.js';
import { DeliveryError } from '../../notify/types.js';
import { findLinkedHandle } from '../handles/handles.repository.js';
import { HANDLE_NOT_FOUND, toHandle } from '../handles/handles.service.js';
import type { UserRow } from '../users/users.repository.js';
import {
  consumeLinkCode,
  findLinkCodeUser,
  findUserSettings,
  findXAccountUsername,
  insertLinkCode,
  resumeTelegramChat,
  setHandleNotifications as writeHandleNotifications,
  startReadyBots,
  stopChannel,
  upsertUserSettings,
  usersWithTelegramChat,
  type UserSettingsRow,
  type UserSettingsUpdate,
} from './settings.repository.js';

/** What the settings rules need besides the database. */
export interface SettingsDeps {
  db: Db;
  channels: NotifyChannels;
  /** Tells the delivery worker to look for work now (optional: without one it ticks). */
  wakeWorker?: () => void;
  /** One per app: repeated identical tests send one message. */
  duplicateTests?: DuplicateTestGuard;
  now?: () => Date;
}

/** A repeated test within this long of a successful one is not sent again. */
export const DUPLICATE_TEST_WINDOW_MS = 2_000;

/** How long GET /settings waits for the bot's username before answering without it. */
const BOT_LOOKUP_TIMEOUT_MS = 3_000;
const CHANNEL_NAMES: Record<NotificationChannel, string> = {
  telegram: 'Telegram',
  discord: 'Discord',
};

const nowOf = (deps: Pick<SettingsDeps, 'now'>) => (deps.now ?? (() => new Date()))();

/** The connection state a settings row (and an OAuth-connected X account) adds up to. */
export interface Connections {
  twitterUsername: string | null;
  twitterConnection: 'oauth' | 'username' | 'none';
  twitterConnected: boolean;
  telegramConnected: boolean;
  discordConnected: boolean;
  canStart: boolean;
}

export function connectionsOf(
  row: UserSettingsRow | undefined,
  xUsername: string | null,
): Connections {
  const typed = row?.twitter_username ?? null;
  const typedSet = typed !== null && typed !== '' && typed !== PLACEHOLDER_TWITTER_USERNAME;
  const twitterConnection = xUsername ? 'oauth' : typedSet ? 'username' : 'none';
  const twitterConnected = twitterConnection !== 'none';
  const telegramConnected = Boolean(row?.telegram_chat_id);
  const discordConnected = Boolean(row?.discord_user_id);
  return {
    twitterUsername: xUsername ?? (typedSet ? typed : null),
    twitterConnection,
    twitterConnected,
    telegramConnected,
    discordConnected,
    canStart: twitterConnected && (telegramConnected || discordConnected),
  };
}

async function loadState(db: Db, userId: number) {
  const [row, xUsername] = await Promise.all([
    findUserSettings(db.db, userId),
    findXAccountUsername(db.db, userId),
  ]);
  return { row, connections: connectionsOf(row, xUsername) };
}

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
  if (change.telegram_chat_id !== undefined) {
    values.telegram_chat_id = change.telegram_chat_id;
    values.telegram_stopped_reason = null;
    messages.push(
      change.telegram_chat_id === null
        ? SETTINGS_MESSAGES.telegramDisconnected
        : SETTINGS_MESSAGES.telegramSaved,
    );
  }
  if (change.discord_user_id !== undefined) {
    values.discord_user_id = change.discord_user_id;
    values.discord_stopped_reason = null;
    messages.push(
      change.discord_user_id === null
        ? SETTINGS_MESSAGES.discordDisconnected
        : SETTINGS_MESSAGES.discordSaved,
    );
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
  if (change.telegram_chat_id === null) {
    await cancelPendingDeliveries(deps.db, user.id, 'telegram', 'Telegram was disconnected');
  }
  if (change.discord_user_id === null) {
    await cancelPendingDeliveries(deps.db, user.id, 'discord', 'Discord was disconnected');
  }
  const state = await loadState(deps.db, user.id);
  const { connections } = state;
  let { row } = state;
  if (row?.bot_running && !connections.canStart) {
    row = await upsertUserSettings(deps.db.db, user.id, { bot_running: false, updated_at: now });
    await cancelPendingDeliveries(deps.db, user.id, null, 'The bot stopped');
  }
  deps.wakeWorker?.();
  const bot = await botUsername(deps.channels);
  return { settings: toSettings(row, connections, deps.channels, bot), message: messages[0]! };
}

// ---------------------------------------------------------------------------------------------
// Notification preferences
// ---------------------------------------------------------------------------------------------

export async function getPreferences(db: Db, user: UserRow): Promise<NotificationPreferences> {
  const row = await findUserSettings(db.db, user.id);
  return parsePreferences(row?.notification_preferences);
}

export async function updatePreferences(
  deps: SettingsDeps,
  user: UserRow,
  patch: Partial<NotificationPreferences>,
): Promise<NotificationPreferences> {
  const current = await getPreferences(deps.db, user);
  const next = { ...current, ...stripUndefined(patch) };
  await upsertUserSettings(deps.db.db, user.id, {
    notification_preferences: JSON.stringify(next),
    updated_at: nowOf(deps).toISOString(),
  });
  return next;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, item]) => item !== undefined),
  ) as Partial<T>;
}

// ---------------------------------------------------------------------------------------------
// Test messages
// ---------------------------------------------------------------------------------------------

/**
 * Repeated identical tests (a double click, a second tab) send one message: a test that is
 * running, or that succeeded less than `windowMs` ago (the spec's 2 s duplicate window), answers
 * the repeat too. A failure is forgotten at once, so "fix it and test again" always sends.
 */
export class DuplicateTestGuard {
  private readonly tests = new Map<string, Promise<void>>();

  constructor(private readonly windowMs = DUPLICATE_TEST_WINDOW_MS) {}

  run(key: string, send: () => Promise<void>): Promise<void> {
    const known = this.tests.get(key);
    if (known) return known;
    const started = send();
    this.tests.set(key, started);
    started.then(
      () => setTimeout(() => this.forget(key, started), this.windowMs).unref(),
      () => this.forget(key, started),
    );
    return started;
  }

  private forget(key: string, test: Promise<void>): void {
    if (this.tests.get(key) === test) this.tests.delete(key);
  }
}

const runOnce = (deps: SettingsDeps, key: string, send: () => Promise<void>) =>
  deps.duplicateTests ? deps.duplicateTests.run(key, send) : send();

function unavailable(channel: NotificationChannel): AppError {
  return conflict(
    channel === 'telegram'
      ? SETTINGS_MESSAGES.telegramUnavailable
      : SETTINGS_MESSAGES.discordUnavailable,
    `${channel.toUpperCase()}_UNAVAILABLE`,
  );
}

/** Permanent failures that are the operator's to fix, not the user's. */
const OPERATOR_REASONS = new Set([
  TELEGRAM_BAD_TOKEN,
  TELEGRAM_NOT_SET_UP,
  DISCORD_BAD_TOKEN,
  DISCORD_NOT_SET_UP,
]);

/** A refused token or an unreachable service is not the user's doing: 502, not 400. */
function upstreamStatus(error: DeliveryError): number {
  if (error.kind === 'rate_limited') return 429;
  if (error.kind === 'transient') return 502;
  return OPERATOR_REASONS.has(error.reason ?? '') ? 502 : 400;
}

function retryHeaders(error: DeliveryError): Record<string, string> | undefined {
  if (error.kind !== 'rate_limited') return undefined;
  return { 'retry-after': String(Math.max(1, Math.ceil((error.retryAfterMs ?? 1000) / 1000))) };
}

/** What the service said, without our 'Telegram: ' prefix. */
const serviceText = (error: Error, service: string) =>
  error.message.replace(new RegExp(`^${service}:\\s*`), '');

/** The spec's answer to a failed Telegram test (docs/spec-notes.md, Error texts). */
export function telegramTestError(error: unknown): AppError {
  if (!(error instanceof DeliveryError)) {
    const text = error instanceof Error ? error.message : String(error);
    return new AppError(502, 'TELEGRAM_TEST_FAILED', SETTINGS_MESSAGES.telegramTestError(text));
  }
  const said = serviceText(error, 'Telegram');
  if (/chat not found/i.test(said) || /^bad request/i.test(said)) {
    return new AppError(400, 'TELEGRAM_CHAT_NOT_FOUND', SETTINGS_MESSAGES.telegramTestChatNotFound);
  }
  if (/bot was blocked/i.test(said)) {
    return new AppError(400, 'TELEGRAM_BOT_BLOCKED', SETTINGS_MESSAGES.telegramTestBlocked);
  }
  return new AppError(
    upstreamStatus(error),
    'TELEGRAM_TEST_FAILED',
    SETTINGS_MESSAGES.telegramTestError(error.reason ?? said),
    undefined,
    retryHeaders(error),
  );
}

/** The spec's answer to a failed Discord test, with what Discord said in `details`. */
export function discordTestError(error: unknown): AppError {
  if (!(error instanceof DeliveryError)) {
    const text = error instanceof Error ? error.message : String(error);
    return new AppError(502, 'DISCORD_TEST_FAILED', SETTINGS_MESSAGES.discordTestFailed, text);
  }
  return new AppError(
    upstreamStatus(error),
    'DISCORD_TEST_FAILED',
    SETTINGS_MESSAGES.discordTestFailed,
    error.reason ?? serviceText(error, 'Discord'),
    retryHeaders(error),
  );
}

/**
 * A working test to the chat the user has saved also clears its stopped reason: the problem
 * (a blocked bot, say) is evidently fixed.
 */
async function resumeAfterTest(
  deps: SettingsDeps,
  user: UserRow,
  channel: NotificationChannel,
  target: string,
): Promise<void> {
  const row = await findUserSettings(deps.db.db, user.id);
  if (!row) return;
  const saved = channel === 'telegram' ? row.telegram_chat_id : row.discord_user_id;
  const stopped = channel === 'telegram' ? row.telegram_stopped_reason : row.discord_stopped_reason;
  if (saved !== target || !stopped) return;
  await upsertUserSettings(deps.db.db, user.id, {
    ...(channel === 'telegram'
      ? { telegram_stopped_reason: null }
      : { discord_stopped_reason: null }),
    updated_at: nowOf(deps).toISOString(),
  });
}

/** POST /settings/telegram/test: a test message to `chatId`. */
export async function testTelegram(deps: SettingsDeps, user: UserRow, chatId: string) {
  const { telegram } = deps.channels;
  if (!telegram.available) throw unavailable('telegram');
  await runOnce(deps, `telegram:${user.id}:${chatId}`, async () => {
    try {
      await telegram.sendMessage(chatId, escapeHtml(TEST_MESSAGE_TEXT));
    } catch (error) {
      throw telegramTestError(error);
    }
  });
  await resumeAfterTest(deps, user, 'telegram', chatId);
  return SETTINGS_MESSAGES.telegramTestSuccess;
}

/** POST /settings/discord/test: a test DM to `userId`. */
export async function testDiscord(deps: SettingsDeps, user: UserRow, discordUserId: string) {
  const { discord } = deps.channels;
  if (!discord.available) throw unavailable('discord');
  await runOnce(deps, `discord:${user.id}:${discordUserId}`, async () => {
    try {
      const dm = await discord.openDm(discordUserId);
      await discord.send(dm, { content: TEST_MESSAGE_TEXT, embeds: [] });
    } catch (error) {
      throw discordTestError(error);
    }
  });
  await resumeAfterTest(deps, user, 'discord', discordUserId);
  return SETTINGS_MESSAGES.discordTestSuccess;
}

// ---------------------------------------------------------------------------------------------
// Telegram one-click linking
// ---------------------------------------------------------------------------------------------

/**
 * A one-time link `https://t.me/<bot>?start=<code>`: pressing Start sends `/start <code>` to the
 * bot, and the updates poller links that chat to this user. Only the code's hash is stored.
 */
export async function createTelegramLink(deps: SettingsDeps, user: UserRow): Promise<TelegramLink> {
  const { telegram } = deps.channels;
  if (!telegram.available) throw unavailable('telegram');
  let bot: string;
  try {
    bot = await telegram.botUsername(AbortSignal.timeout(BOT_LOOKUP_TIMEOUT_MS * 2));
  } catch (error) {
    throw telegramTestError(error);
  }
  const code = randomToken(24);
  const now = nowOf(deps);
  const expiresAt = new Date(now.getTime() + TELEGRAM_LINK_TTL_MS).toISOString();
  await insertLinkCode(deps.db.db, user.id, sha256Hex(code), expiresAt, now.toISOString());
  return {
    url: `https://t.me/${bot}?start=${code}`,
    botUsername: bot,
    expiresAt,
    instructions: SETTINGS_MESSAGES.telegramLinkReady,
  };
}

export type LinkOutcome =
  | { status: 'linked'; userId: number }
  | { status: 'already'; userId: number }
  | { status: 'invalid' };

/**
 * `/start <code>` arrived from `chatId`: links the chat to the code's user (once; a repeat from
 * the same chat, e.g. an update delivered twice, answers as linked again).
 */
export async function linkTelegramChat(
  deps: SettingsDeps,
  code: string,
  chatId: string,
): Promise<LinkOutcome> {
  const now = nowOf(deps).toISOString();
  const hash = sha256Hex(code);
  const userId = await consumeLinkCode(deps.db.db, hash, now);
  if (userId === null) {
    const owner = await findLinkCodeUser(deps.db.db, hash);
    if (owner !== null) {
      const row = await findUserSettings(deps.db.db, owner);
      if (row?.telegram_chat_id === chatId) return { status: 'already', userId: owner };
    }
    return { status: 'invalid' };
  }
  await upsertUserSettings(deps.db.db, userId, {
    telegram_chat_id: chatId,
    telegram_stopped_reason: null,
    updated_at: now,
  });
  await startBotWhenReady(deps, userId);
  deps.wakeWorker?.();
  return { status: 'linked', userId };
}

/** The bot was blocked ('kicked') in a chat: stop Telegram for everyone on it. */
export async function telegramChatBlocked(deps: SettingsDeps, chatId: string): Promise<void> {
  const now = nowOf(deps).toISOString();
  for (const userId of await usersWithTelegramChat(deps.db.db, chatId)) {
    await stopChannel(
      deps.db.db,
      userId,
      'telegram',
      chatId,
      SETTINGS_MESSAGES.telegramBlockedReason,
      now,
    );
    await cancelPendingDeliveries(
      deps.db,
      userId,
      'telegram',
      `Stopped: ${SETTINGS_MESSAGES.telegramBlockedReason}`,
    );
  }
}

/** The bot was unblocked: the chat works again, new tweets are delivered again. */
export async function telegramChatUnblocked(deps: SettingsDeps, chatId: string): Promise<void> {
  await resumeTelegramChat(deps.db.db, chatId, nowOf(deps).toISOString());
  deps.wakeWorker?.();
}

// ---------------------------------------------------------------------------------------------
// Per-handle toggles
// ---------------------------------------------------------------------------------------------

/**
 * PUT /handles/{id}/notifications: switching a channel on needs that channel connected;
 * switching it off always works and cancels what was still waiting for that handle.
 */
export async function setHandleNotifications(
  deps: SettingsDeps,
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
        deps.db,
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

// ---------------------------------------------------------------------------------------------
// The bot (the user's forwarder)
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Delivery log
// ---------------------------------------------------------------------------------------------

const EXCERPT_LENGTH = 140;

export async function deliveryLog(
  db: Db,
  user: UserRow,
  channel: NotificationChannel | undefined,
  limit: number,
): Promise<Delivery[]> {
  const rows = await listDeliveries(db, user.id, channel, limit);
  return rows.map((row) => {
    const handle = row.username ?? '';
    return {
      id: row.id,
      channel: row.channel,
      status: row.status,
      handle,
      tweetId: row.tweet_id,
      tweetUrl: `https://x.com/${handle || 'i/web'}/status/${row.tweet_id}`,
      excerpt:
        row.text === null
          ? null
          : row.text.length > EXCERPT_LENGTH
            ? `${row.text.slice(0, EXCERPT_LENGTH - 1)}…`
            : row.text,
      attempts: row.attempts,
      // A sent row's text says how it went, a filtered one's why the filter held it back.
      error: row.status === 'sent' || row.status === 'filtered' ? null : row.last_error,
      note: row.status === 'sent' || row.status === 'filtered' ? row.last_error : null,
      createdAt: row.created_at,
      sentAt: row.sent_at,
      nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    };
  });
}
