/**
 * The user's own X account: its OAuth client and sealed tokens (connecting it is in
 * x-account-connect.service.ts), reading its status, disconnecting it, and handing out a valid
 * user access token (refreshed when it expires) to whatever needs to act as the user.
 */
import type { XAccountStatus } from '@perch/shared';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { createTokenCipher, type TokenCipher } from '../../lib/token-cipher.js';
import {
  clearTwitterUsername,
  deleteXAccount,
  findTwitterUsername,
  findXAccount,
  updateXAccountTokens,
  type XAccountRow,
} from './x-account.repository.js';
import {
  XOAuthError,
  createXOAuthClient,
  type XOAuthClient,
  type XTokenSet,
} from './x-oauth.client.js';

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
export const sealedAt = {
  verifier: (userId: number) => `oauth_states.code_verifier:${userId}`,
  access: (userId: number) => `x_accounts.access_token:${userId}`,
  refresh: (userId: number) => `x_accounts.refresh_token:${userId}`,
};

/** An epoch-ms time as the ISO text the tables hold. */
export const iso = (ms: number) => new Date(ms).toISOString();

/** GET /auth/twitter/status: the OAuth connection, else the username typed in Settings. */
export async function accountStatus(
  db: Db,
  oauth: XOAuth,
  userId: number,
): Promise<XAccountStatus> {
  const available = oauth.client !== null;
  const account = await findXAccount(db.db, userId);
  if (account) {
    return {
      available,
      connected: true,
      username: account.username,
      connectedAt: account.connected_at,
      method: 'oauth',
    };
  }
  const typed = await findTwitterUsername(db.db, userId);
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
export async function disconnect(db: Db, oauth: XOAuth, userId: number): Promise<DisconnectResult> {
  const account = await findXAccount(db.db, userId);
  const at = iso(oauth.now());
  await db.db.transaction().execute(async (trx) => {
    await deleteXAccount(trx, userId);
    await clearTwitterUsername(trx, userId, at);
  });
  const revoked = account ? await revokeTokens(oauth, account) : true;
  return { status: await accountStatus(db, oauth, userId), revoked };
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
export function validAccessToken(db: Db, userId: number, oauth: XOAuth): Promise<string> {
  let running = refreshing.get(db.db);
  if (!running) {
    running = new Map();
    refreshing.set(db.db, running);
  }
  const inFlight = running.get(userId);
  if (inFlight) return inFlight;
  const perDb = running;
  const next = freshAccessToken(db, userId, oauth).finally(() => perDb.delete(userId));
  perDb.set(userId, next);
  return next;
}

function usable(row: XAccountRow, now: number): boolean {
  return row.expires_at === null || Date.parse(row.expires_at) - EXPIRY_MARGIN_MS > now;
}

async function freshAccessToken(db: Db, userId: number, oauth: XOAuth): Promise<string> {
  const row = await findXAccount(db.db, userId);
  if (!row) throw new XTokenError('not_connected', 'no X account is connected');
  const accessToken = await unsealed(db, oauth, row, 'access', row.access_token);
  if (usable(row, oauth.now())) return accessToken;

  if (!row.refresh_token) {
    await markDisconnected(db, oauth, row);
    throw new XTokenError('revoked', 'the X token expired and X gave no refresh token');
  }
  if (!oauth.client) {
    throw new XTokenError('not_configured', 'the X token expired and X_CLIENT_ID is not set');
  }
  const refreshToken = await unsealed(db, oauth, row, 'refresh', row.refresh_token);
  let tokens: XTokenSet;
  try {
    tokens = await oauth.client.refresh(refreshToken);
  } catch (error) {
    return refusedRefresh(db, oauth, row, error);
  }
  await storeRefreshedTokens(db, oauth, row, tokens);
  return tokens.accessToken;
}

/** A stored token opened; one this key cannot open ends the connection (XTokenError). */
async function unsealed(
  db: Db,
  oauth: XOAuth,
  row: XAccountRow,
  which: 'access' | 'refresh',
  sealed: string,
): Promise<string> {
  try {
    return oauth.cipher.decrypt(sealed, sealedAt[which](row.user_id));
  } catch {
    await markDisconnected(db, oauth, row);
    throw new XTokenError('revoked', 'the stored X tokens do not decrypt with this key');
  }
}

/**
 * A refresh that failed: X unreachable keeps the connection; a refused grant ends it, unless
 * another process refreshed a moment earlier (spending the refresh token we sent), when the
 * tokens it stored are the good ones.
 */
async function refusedRefresh(
  db: Db,
  oauth: XOAuth,
  row: XAccountRow,
  error: unknown,
): Promise<string> {
  if (!(error instanceof XOAuthError && error.grantRejected)) {
    throw new XTokenError('unavailable', `refreshing the X token failed: ${String(error)}`);
  }
  const current = await findXAccount(db.db, row.user_id);
  if (current && current.access_token !== row.access_token) {
    return oauth.cipher.decrypt(current.access_token, sealedAt.access(row.user_id));
  }
  await markDisconnected(db, oauth, row);
  throw new XTokenError('revoked', `X refused the refresh: ${error.message}`);
}

async function storeRefreshedTokens(
  db: Db,
  oauth: XOAuth,
  row: XAccountRow,
  tokens: XTokenSet,
): Promise<void> {
  const { cipher } = oauth;
  const userId = row.user_id;
  const now = oauth.now();
  await updateXAccountTokens(db.db, userId, {
    access_token: cipher.encrypt(tokens.accessToken, sealedAt.access(userId)),
    // X rotates refresh tokens: the old one is spent. Keep it only if X sent none.
    refresh_token: tokens.refreshToken
      ? cipher.encrypt(tokens.refreshToken, sealedAt.refresh(userId))
      : row.refresh_token,
    expires_at: tokens.expiresIn === null ? null : iso(now + tokens.expiresIn * 1000),
    scope: tokens.scope ?? row.scope,
    updated_at: iso(now),
  });
}

/**
 * The connection is dead: delete it, and the Settings username it set (unless the user has
 * typed another one since), so Settings shows Twitter as not connected.
 */
async function markDisconnected(db: Db, oauth: XOAuth, row: XAccountRow): Promise<void> {
  const at = iso(oauth.now());
  await db.db.transaction().execute(async (trx) => {
    if (await deleteXAccount(trx, row.user_id, row.access_token)) {
      await clearTwitterUsername(trx, row.user_id, at, row.username);
    }
  });
}
