/**
 * Connecting the user's X account with OAuth 2.0 Authorization Code + PKCE (docs/spec-notes.md,
 * X API): the authorize URL with a one-time state, and X's redirect back with the code.
 */
import { createHash } from 'node:crypto';
import {
  X_OAUTH_NOT_CONFIGURED_MESSAGE,
  X_OAUTH_SCOPES,
  type XAccountStatus,
  type XConnectErrorReason,
} from '@perch/shared';
import type { Db } from '../../db/index.js';
import { AppError } from '../../lib/errors.js';
import { randomToken, sha256Hex } from '../../lib/tokens.js';
import { startReadyBots } from '../settings/settings.repository.js';
import {
  deleteStaleOauthStates,
  insertOauthState,
  setTwitterUsername,
  takeOauthState,
  upsertXAccount,
} from './x-account.repository.js';
import { accountStatus, iso, sealedAt, type XOAuth } from './x-account.service.js';
import {
  XOAuthError,
  type XAccountProfile,
  type XOAuthClient,
  type XTokenSet,
} from './x-oauth.client.js';

/** Where X sends the browser back to, under PUBLIC_URL or the request's origin. */
export const X_CALLBACK_PATH = '/api/v1/auth/twitter/callback';
/** How long a started connection waits for the user to come back from X. */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;

/** S256 code challenge of a PKCE verifier (RFC 7636, section 4.2). */
export function codeChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/**
 * Starts a connection: stores a one-time state with its PKCE verifier (10 minutes) and returns
 * X's authorize URL. Starting again replaces the user's earlier pending connection.
 */
export async function startConnect(
  db: Db,
  oauth: XOAuth,
  userId: number,
  requestOrigin: string,
): Promise<string> {
  if (!oauth.clientId) {
    throw new AppError(400, 'X_OAUTH_NOT_CONFIGURED', X_OAUTH_NOT_CONFIGURED_MESSAGE);
  }
  const state = randomToken();
  // 43 characters of base64url: the shortest verifier RFC 7636 allows, 256 bits of entropy.
  const verifier = randomToken(32);
  const redirectUri = `${oauth.publicUrl ?? requestOrigin}${X_CALLBACK_PATH}`;
  const now = oauth.now();
  await db.db.transaction().execute(async (trx) => {
    await deleteStaleOauthStates(trx, userId, iso(now));
    await insertOauthState(trx, {
      // Only a hash: the state travels in URLs, the table need not hold it.
      state: sha256Hex(state),
      user_id: userId,
      code_verifier: oauth.cipher.encrypt(verifier, sealedAt.verifier(userId)),
      redirect_uri: redirectUri,
      expires_at: iso(now + OAUTH_STATE_TTL_MS),
    });
  });

  const url = new URL(oauth.authorizeUrl);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: oauth.clientId,
    redirect_uri: redirectUri,
    scope: X_OAUTH_SCOPES.join(' '),
    state,
    code_challenge: codeChallenge(verifier),
    code_challenge_method: 'S256',
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  // Spaces as %20 (as X documents the scope), not the form encoding's '+'.
  url.search = url.searchParams.toString().replace(/\+/g, '%20');
  return url.toString();
}

/** Why a connection could not be completed; the callback sends the browser back with it. */
export class XConnectError extends Error {
  constructor(
    readonly reason: XConnectErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'XConnectError';
  }
}

export interface CallbackInput {
  /** The signed-in user, or null. */
  userId: number | null;
  state?: string;
  code?: string;
  /** X's `error` when the user did not authorize. */
  error?: string;
}

/** The reason for a failed call to X during the connection. */
function reasonOf(error: unknown, rejected: XConnectErrorReason): XConnectErrorReason {
  return error instanceof XOAuthError && error.kind === 'unavailable' ? 'x_unavailable' : rejected;
}

/** The connection a callback may complete: a state this user started, unexpired, with a code. */
interface ValidCallback {
  userId: number;
  code: string;
  pending: { code_verifier: string; redirect_uri: string };
  /** When the callback was checked (epoch ms): the tokens' lifetime counts from here. */
  now: number;
}

