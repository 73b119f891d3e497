/**
 * The user's own X account: connecting it with OAuth 2.0 Authorization Code + PKCE
 * (docs/spec-notes.md, X API), reading its status, disconnecting it, and handing out a valid user
 * access token (refreshed when it expires) to whatever needs to act as the user.
 */
import { createHash } from 'node:crypto';
import {
  X_OAUTH_NOT_CONFIGURED_MESSAGE,
  X_OAUTH_SCOPES,
  type XAccountStatus,
  type XConnectErrorReason,
} from '@perch/shared';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { AppError } from '../../lib/errors.js';
import { randomToken, sha256Hex } from '../../lib/tokens.js';
import { startReadyBots } from '../settings/settings.repository.js';
import { createTokenCipher, type TokenCipher } from '../../lib/token-cipher.js';
import {
  clearTwitterUsername,
  deleteStaleOauthStates,
  deleteXAccount,
  findTwitterUsername,
  findXAccount,
  insertOauthState,
  setTwitterUsername,
  takeOauthState,
  updateXAccountTokens,
  upsertXAccount,
  type XAccountRow,
} from './x-account.repository.js';
import { XOAuthError, createXOAuthClient, type XOAuthClient } from './x-oauth.client.js';

/** Where X sends the browser back to, under PUBLIC_URL or the request's origin. */
export const X_CALLBACK_PATH = '/api/v1/auth/twitter/callback';
/** How long a started connection waits for the user to come back from X. */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;
/** A token this close to its expiry is refreshed first, so it does not expire in flight. */
const EXPIRY_MARGIN_MS = 60_000;
/** The Settings value that stands for "no username". */
const PLACEHOLDER_USERNAME = 'placeholder_username';

/** What the X connection needs: the OAuth client (null without X_CLIENT_ID) and the cipher. */
export interface XOAuth {
  client: XOAuthClient | null;
  clientId: string | null;
  /** X_OAUTH_AUTHORIZE_URL. */
  authorizeUrl: string;
  /** PUBLIC_URL, without trailing slash. */
  publicUrl: string | null;
  cipher: TokenCipher;
  /** Clock (epoch ms). */
  now: () => number;
}

export interface XOAuthOptions {
  fetch?: typeof fetch;
  now?: () => number;
  /** Per request to X. Default 10 s. */
  timeoutMs?: number;
}

type XOAuthConfig = Pick<
  Config,
  | 'X_CLIENT_ID'
  | 'X_CLIENT_SECRET'
  | 'X_API_BASE_URL'
  | 'X_OAUTH_AUTHORIZE_URL'
  | 'PUBLIC_URL'
  | 'SECRET_KEY'
  | 'DATA_DIR'
>;

/** The X connection of this configuration. */
export function createXOAuth(config: XOAuthConfig, options: XOAuthOptions = {}): XOAuth {
  const clientId = config.X_CLIENT_ID ?? null;
  return {
    client: clientId
      ? createXOAuthClient({
          baseUrl: config.X_API_BASE_URL,
          clientId,
          clientSecret: config.X_CLIENT_SECRET,
          fetch: options.fetch,
          timeoutMs: options.timeoutMs,
        })
      : null,
    clientId,
    authorizeUrl: config.X_OAUTH_AUTHORIZE_URL,
    publicUrl: config.PUBLIC_URL ?? null,
    cipher: createTokenCipher({ secretKey: config.SECRET_KEY, dataDir: config.DATA_DIR }),
    now: options.now ?? Date.now,
  };
}

/** Where each sealed value lives; bound into its ciphertext. */
const sealedAt = {
  verifier: (userId: number) => `oauth_states.code_verifier:${userId}`,
  access: (userId: number) => `x_accounts.access_token:${userId}`,
  refresh: (userId: number) => `x_accounts.refresh_token:${userId}`,
};

const iso = (ms: number) => new Date(ms).toISOString();

/** S256 code challenge of a PKCE verifier (RFC 7636, section 4.2). */
export function codeChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/**
 * Starts a connection: stores a one-time state with its PKCE verifier (10 minutes) and returns
 * X's authorize URL. Starting again replaces the user's earlier pending connection.
 */
