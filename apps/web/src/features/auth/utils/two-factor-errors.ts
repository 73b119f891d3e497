import { MESSAGES, SECURITY_MESSAGES } from '@perch/shared';
import { ApiError, isNetworkError } from '@/lib/api-client';

/**
 * Whether the pending second step is gone (it lasts 5 minutes, and a fresh password step
 * replaces it): the password has to be entered again.
 */
export function isTwoFactorLoginExpired(error: unknown): boolean {
  if (!(error instanceof ApiError) || error.status !== 401) return false;
  return (
    error.serverMessage === SECURITY_MESSAGES.twoFactorLoginExpired || /EXPIRED/i.test(error.code)
  );
}

/** The text for a refused second step: the server's words where it gave them. */
export function twoFactorErrorMessage(error: unknown): string {
  if (isNetworkError(error)) return MESSAGES.networkError;
  if (!(error instanceof ApiError)) return MESSAGES.unexpectedError;
  switch (error.status) {
    case 401:
      return error.serverMessage ?? SECURITY_MESSAGES.twoFactorCodeInvalid;
    case 400:
      return error.details || error.serverMessage || SECURITY_MESSAGES.twoFactorCodeRequired;
    case 429:
      return error.serverMessage ?? SECURITY_MESSAGES.tooManyAttempts;
    case 500:
      return MESSAGES.loginServerError;
    default:
      return error.serverMessage ?? MESSAGES.unexpectedError;
  }
}
