/**
 * The x-web collector accounts as admins manage them (Admin page, admin API, CLI): add by
 * cookies or by credentials, list with status and limits, remove, reset one that is out so it
 * is used (or signs in) again, and continue a sign-in that waits for an emailed code.
 */
import type { Kysely } from 'kysely';
import {
  X_WEB_MESSAGES,
  X_WEB_OPERATIONS,
  type AddXWebAccount,
  type XWebAccount,
  type XWebAccounts,
} from '@perch/shared';
import { createLoginFlow } from '../../sources/x-web/x-web-login.js';
import {
  createXWebPool,
  parseLimits,
  restMs,
  type CodeResult,
} from '../../sources/x-web/x-web-pool.js';
import { createTransactionIds } from '../../sources/x-web/x-web-transaction.js';
import type { Config } from '../../config.js';
import type { Database } from '../../db/types.js';
import { conflict, notFound } from '../../lib/errors.js';
import { createTokenCipher, type TokenCipher } from '../../lib/token-cipher.js';
import {
  deleteXWebAccount,
  findXWebAccount,
  findXWebAccountByUsername,
  insertXWebAccount,
  listXWebAccounts,
  probeSoon,
  readXWebPause,
  seal,
  unseal,
  updateXWebAccount,
  type XWebAccountRow,
  type XWebSecrets,
} from '../../sources/x-web/x-web-accounts.repository.js';

export interface XWebAccountsDeps {
  config: Config;
  db: Kysely<Database>;
  /** Defaults to the token cipher of SECRET_KEY / DATA_DIR. */
  cipher?: TokenCipher;
  /** Tests inject it; defaults to the global fetch. */
  fetch?: typeof fetch;
  now?: () => number;
}

const cipherOf = (deps: XWebAccountsDeps) =>
  deps.cipher ??
  createTokenCipher({ secretKey: deps.config.SECRET_KEY, dataDir: deps.config.DATA_DIR });

/** The public view of an account: never a secret. */
export function toXWebAccount(row: XWebAccountRow, cipher: TokenCipher, now: number): XWebAccount {
  const limits = parseLimits(row.limits);
  let hasTotp = false;
  if (row.auth_method === 'credentials') {
    try {
      const secrets = unseal<XWebSecrets>(cipher, 'secrets', row.username, row.secrets);
      hasTotp = secrets.method === 'credentials' && secrets.totpSecret !== null;
    } catch {
      // A changed SECRET_KEY: the row shows as it is; collection reports the cipher error.
    }
  }
  const rests = X_WEB_OPERATIONS.map((op) => restMs(limits, op, now)).filter((ms) => ms > 0);
  return {
    id: row.id,
    username: row.username,
    auth_method: row.auth_method,
    has_totp: hasTotp,
    status: row.status,
    status_reason: row.status_reason,
    challenge_step: row.challenge_step,
    challenge_since: row.challenge_since,
    limits: X_WEB_OPERATIONS.filter((op) => limits[op]).map((op) => {
      const limit = limits[op]!;
      const reset = limit.resetAt <= now;
      return {
        operation: op,
        limit: limit.limit,
        // A window that has reset is whole again.
        remaining: reset ? limit.limit : limit.remaining,
        reset_at: reset ? null : new Date(limit.resetAt).toISOString(),
      };
    }),
    resting_until: rests.length > 0 ? new Date(now + Math.max(...rests)).toISOString() : null,
    last_error: row.last_error,
    last_error_at: row.last_error_at,
    last_used_at: row.last_used_at,
    created_at: row.created_at,
  };
}

export async function listAccounts(deps: XWebAccountsDeps): Promise<XWebAccounts> {
  const cipher = cipherOf(deps);
  const now = (deps.now ?? Date.now)();
  const rows = await listXWebAccounts(deps.db);
  const pause = await readXWebPause(deps.db);
  const paused = pause.pausedUntil !== null && Date.parse(pause.pausedUntil) > now;
  return {
    in_use: deps.config.TWEET_SOURCE === 'x-web',
    accounts: rows.map((row) => toXWebAccount(row, cipher, now)),
    pool: {
      paused_until: paused ? pause.pausedUntil : null,
      pause_reason: paused ? pause.reason : null,
      paused_since: paused ? pause.since : null,
    },
  };
}

