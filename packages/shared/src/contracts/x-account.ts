import { z } from 'zod';

/** The scopes Perch asks X for (docs/spec-notes.md, X API): read the account, refresh offline. */
export const X_OAUTH_SCOPES = ['tweet.read', 'users.read', 'offline.access'] as const;

/**
 * How the user's X account is known: `oauth` = connected through X's consent page (tokens held
 * by the server); `manual` = the username typed in Settings (no tokens).
 */
export const xAccountMethodSchema = z.enum(['oauth', 'manual']);
export type XAccountMethod = z.infer<typeof xAccountMethodSchema>;

/** GET /auth/twitter/status (also the data of POST /auth/twitter/disconnect). */
export const xAccountStatusSchema = z.object({
  /** The server can connect an X account through OAuth (X_CLIENT_ID is set). */
  available: z.boolean(),
  connected: z.boolean(),
  /** The X username, without @. */
  username: z.string().nullable(),
  /** When the OAuth connection was made; null for a typed username or none. */
  connectedAt: z.string().nullable(),
  method: xAccountMethodSchema.nullable(),
});
export type XAccountStatus = z.infer<typeof xAccountStatusSchema>;

/** POST /auth/twitter/connect: the page of X the browser goes to next. */
export const xConnectResponseSchema = z.object({ authorizeUrl: z.string() });
export type XConnectResponse = z.infer<typeof xConnectResponseSchema>;

/**
 * The callback sends the browser to `/dashboard/settings?twitter=connected`, or to
 * `?twitter=error&reason=<reason>` with one of these reasons.
 */
export const X_CONNECT_RESULT_PARAM = 'twitter';
export const X_CONNECT_ERROR_REASONS = [
  'access_denied',
  'not_signed_in',
  'not_configured',
  'invalid_request',
  'invalid_state',
  'expired_state',
  'token_exchange_failed',
  'profile_failed',
  'x_unavailable',
  'internal_error',
] as const;
export const xConnectErrorReasonSchema = z.enum(X_CONNECT_ERROR_REASONS);
export type XConnectErrorReason = z.infer<typeof xConnectErrorReasonSchema>;

/** What the Settings page says for each reason. */
export const X_CONNECT_ERROR_MESSAGES: Record<XConnectErrorReason, string> = {
  access_denied: 'X authorization was cancelled.',
  not_signed_in: 'Please sign in to Perch, then connect your X account again.',
  not_configured: 'Connecting an X account is not set up on this server.',
  invalid_request: 'X sent back an incomplete answer. Please try connecting again.',
  invalid_state: 'This X authorization link is not valid (or was already used). Please try again.',
  expired_state: 'The X authorization took too long. Please try connecting again.',
  token_exchange_failed: 'X did not accept the authorization. Please try connecting again.',
  profile_failed: 'Could not read your X account. Please try connecting again.',
  x_unavailable: 'X could not be reached. Please try again in a few minutes.',
  internal_error: 'Something went wrong while connecting your X account. Please try again.',
};

/** The 400 of POST /auth/twitter/connect when the server has no X_CLIENT_ID. */
export const X_OAUTH_NOT_CONFIGURED_MESSAGE =
  'Connecting an X account is not set up on this server (X_CLIENT_ID is not set). Enter your X username in Settings instead.';
