import { ApiError } from '@/lib/api-client';

/**
 * What went wrong, for the line under an error: the server's own message, else the given fallback
 * for a bare HTTP failure (as in "server message or 'Failed to load security events'"),
 * else the client's text (offline, timeout, an unreadable answer).
 */
export function failureReason(error: unknown, fallback: string): string {
  if (!(error instanceof ApiError)) return fallback;
  if (error.serverMessage) return error.serverMessage;
  if (error.code.startsWith('HTTP_')) return fallback;
  return error.message;
}

/**
 * The text of a refused request: the server's own words for a 4xx ('Please connect Telegram in
 * Settings first'), else the fallback (a 5xx, offline, a timeout).
 */
export function refusalText(error: unknown, fallback: string): string {
  if (
    error instanceof ApiError &&
    error.serverMessage &&
    error.status >= 400 &&
    error.status < 500
  ) {
    return error.serverMessage;
  }
  return fallback;
}