export async function addAccount(
  deps: XWebAccountsDeps,
  input: AddXWebAccount,
): Promise<XWebAccount> {
  const cipher = cipherOf(deps);
  const now = (deps.now ?? Date.now)();
  const at = new Date(now).toISOString();
  if (await findXWebAccountByUsername(deps.db, input.username)) {
    throw conflict(X_WEB_MESSAGES.accountExists(input.username), 'X_WEB_ACCOUNT_EXISTS');
  }
  const secrets: XWebSecrets =
    input.method === 'cookies'
      ? { method: 'cookies', authToken: input.auth_token, ct0: input.ct0 }
      : {
          method: 'credentials',
          password: input.password,
          email: input.email,
          totpSecret: input.totp_secret ?? null,
        };
  const row = await insertXWebAccount(deps.db, {
    username: input.username,
    auth_method: input.method,
    secrets: seal(cipher, 'secrets', input.username, secrets),
    session: null,
    flow: null,
    // Cookies are a session already; credentials sign in when the source first needs them.
    status: input.method === 'cookies' ? 'ACTIVE' : 'NEEDS_LOGIN',
    status_reason: null,
    challenge_step: null,
    challenge_hint: null,
    challenge_since: null,
    last_error: null,
    last_error_at: null,
    last_used_at: null,
    created_at: at,
    updated_at: at,
  }).catch(async (error: unknown) => {
    // Two adds of one name at once: the unique index keeps one.
    if (await findXWebAccountByUsername(deps.db, input.username)) {
      throw conflict(X_WEB_MESSAGES.accountExists(input.username), 'X_WEB_ACCOUNT_EXISTS');
    }
    throw error;
  });
  await probeSoon(deps.db, at);
  return toXWebAccount(row, cipher, now);
}

async function requireAccount(deps: XWebAccountsDeps, id: number): Promise<XWebAccountRow> {
  const row = await findXWebAccount(deps.db, id);
  if (!row) throw notFound(X_WEB_MESSAGES.accountNotFound, 'X_WEB_ACCOUNT_NOT_FOUND');
  return row;
}

export async function removeAccount(deps: XWebAccountsDeps, id: number): Promise<XWebAccountRow> {
  const row = await requireAccount(deps, id);
  if (!(await deleteXWebAccount(deps.db, id))) {
    throw notFound(X_WEB_MESSAGES.accountNotFound, 'X_WEB_ACCOUNT_NOT_FOUND');
  }
  return row;
}

/**
 * Puts an account that is out back in the pool: one with credentials signs in afresh when next
 * needed (a waiting sign-in is dropped); one with cookies is tried with them again. 409 when it
 * is usable already.
 */
export async function resetAccount(deps: XWebAccountsDeps, id: number): Promise<XWebAccount> {
  const cipher = cipherOf(deps);
  const now = (deps.now ?? Date.now)();
  const row = await requireAccount(deps, id);
  if (row.status === 'ACTIVE' || row.status === 'NEEDS_LOGIN') {
    throw conflict(X_WEB_MESSAGES.accountResetNotNeeded(row.username), 'X_WEB_ACCOUNT_USABLE');
  }
  const at = new Date(now).toISOString();
  await updateXWebAccount(
    deps.db,
    id,
    {
      status: row.auth_method === 'cookies' ? 'ACTIVE' : 'NEEDS_LOGIN',
      status_reason: null,
      session: null,
      flow: null,
      challenge_step: null,
      challenge_hint: null,
      challenge_since: null,
      limits: '{}',
      updated_at: at,
    },
    [row.status],
  );
  await probeSoon(deps.db, at);
  return toXWebAccount(await requireAccount(deps, id), cipher, now);
}

/**
 * Continues the sign-in waiting for a code (the oldest, or account `id`) with `code`, at once:
 * null when no account waits.
 */
export async function submitAccountCode(
  deps: XWebAccountsDeps,
  code: string,
  id?: number,
): Promise<CodeResult | null> {
  const now = deps.now ?? Date.now;
  const timeoutMs = deps.config.X_REQUEST_TIMEOUT_SECONDS * 1000;
  // The code continues a sign-in: its request is signed like x.com's (no session yet).
  const transactionIds = createTransactionIds({
    page: { baseUrl: deps.config.X_WEB_BASE_URL, fetch: deps.fetch, timeoutMs },
    cookies: () => Promise.resolve(null),
    now,
  });
  const pool = createXWebPool({
    db: deps.db,
    cipher: cipherOf(deps),
    now,
    login: createLoginFlow({
      apiBaseUrl: deps.config.X_WEB_API_BASE_URL,
      fetch: deps.fetch,
      now,
      timeoutMs,
      transactionIds,
    }),
  });
  const result = await pool.submitCode(code, id);
  if (result?.kind === 'signed_in') await probeSoon(deps.db, new Date(now()).toISOString());
  return result;
}
