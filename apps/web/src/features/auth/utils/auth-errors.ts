import { MESSAGES } from '@perch/shared';
import { ApiError, isNetworkError } from '@/lib/api-client';

/** The sign-in banner text for a failed login, by status. */
export function loginErrorMessage(error: unknown): string {
  if (isNetworkError(error)) return MESSAGES.networkError;
  if (!(error instanceof ApiError)) return MESSAGES.unexpectedError;
  switch (error.status) {
    case 401:
      return MESSAGES.loginWrongCredentials;
    case 429:
      return MESSAGES.loginTooManyAttempts;
    case 400:
      return error.details || error.serverMessage || MESSAGES.loginInvalidData;
    case 500:
      return MESSAGES.loginServerError;
    case 503:
      return error.code === 'SERVER_BUSY' ? MESSAGES.serverBusy : MESSAGES.unexpectedError;
    default:
      return MESSAGES.unexpectedError;
  }
}

/** The 409 text: which of username, email or invitation code is taken. */
function conflictMessage(error: ApiError): string {
  const code = error.code.toUpperCase();
  const text = (error.serverMessage ?? '').toLowerCase();
  if (code.includes('USERNAME') || text.includes('username')) return MESSAGES.registerUsernameTaken;
  if (code.includes('EMAIL') || text.includes('email')) return MESSAGES.registerEmailTaken;
  if (code === 'INVITE_EXPIRED' || text.includes('expired')) return MESSAGES.registerInviteExpired;
  if (code.includes('INVITE') || text.includes('code')) return MESSAGES.registerInviteUsed;
  return MESSAGES.registerConflict;
}

/** The registration banner text for a failed registration, by status. */
export function registerErrorMessage(error: unknown): string {
  if (isNetworkError(error)) return MESSAGES.networkError;
  if (!(error instanceof ApiError)) return MESSAGES.registerUnexpected;
  switch (error.status) {
    case 404:
      return MESSAGES.registerInviteNotFound;
    case 409:
      return conflictMessage(error);
    case 400:
      return error.details || error.serverMessage || MESSAGES.registerInvalidData;
    case 500:
      return MESSAGES.registerServerError;
    case 503:
      return error.code === 'SERVER_BUSY' ? MESSAGES.serverBusy : MESSAGES.registerUnexpected;
    default:
      return MESSAGES.registerUnexpected;
  }
}

/** The text for a failed invitation check: the server's message or 'Invalid invitation code'. */
export function inviteErrorMessage(error: unknown): string {
  if (isNetworkError(error)) return MESSAGES.networkError;
  if (error instanceof ApiError && error.serverMessage) return error.serverMessage;
  return MESSAGES.invalidInvitation;
}