/** Checks the callback (takes the state: it is used once) or throws XConnectError. */
async function validCallback(db: Db, oauth: XOAuth, input: CallbackInput): Promise<ValidCallback> {
  if (input.userId === null) throw new XConnectError('not_signed_in', 'no session');
  const userId = input.userId;
  if (!input.state) throw new XConnectError('invalid_state', 'no state');
  const pending = await takeOauthState(db.db, sha256Hex(input.state), userId);
  if (!pending) throw new XConnectError('invalid_state', 'unknown, used or foreign state');
  const now = oauth.now();
  if (Date.parse(pending.expires_at) <= now) {
    throw new XConnectError('expired_state', 'the state expired');
  }
  if (input.error) {
    const reason = input.error === 'access_denied' ? 'access_denied' : 'invalid_request';
    throw new XConnectError(reason, `X answered error=${input.error}`);
  }
  if (!input.code) throw new XConnectError('invalid_request', 'no code');
  return { userId, code: input.code, pending, now };
}

/** Trades the code for tokens and names the account they belong to. */
async function exchangeAndName(client: XOAuthClient, oauth: XOAuth, callback: ValidCallback) {
  const { userId, code, pending } = callback;
  let verifier: string;
  try {
    verifier = oauth.cipher.decrypt(pending.code_verifier, sealedAt.verifier(userId));
  } catch (error) {
    throw new XConnectError('internal_error', `verifier: ${String(error)}`);
  }
  const tokens = await client
    .exchangeCode({ code, codeVerifier: verifier, redirectUri: pending.redirect_uri })
    .catch((error: unknown) => {
      throw new XConnectError(reasonOf(error, 'token_exchange_failed'), String(error));
    });
  const profile = await client.me(tokens.accessToken).catch(async (error: unknown) => {
    // Tokens of an account we cannot name are of no use: give them back.
    await client.revoke(tokens.accessToken, 'access_token').catch(() => undefined);
    throw new XConnectError(reasonOf(error, 'profile_failed'), String(error));
  });
  return { tokens, profile };
}

/** Stores the account with its tokens sealed, and gives Settings its username. */
async function storeConnection(
  db: Db,
  oauth: XOAuth,
  callback: ValidCallback,
  { tokens, profile }: { tokens: XTokenSet; profile: XAccountProfile },
): Promise<void> {
  const { userId, now } = callback;
  const at = iso(oauth.now());
  await db.db.transaction().execute(async (trx) => {
    await upsertXAccount(trx, {
      user_id: userId,
      x_user_id: profile.id,
      username: profile.username,
      access_token: oauth.cipher.encrypt(tokens.accessToken, sealedAt.access(userId)),
      refresh_token: tokens.refreshToken
        ? oauth.cipher.encrypt(tokens.refreshToken, sealedAt.refresh(userId))
        : null,
      expires_at: tokens.expiresIn === null ? null : iso(now + tokens.expiresIn * 1000),
      scope: tokens.scope,
      connected_at: at,
      updated_at: at,
    });
    // Settings reads the username from here, so it shows Twitter connected either way.
    await setTwitterUsername(trx, userId, profile.username, at);
    // With a channel already connected, forwarding starts now (no page needs to stay open).
    await startReadyBots(trx, at, userId);
  });
}

/**
 * Completes a connection on X's redirect: the state must be one this user started, unused and
 * unexpired; the code is exchanged with the stored verifier; /2/users/me names the account; the
 * tokens are stored encrypted and Settings gets the username. Throws XConnectError.
 */
export async function completeConnect(
  db: Db,
  oauth: XOAuth,
  input: CallbackInput,
): Promise<XAccountStatus> {
  const { client } = oauth;
  if (!client) throw new XConnectError('not_configured', 'X_CLIENT_ID is not set');
  const callback = await validCallback(db, oauth, input);
  const account = await exchangeAndName(client, oauth, callback);
  await storeConnection(db, oauth, callback, account);
  return accountStatus(db, oauth, callback.userId);
}
