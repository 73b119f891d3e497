import { MESSAGES } from '@perch/shared';
import { ApiError, INVALID_RESPONSE_CODE, isNetworkError } from '@/lib/api-client';

interface BannerTexts {
  unexpected: string;
  invalidData: string;
  serverError: string;
  /** An answer of success that is not the account the form asked for ('Login failed'). */
  failed: string;
  /** The texts of the statuses only this form knows. */
  byStatus: Partial<Record<number, (error: ApiError) => string>>;
}

/**
 * A form's banner text for a failed request, by status: offline, the server's own words for a
 * 400, the form's texts for a 500 and anything unexpected, 'busy' for a 503 the server says so.
 * A success answer without the signed-in account is the form's 'failed' text.
 */
function bannerText(error: unknown, texts: BannerTexts): string {
  if (isNetworkError(error)) return MESSAGES.networkError;
  if (!(error instanceof ApiError)) return texts.unexpected;
  if (error.code === INVALID_RESPONSE_CODE) return texts.failed;
  const own = texts.byStatus[error.status];
  if (own) return own(error);
  switch (error.status) {
    case 400:
      return error.details || error.serverMessage || texts.invalidData;
    case 500:
      return texts.serverError;
    case 503:
      return error.code === 'SERVER_BUSY' ? MESSAGES.serverBusy : texts.unexpected;
    default:
      return texts.unexpected;
  }
}

/** The sign-in banner text for a failed login, by status. */
export function loginErrorMessage(error: unknown): string {
  return bannerText(error, {
    unexpected: MESSAGES.unexpectedError,
    invalidData: MESSAGES.loginInvalidData,
    serverError: MESSAGES.loginServerError,
    failed: MESSAGES.loginFailed,
    byStatus: {
      401: () => MESSAGES.loginWrongCredentials,
      429: () => MESSAGES.loginTooManyAttempts,
    },
  });
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
  return bannerText(error, {
    unexpected: MESSAGES.registerUnexpected,
    invalidData: MESSAGES.registerInvalidData,
    serverError: MESSAGES.registerServerError,
    failed: MESSAGES.registerFailed,
    byStatus: {
      404: () => MESSAGES.registerInviteNotFound,
      409: conflictMessage,
    },
  });
}

/** The text for a failed invitation check: the server's message or 'Invalid invitation code'. */
export function inviteErrorMessage(error: unknown): string {
  if (isNetworkError(error)) return MESSAGES.networkError;
  if (error instanceof ApiError && error.serverMessage) return error.serverMessage;
  return MESSAGES.invalidInvitation;
}
