/**
 * The x-web pool's rules over its rows, without I/O: an account's limits as X's headers told
 * them, its session, why no account can serve an operation, and the update of a row for where a
 * sign-in got to.
 */
import type { XWebOperation } from '@perch/shared';
import type { TokenCipher } from '../../lib/token-cipher.js';
import { SourceError } from '../../domain/tweet-source.js';
import {
  seal,
  unseal,
  type XWebAccountRow,
  type XWebSecrets,
} from './x-web-accounts.repository.js';
import type { Cookies } from './x-web-http.js';
import type { LoginOutcome } from './x-web-login.js';

/** A limit of one operation of one account, as X's x-rate-limit-* headers told it. */
export interface OperationLimit {
  limit: number | null;
  remaining: number;
  /** Epoch ms. */
  resetAt: number;
}
export type AccountLimits = Partial<Record<XWebOperation, OperationLimit>>;

/** X's remaining count at or under which an account rests (its last reads are never spent). */
export const REMAINING_MARGIN = 2;

export function parseLimits(raw: string): AccountLimits {
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed !== null && typeof parsed === 'object' ? (parsed as AccountLimits) : {};
  } catch {
    return {};
  }
}

/** Ms until the account may serve `operation` again; 0 when it may now. */
export function restMs(limits: AccountLimits, operation: XWebOperation, now: number): number {
  const limit = limits[operation];
  if (!limit || limit.remaining > REMAINING_MARGIN) return 0;
  return Math.max(0, limit.resetAt - now);
}

/** The account's cookies: its session, else the cookies it was added with; null: none. */
export function sessionOf(cipher: TokenCipher, row: XWebAccountRow): Cookies | null {
  if (row.session) return unseal<Cookies>(cipher, 'session', row.username, row.session);
  if (row.auth_method === 'cookies') {
    const secrets = unseal<XWebSecrets>(cipher, 'secrets', row.username, row.secrets);
    if (secrets.method === 'cookies') return { auth_token: secrets.authToken, ct0: secrets.ct0 };
  }
  return null;
}

/** Why nothing can serve: for the handles' last error and the source's blocked state. */
export function noAccountError(rows: XWebAccountRow[], operation: XWebOperation, at: number) {
  const active = rows.filter((row) => row.status === 'ACTIVE');
  const rests = active.map((row) => restMs(parseLimits(row.limits), operation, at));
  if (rests.length > 0) {
    const wait = Math.min(...rests);
    return new SourceError(
      'rate_limited',
      `Every X web account has spent its ${operation} limit; the first is back in ${Math.ceil(wait / 1000)} s`,
      Math.max(1_000, wait),
    );
  }
  if (rows.length === 0) {
    return new SourceError(
      'auth',
      'No X web account in the collector pool: add one on the Admin page',
    );
  }
  const awaiting = rows.find((row) => row.status === 'AWAITING_INPUT');
  if (awaiting) {
    return new SourceError(
      'auth',
      `The X web account @${awaiting.username} waits for a verification code (Admin page)`,
    );
  }
  const out = rows.map((row) => `@${row.username} ${row.status.toLowerCase().replace('_', ' ')}`);
  return new SourceError('auth', `No usable X web account (${out.join(', ')}): see the Admin page`);
}

/** An account's row with no sign-in flow waiting (signed in, or given up). */
const NO_SIGN_IN_FLOW = {
  flow: null,
  challenge_step: null,
  challenge_hint: null,
  challenge_since: null,
} as const;

/** The update of an account's row for where a sign-in got to. */
export function outcomeUpdate(
  cipher: TokenCipher,
  row: XWebAccountRow,
  outcome: LoginOutcome,
  at: string,
) {
  if (outcome.kind === 'signed_in') {
    return {
      status: 'ACTIVE' as const,
      status_reason: null,
      session: seal(cipher, 'session', row.username, outcome.cookies),
      ...NO_SIGN_IN_FLOW,
      updated_at: at,
    };
  }
  if (outcome.kind === 'awaiting_input') {
    return {
      status: 'AWAITING_INPUT' as const,
      status_reason: null,
      flow: seal(cipher, 'flow', row.username, outcome.flow),
      challenge_step: outcome.flow.step,
      challenge_hint: outcome.hint,
      challenge_since: at,
      updated_at: at,
    };
  }
  return {
    status: outcome.status,
    status_reason: outcome.reason,
    ...NO_SIGN_IN_FLOW,
    last_error: outcome.reason,
    last_error_at: at,
    updated_at: at,
  };
}
