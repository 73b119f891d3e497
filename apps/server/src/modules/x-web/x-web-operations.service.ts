/**
 * The x-web source's GraphQL operations as admins manage them (Admin page, admin API, CLI):
 * list where each one's values come from, pin and unpin values, and read x.com's client now.
 * The rules themselves live in the registry (sources/x-web/x-web-operations.ts).
 */
import type { Kysely } from 'kysely';
import {
  X_WEB_REFRESH_MESSAGES,
  type PinXWebOperationRequest,
  type XWebOperation,
  type XWebOperations,
} from '@perch/shared';
import type { Cookies } from '../../sources/x-web/x-web-http.js';
import {
  CHECKED_MOMENTS_AGO,
  createXWebOperations,
  type RefreshResult,
  type XWebOperationsLog,
  type XWebOperationsRegistry,
} from '../../sources/x-web/x-web-operations.js';
import type { Config } from '../../config.js';
import type { Database } from '../../db/types.js';
import { AppError, conflict, tooManyRequests } from '../../lib/errors.js';
import { createTokenCipher, type TokenCipher } from '../../lib/token-cipher.js';
import {
  listXWebAccounts,
  unseal,
  type XWebSecrets,
} from '../../sources/x-web/x-web-accounts.repository.js';

export interface XWebOperationsDeps {
  config: Config;
  db: Kysely<Database>;
  /** Defaults to the token cipher of SECRET_KEY / DATA_DIR. */
  cipher?: TokenCipher;
  /** Tests inject it; defaults to the global fetch. */
  fetch?: typeof fetch;
  now?: () => number;
  log?: XWebOperationsLog;
}

/**
 * The cookies of a signed-in collector account (the most recently used), to read x.com's page
 * as its browser would; null when the pool has none (the page is read signed out).
 */
export async function poolSessionCookies(
  db: Kysely<Database>,
  cipher: TokenCipher,
): Promise<Cookies | null> {
  const rows = (await listXWebAccounts(db))
    .filter((row) => row.status === 'ACTIVE')
    .sort((a, b) => (b.last_used_at ?? '').localeCompare(a.last_used_at ?? ''));
  for (const row of rows) {
    try {
      if (row.session) return unseal<Cookies>(cipher, 'session', row.username, row.session);
      const secrets = unseal<XWebSecrets>(cipher, 'secrets', row.username, row.secrets);
      if (secrets.method === 'cookies') return { auth_token: secrets.authToken, ct0: secrets.ct0 };
    } catch {
      // A changed SECRET_KEY: the next account, or signed out.
    }
  }
  return null;
}

/** The registry of one process, reading x.com as configured with a pool account's cookies. */
export function createOperationsRegistry(deps: XWebOperationsDeps): XWebOperationsRegistry {
  const cipher =
    deps.cipher ??
    createTokenCipher({ secretKey: deps.config.SECRET_KEY, dataDir: deps.config.DATA_DIR });
  return createXWebOperations({
    db: deps.db,
    page: {
      baseUrl: deps.config.X_WEB_BASE_URL,
      fetch: deps.fetch,
      timeoutMs: deps.config.X_REQUEST_TIMEOUT_SECONDS * 1000,
    },
    cookies: () => poolSessionCookies(deps.db, cipher),
    overridesFile: deps.config.X_WEB_OPERATIONS_FILE,
    minForcedGapMs: deps.config.X_WEB_OPERATIONS_RECHECK_SECONDS * 1000,
    now: deps.now,
    log: deps.log,
  });
}

export function listOperations(registry: XWebOperationsRegistry): Promise<XWebOperations> {
  return registry.list();
}

export function pinOperation(
  registry: XWebOperationsRegistry,
  name: XWebOperation,
  request: PinXWebOperationRequest,
  by: string | null,
): Promise<XWebOperations> {
  return registry.pin(name, request, by);
}

/** 409 when the operation is not pinned. */
export function unpinOperation(
  registry: XWebOperationsRegistry,
  name: XWebOperation,
): Promise<XWebOperations> {
  return registry.unpin(name);
}

/** Why a forced read gave no values, as the client's error; null when it gave them. */
export function refreshFailure(result: RefreshResult): AppError | null {
  if (result.error === null) return null;
  if (result.retryAfterMs !== null || result.error === CHECKED_MOMENTS_AGO) {
    const seconds = Math.max(1, Math.ceil((result.retryAfterMs ?? 1_000) / 1000));
    return tooManyRequests(X_WEB_REFRESH_MESSAGES.tooSoon(seconds), seconds);
  }
  return new AppError(502, 'X_WEB_CLIENT_UNREADABLE', X_WEB_REFRESH_MESSAGES.failed(result.error));
}

/**
 * Reads x.com's client now (at most once a minute in the cluster) and answers what changed
 * with the new list. Only with TWEET_SOURCE=x-web (409 otherwise): other servers never reach
 * x.com. 429 when the last read was moments ago, 502 when x.com could not be read.
 */
export async function refreshOperations(
  config: Config,
  registry: XWebOperationsRegistry,
  reason: string,
): Promise<{ result: RefreshResult; operations: XWebOperations }> {
  if (config.TWEET_SOURCE !== 'x-web') {
    throw conflict(X_WEB_REFRESH_MESSAGES.notXWeb, 'X_WEB_NOT_IN_USE');
  }
  const result = await registry.refresh({ force: true, reason });
  const failure = refreshFailure(result);
  if (failure) throw failure;
  return { result, operations: await registry.list() };
}
