import { ApiError } from '@/lib/api-client';

/**
 * What went wrong, for the line under an admin error: the server's own message, else the spec's
 * client fallback for a bare HTTP failure (doc 2 §8.6), else the client's text (offline, timeout,
 * an unreadable answer).
 */
export function failureReason(error: unknown, fallback: string): string {
  if (!(error instanceof ApiError)) return fallback;
  if (error.serverMessage) return error.serverMessage;
  if (error.code.startsWith('HTTP_')) return fallback;
  return error.message;
}