export async function startConnect(
  { db }: Db,
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
  await db.transaction().execute(async (trx) => {
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

/**
 * Completes a connection on X's redirect: the state must be one this user started, unused and
 * unexpired; the code is exchanged with the stored verifier; /2/users/me names the account; the
 * tokens are stored encrypted and Settings gets the username. Throws XConnectError.
 */
export async function completeConnect(
  dbw: Db,
  oauth: XOAuth,
  input: CallbackInput,
): Promise<XAccountStatus> {
  const { client } = oauth;
  if (!client) throw new XConnectError('not_configured', 'X_CLIENT_ID is not set');
  if (input.userId === null) throw new XConnectError('not_signed_in', 'no session');
  const userId = input.userId;
  if (!input.state) throw new XConnectError('invalid_state', 'no state');
  const pending = await takeOauthState(dbw.db, sha256Hex(input.state), userId);
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

  let verifier: string;
  try {
    verifier = oauth.cipher.decrypt(pending.code_verifier, sealedAt.verifier(userId));
  } catch (error) {
    throw new XConnectError('internal_error', `verifier: ${String(error)}`);
  }
  const tokens = await client
    .exchangeCode({ code: input.code, codeVerifier: verifier, redirectUri: pending.redirect_uri })
    .catch((error: unknown) => {
      throw new XConnectError(reasonOf(error, 'token_exchange_failed'), String(error));
    });
  const profile = await client.me(tokens.accessToken).catch(async (error: unknown) => {
    // Tokens of an account we cannot name are of no use: give them back.
    await client.revoke(tokens.accessToken, 'access_token').catch(() => undefined);
    throw new XConnectError(reasonOf(error, 'profile_failed'), String(error));
  });

  const at = iso(oauth.now());
  await dbw.db.transaction().execute(async (trx) => {
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
  return accountStatus(dbw, oauth, userId);
}

/** GET /auth/twitter/status: the OAuth connection, else the username typed in Settings. */
export async function accountStatus(
  { db }: Db,
  oauth: XOAuth,
  userId: number,
): Promise<XAccountStatus> {
  const available = oauth.client !== null;
  const account = await findXAccount(db, userId);
  if (account) {
    return {
      available,
      connected: true,
      username: account.username,
      connectedAt: account.connected_at,
      method: 'oauth',
    };
  }
  const typed = await findTwitterUsername(db, userId);
  if (typed && typed !== PLACEHOLDER_USERNAME) {
    return { available, connected: true, username: typed, connectedAt: null, method: 'manual' };
  }
  return { available, connected: false, username: null, connectedAt: null, method: null };
}

export interface DisconnectResult {
  status: XAccountStatus;
  /** False when X could not be told to revoke the tokens (they are deleted here anyway). */
  revoked: boolean;
}

/**
 * Forgets the user's X account: deletes the stored tokens and the Settings username first (the
 * user's intent holds even if X is down), then asks X to revoke the tokens, best effort.
 */
export async function disconnect(
  dbw: Db,
  oauth: XOAuth,
  userId: number,
): Promise<DisconnectResult> {
  const account = await findXAccount(dbw.db, userId);
  const at = iso(oauth.now());
  await dbw.db.transaction().execute(async (trx) => {
    await deleteXAccount(trx, userId);
    await clearTwitterUsername(trx, userId, at);
  });
  const revoked = account ? await revokeTokens(oauth, account) : true;
  return { status: await accountStatus(dbw, oauth, userId), revoked };
}

async function revokeTokens(oauth: XOAuth, account: XAccountRow): Promise<boolean> {
  const { client, cipher } = oauth;
  if (!client) return false;
  const userId = account.user_id;
  const revocations: Promise<void>[] = [];
  try {
    if (account.refresh_token) {
      const refresh = cipher.decrypt(account.refresh_token, sealedAt.refresh(userId));
      revocations.push(client.revoke(refresh, 'refresh_token'));
    }
    const access = cipher.decrypt(account.access_token, sealedAt.access(userId));
    revocations.push(client.revoke(access, 'access_token'));
  } catch {
    return false;
  }
  const results = await Promise.allSettled(revocations);
  return results.every((result) => result.status === 'fulfilled');
}

export type XTokenErrorReason =
  /** The user has no OAuth connection. */
  | 'not_connected'
  /** X no longer accepts the grant (or the stored tokens are unreadable): the connection was removed. */
  | 'revoked'
  /** The token expired and the server has no X_CLIENT_ID to refresh it with. */
  | 'not_configured'
  /** X could not be reached to refresh the token; the connection is kept, try later. */
  | 'unavailable';

export class XTokenError extends Error {
  constructor(
    readonly reason: XTokenErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'XTokenError';
  }
}

// One refresh at a time per user and database: X rotates refresh tokens, so a second refresh
// with the same token would be refused and would wrongly end the connection.
const refreshing = new WeakMap<object, Map<number, Promise<string>>>();

/**
 * A user access token that is valid for at least another minute: the stored one, or a new one
 * from a refresh (the rotated refresh token is stored with it). When X refuses the refresh
 * (invalid_grant / invalid_request), the connection is removed and XTokenError('revoked') thrown.
 */
export function validAccessToken(dbw: Db, userId: number, oauth: XOAuth): Promise<string> {
  let running = refreshing.get(dbw.db);
  if (!running) {
    running = new Map();
    refreshing.set(dbw.db, running);
  }
  const inFlight = running.get(userId);
  if (inFlight) return inFlight;
  const perDb = running;
  const next = freshAccessToken(dbw, userId, oauth).finally(() => perDb.delete(userId));
  perDb.set(userId, next);
  return next;
}

function usable(row: XAccountRow, now: number): boolean {
  return row.expires_at === null || Date.parse(row.expires_at) - EXPIRY_MARGIN_MS > now;
}

async function freshAccessToken(dbw: Db, userId: number, oauth: XOAuth): Promise<string> {
  const { db } = dbw;
  const { cipher } = oauth;
  const row = await findXAccount(db, userId);
  if (!row) throw new XTokenError('not_connected', 'no X account is connected');

  const unreadable = async (): Promise<never> => {
    await markDisconnected(dbw, oauth, row);
    throw new XTokenError('revoked', 'the stored X tokens do not decrypt with this key');
  };
  let accessToken: string;
  try {
    accessToken = cipher.decrypt(row.access_token, sealedAt.access(userId));
  } catch {
    return unreadable();
  }
  if (usable(row, oauth.now())) return accessToken;

  if (!row.refresh_token) {
    await markDisconnected(dbw, oauth, row);
    throw new XTokenError('revoked', 'the X token expired and X gave no refresh token');
  }
  if (!oauth.client) {
    throw new XTokenError('not_configured', 'the X token expired and X_CLIENT_ID is not set');
  }
  let refreshToken: string;
  try {
    refreshToken = cipher.decrypt(row.refresh_token, sealedAt.refresh(userId));
  } catch {
    return unreadable();
  }

  let tokens;
  try {
    tokens = await oauth.client.refresh(refreshToken);
  } catch (error) {
    if (!(error instanceof XOAuthError && error.grantRejected)) {
      throw new XTokenError('unavailable', `refreshing the X token failed: ${String(error)}`);
    }
    // Another process may have refreshed a moment earlier (spending the refresh token we sent):
    // then the tokens it stored are the good ones.
    const current = await findXAccount(db, userId);
    if (current && current.access_token !== row.access_token) {
      return cipher.decrypt(current.access_token, sealedAt.access(userId));
    }
    await markDisconnected(dbw, oauth, row);
    throw new XTokenError('revoked', `X refused the refresh: ${error.message}`);
  }

  const now = oauth.now();
  await updateXAccountTokens(db, userId, {
    access_token: cipher.encrypt(tokens.accessToken, sealedAt.access(userId)),
    // X rotates refresh tokens: the old one is spent. Keep it only if X sent none.
    refresh_token: tokens.refreshToken
      ? cipher.encrypt(tokens.refreshToken, sealedAt.refresh(userId))
      : row.refresh_token,
    expires_at: tokens.expiresIn === null ? null : iso(now + tokens.expiresIn * 1000),
    scope: tokens.scope ?? row.scope,
    updated_at: iso(now),
  });
  return tokens.accessToken;
}

/**
 * The connection is dead: delete it, and the Settings username it set (unless the user has
 * typed another one since), so Settings shows Twitter as not connected.
 */
async function markDisconnected(dbw: Db, oauth: XOAuth, row: XAccountRow): Promise<void> {
  const at = iso(oauth.now());
  await dbw.db.transaction().execute(async (trx) => {
    if (await deleteXAccount(trx, row.user_id, row.access_token)) {
      await clearTwitterUsername(trx, row.user_id, at, row.username);
    }
  });
}
