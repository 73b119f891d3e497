import {
  SETTINGS_MESSAGES,
  X_CONNECT_ERROR_MESSAGES,
  X_CONNECT_RESULT_PARAM,
  xConnectErrorReasonSchema,
} from '@perch/shared';
import { ApiError, INVALID_RESPONSE_CODE, isNetworkError } from '@/lib/api-client';

/** Words of the page that are not messages of the contract (labels, hints, empty states). */
export const SETTINGS_TEXTS = {
  pageDescription:
    'Connect Telegram, Discord or your own webhooks to get the new tweets of your monitored handles, and tell Perch which X account is yours.',
  /** The forwarding badge, after a hidden 'Forwarding ' (shown capitalised). */
  forwardingState: (running: boolean) => (running ? 'active' : 'inactive'),
  forwardingStartsItself:
    'Forwarding then starts by itself on the server: no page needs to stay open.',
  forwardingActiveHelp:
    'New tweets of handles with notifications switched on go to your connected channels.',
  perHandleHint: 'Choose which handles notify you with the Telegram and Discord switches on the',
  telegramChatIdLabel: 'Telegram Chat ID',
  telegramChatIdHelp: (bot: string | null) =>
    bot
      ? `Send /start to @${bot} in Telegram: it answers with your numeric Chat ID.`
      : 'Your numeric Chat ID (a group chat starts with a minus sign).',
  telegramWaiting: 'Waiting for you to press Start in Telegram...',
  telegramLinkExpired: 'The link expired. Create a new one to connect with one click.',
  discordUserIdLabel: 'Discord User ID',
  discordUserIdHelp:
    'In Discord, turn on Developer Mode, then right-click your name and choose Copy User ID. You need a server in common with the Perch bot.',
  xUsernameLabel: 'Your X username',
  xUsernameHelp: 'The X account the notifications are for.',
  stoppedTitle: 'Delivery stopped',
  stoppedHelp: 'Delivery resumes after a successful test, or when you save the ID again.',
  deliveriesEmpty:
    'No messages yet. When a handle with notifications switched on posts, its tweet shows up here.',
  deliveriesFailed: 'Failed to load the delivery log',
  /** The cards' name while the server is not answering (read by screen readers). */
  readOnlyLabel: 'Settings (read-only until the server answers)',
} as const;

function serverText(error: unknown): string | undefined {
  return error instanceof ApiError ? error.serverMessage : undefined;
}

/** The texts the server sends for a channel test; anything else is mapped to one of them. */
const TELEGRAM_TEST_TEXTS: ReadonlySet<string> = new Set([
  SETTINGS_MESSAGES.telegramTestChatNotFound,
  SETTINGS_MESSAGES.telegramTestBlocked,
  SETTINGS_MESSAGES.telegramUnavailable,
  SETTINGS_MESSAGES.telegramChatIdRequired,
  SETTINGS_MESSAGES.telegramChatIdNumeric,
]);

/**
 * A failed Telegram test: 'chat not found' or a 400 -> double-check the Chat ID;
 * 'bot was blocked' -> unblock; anything else -> 'Error testing Telegram connection: ...'.
 */
export function telegramTestErrorText(error: unknown): string {
  const said = serverText(error);
  if (said && (TELEGRAM_TEST_TEXTS.has(said) || said.startsWith('Error testing Telegram'))) {
    return said;
  }
  const text = said ?? (error instanceof Error ? error.message : String(error));
  if (/bot was blocked/i.test(text)) return SETTINGS_MESSAGES.telegramTestBlocked;
  if (/chat not found/i.test(text) || (error instanceof ApiError && error.status === 400)) {
    return SETTINGS_MESSAGES.telegramTestChatNotFound;
  }
  return SETTINGS_MESSAGES.telegramTestError(text);
}

const DISCORD_TEST_TEXTS: ReadonlySet<string> = new Set([
  SETTINGS_MESSAGES.discordTestFailed,
  SETTINGS_MESSAGES.discordUnavailable,
  SETTINGS_MESSAGES.discordUserIdRequired,
  SETTINGS_MESSAGES.discordUserIdRequiredForTest,
  SETTINGS_MESSAGES.discordUserIdInvalid,
]);

/** A failed Discord test: the spec's text, and what Discord said when the server passed it on. */
export function discordTestErrorText(error: unknown): { text: string; details?: string } {
  const said = serverText(error);
  const text = said && DISCORD_TEST_TEXTS.has(said) ? said : SETTINGS_MESSAGES.discordTestFailed;
  const details = error instanceof ApiError ? error.details : undefined;
  return details ? { text, details } : { text };
}

/**
 * A failed save: the server's own words when it refused the input (400, 409), otherwise the
 * spec's text of that action ('Failed to save Telegram settings.' and so on).
 */
export function refusalOr(error: unknown, fallback: string): string {
  if (error instanceof ApiError && (error.status === 400 || error.status === 409)) {
    return error.serverMessage ?? fallback;
  }
  return fallback;
}

/** A failed bot start (docs/spec-notes.md, Error texts). */
export function botStartErrorText(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 405) return SETTINGS_MESSAGES.botApiConfiguration;
    if (isNetworkError(error)) return SETTINGS_MESSAGES.botNetworkError;
    if (error.code === INVALID_RESPONSE_CODE) return SETTINGS_MESSAGES.botInvalidResponse;
    return SETTINGS_MESSAGES.botStartFailed(error.serverMessage ?? error.message);
  }
  return SETTINGS_MESSAGES.botStartFailed(error instanceof Error ? error.message : String(error));
}

export type XConnectResult = { kind: 'success' | 'error'; text: string } | null;

/** What `?twitter=connected` or `?twitter=error&reason=...` (the X callback's return) says. */
export function xConnectResult(params: URLSearchParams): XConnectResult {
  const outcome = params.get(X_CONNECT_RESULT_PARAM);
  if (outcome === 'connected') return { kind: 'success', text: SETTINGS_MESSAGES.twitterSaved };
  if (outcome !== 'error') return null;
  const reason = xConnectErrorReasonSchema.safeParse(params.get('reason'));
  return {
    kind: 'error',
    text: X_CONNECT_ERROR_MESSAGES[reason.success ? reason.data : 'internal_error'],
  };
}
