/**
 * The pool of x-web collector accounts, over the x_web_accounts table so that every process
 * agrees on it (twscrape's accounts_pool, in our terms):
 *
 * - A request takes the usable account that was used least recently and whose limit of that
 *   operation is not spent. A spent limit rests the account for that operation until X's reset;
 *   another account serves meanwhile.
 * - An account added with credentials signs in once, when it is first needed. A sign-in that
 *   stops for an emailed code leaves the account AWAITING_INPUT (the super admin's panel), and
 *   one that fails leaves it FAILED: nothing signs in again until an admin resets it (no
 *   automatic re-login loop: a loop of failed sign-ins is what gets accounts locked).
 * - Locked (326), suspended (64) and ended sessions (32, 89, 353, 403) take the account out
 *   with its reason, for the Admin page.
 * - At most one request per account and operation is in flight, in the whole cluster (a lease
 *   row per account and operation), and an account rests while X's remaining count of an
 *   operation is within REMAINING_MARGIN of zero: the pool never spends an account's last reads.
 * - When X answers with HTML pages (Cloudflare), the whole pool pauses (x-web-pool-pause.ts):
 *   the server is refused, not the accounts, so none is taken out for it.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { X_WEB_MESSAGES, type XWebOperation } from '@perch/shared';
import type { Database, XWebAccountStatus } from '../../db/types.js';
import type { TokenCipher } from '../../lib/token-cipher.js';
import {
  claimSignIn,
  claimXWebLease,
  findAwaitingXWebAccount,
  findXWebAccount,
  listXWebAccounts,
  releaseXWebLease,
  seal,
  unseal,
  updateXWebAccount,
  type XWebAccountRow,
  type XWebSecrets,
} from './x-web-accounts.repository.js';
import { sleep } from '../../lib/sleep.js';
import { SourceError } from '../../domain/tweet-source.js';
import type { LoginFlow, LoginOutcome, PendingFlow } from './x-web-login.js';
import { createPoolPause } from './x-web-pool-pause.js';
import type { Cookies } from './x-web-http.js';

/** A limit of one operation of one account, as X's x-rate-limit-* headers told it. */
export interface OperationLimit {
  limit: number | null;
  remaining: number;
  /** Epoch ms. */
  resetAt: number;
}
export type AccountLimits = Partial<Record<XWebOperation, OperationLimit>>;

/** An account handed out for one request of one operation; released when the request ends. */
export interface Lease {
  id: number;
  username: string;
  cookies: Cookies;
  release(): Promise<void>;
}

/** A sign-in claimed longer ago than this was abandoned (its process died): take it over. */
const SIGN_IN_CLAIM_MS = 2 * 60_000;

/** How long an account rests after a 429 that does not say when its window resets. */
export const HEADERLESS_REST_MS = 15 * 60_000;
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

export interface PoolOptions {
  db: Kysely<Database>;
  cipher: TokenCipher;
  login: LoginFlow;
  now?: () => number;
  /** How long a request may hold its account and operation (the request timeout and a margin). */
  leaseMs?: number;
  /** How long a request waits for a busy account before it says the pool is busy. */
  busyWaitMs?: number;
}

/** What a code submitted for a waiting sign-in came to. */
export type CodeResult =
  | { kind: 'signed_in'; username: string }
  | { kind: 'rejected'; username: string; reason: string; stillWaiting: boolean };

export function createXWebPool(options: PoolOptions) {
  const { db, cipher, login } = options;
  const now = options.now ?? Date.now;
  /** Sign-ins running in this process, by account id (one at a time per account). */
  const signingIn = new Map<number, Promise<void>>();
  /** The rows as last read (rateStatus is synchronous). */
  let known: XWebAccountRow[] = [];
  const leaseMs = options.leaseMs ?? 60_000;
  const busyWaitMs = options.busyWaitMs ?? 60_000;
  const pause = createPoolPause(db, now);

  const iso = (ms: number) => new Date(ms).toISOString();

  function sessionOf(row: XWebAccountRow): Cookies | null {
    if (row.session) return unseal<Cookies>(cipher, 'session', row.username, row.session);
    if (row.auth_method === 'cookies') {
      const secrets = unseal<XWebSecrets>(cipher, 'secrets', row.username, row.secrets);
      if (secrets.method === 'cookies') return { auth_token: secrets.authToken, ct0: secrets.ct0 };
    }
    return null;
  }

  /** Records where a sign-in got to. */
  async function applyOutcome(row: XWebAccountRow, outcome: LoginOutcome): Promise<void> {
    const at = iso(now());
    if (outcome.kind === 'signed_in') {
      await updateXWebAccount(db, row.id, {
        status: 'ACTIVE',
        status_reason: null,
        session: seal(cipher, 'session', row.username, outcome.cookies),
        flow: null,
        challenge_step: null,
        challenge_hint: null,
        challenge_since: null,
        updated_at: at,
      });
      return;
    }
    if (outcome.kind === 'awaiting_input') {
      await updateXWebAccount(db, row.id, {
        status: 'AWAITING_INPUT',
        status_reason: null,
        flow: seal(cipher, 'flow', row.username, outcome.flow),
        challenge_step: outcome.flow.step,
        challenge_hint: outcome.hint,
        challenge_since: at,
        updated_at: at,
      });
      return;
    }
    await updateXWebAccount(db, row.id, {
      status: outcome.status,
      status_reason: outcome.reason,
      flow: null,
      challenge_step: null,
      challenge_hint: null,
      challenge_since: null,
      last_error: outcome.reason,
      last_error_at: at,
      updated_at: at,
    });
  }

  /** Signs a NEEDS_LOGIN account in, once (a sign-in already running here is awaited). */
  async function signIn(row: XWebAccountRow): Promise<void> {
    const running = signingIn.get(row.id);
    if (running) return running;
    const work = (async () => {
      const at = now();
      const claimed = await claimSignIn(db, row.id, iso(at), iso(at - SIGN_IN_CLAIM_MS));
      if (!claimed) return;
      const fresh = await findXWebAccount(db, row.id);
      if (fresh?.status !== 'NEEDS_LOGIN') return;
      let outcome: LoginOutcome;
      try {
        const secrets = unseal<XWebSecrets>(cipher, 'secrets', fresh.username, fresh.secrets);
        if (secrets.method !== 'credentials') throw new Error('no credentials are stored');
        outcome = await login.start({
          username: fresh.username,
          password: secrets.password,
          email: secrets.email,
          totpSecret: secrets.totpSecret,
        });
      } catch (error) {
        // Whatever went wrong, the account waits for an admin: never a retry by itself.
        const reason = `The sign-in could not run: ${(error as Error).message}`;
        outcome = { kind: 'failed', status: 'FAILED', reason };
      }
      await applyOutcome(fresh, outcome);
    })();
    signingIn.set(row.id, work);
    try {
      await work;
    } finally {
      signingIn.delete(row.id);
    }
  }

  /** Why nothing can serve: for the handles' last error and the source's blocked state. */
  function noAccountError(rows: XWebAccountRow[], operation: XWebOperation): SourceError {
    const at = now();
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
    return new SourceError(
      'auth',
      `No usable X web account (${out.join(', ')}): see the Admin page`,
    );
  }

  return {
    /** The rows as last read, for rateStatus(). */
    known: () => known,

    /**
     * An account to send `operation` with: the least recently used one whose limit is not
     * spent and that has no request of `operation` in flight. Signs in a NEEDS_LOGIN account
     * when no signed-in one can serve. Throws SourceError('rate_limited') while the pool is
     * paused or every usable account rests, 'auth' when none is usable.
     */
    async acquire(operation: XWebOperation, signal?: AbortSignal): Promise<Lease> {
      let waited = 0;
      let busyWait = 50;
      for (let round = 0; round < 3;) {
        const paused = await pause.current();
        if (paused) throw pause.errorOf(paused);
        const rows = await listXWebAccounts(db);
        known = rows;
        const at = now();
        const ready = rows
          .filter((row) => row.status === 'ACTIVE')
          .filter((row) => restMs(parseLimits(row.limits), operation, at) === 0)
          .sort(
            (a, b) => (a.last_used_at ?? '').localeCompare(b.last_used_at ?? '') || a.id - b.id,
          );
        let busy = false;
        for (const row of ready) {
          const cookies = sessionOf(row);
          if (!cookies) continue;
          const holder = randomUUID();
          if (!(await claimXWebLease(db, row.id, operation, holder, iso(at), iso(at + leaseMs)))) {
            busy = true;
            continue;
          }
          await updateXWebAccount(db, row.id, { last_used_at: iso(at) });
          row.last_used_at = iso(at);
          return {
            id: row.id,
            username: row.username,
            cookies,
            release: () => releaseXWebLease(db, row.id, operation, holder),
          };
        }
        if (busy) {
          // Every account that could serve has a request of this operation in flight.
          if (waited >= busyWaitMs) {
            throw new SourceError(
              'rate_limited',
              `Every X web account has a ${operation} request in flight`,
              1_000,
            );
          }
          await sleep(busyWait, signal);
          waited += busyWait;
          busyWait = Math.min(busyWait * 2, 1_000);
          continue;
        }
        round += 1;
        const waiting = rows.find((row) => row.status === 'NEEDS_LOGIN');
        if (!waiting) throw noAccountError(rows, operation);
        await signIn(waiting);
        const after = await findXWebAccount(db, waiting.id);
        // Another process signs it in: this request waits for the next round of the collector.
        if (after?.status === 'NEEDS_LOGIN') {
          throw new SourceError('auth', `The X web account @${waiting.username} is signing in`);
        }
      }
      throw noAccountError(await listXWebAccounts(db), operation);
    },

    /**
     * A signed-in session's cookies, to read x.com's client as a signed-in browser does (X
     * serves signed-out visitors another build); null when no account is signed in.
     */
    async sessionCookies(): Promise<Cookies | null> {
      const rows = await listXWebAccounts(db);
      for (const row of rows.filter((r) => r.status === 'ACTIVE')) {
        try {
          const cookies = sessionOf(row);
          if (cookies) return cookies;
        } catch {
          // A session sealed with another key: the next account's.
        }
      }
      return null;
    },

    /** The pool's pause as every process sees it (the Admin page). */
    pauseState: pause.read,
    /** X answered with an HTML page: the pool pauses; the error requests get meanwhile. */
    pauseFor: pause.pauseFor,
    /** A request got through: a pause (if any) ends. */
    resumed: pause.resumed,

    /** Keeps what X's headers told of an operation's limit for the account. */
    async recordLimit(
      lease: Lease,
      operation: XWebOperation,
      limit: OperationLimit,
    ): Promise<void> {
      const row = await findXWebAccount(db, lease.id);
      if (!row) return;
      const limits = parseLimits(row.limits);
      limits[operation] = limit;
      await updateXWebAccount(db, lease.id, { limits: JSON.stringify(limits) });
      const cached = known.find((r) => r.id === lease.id);
      if (cached) cached.limits = JSON.stringify(limits);
    },

    /** Takes an account out of the pool with X's reason (locked, suspended, session ended). */
    async takeOut(lease: Lease, status: XWebAccountStatus, reason: string): Promise<void> {
      const at = iso(now());
      await updateXWebAccount(
        db,
        lease.id,
        {
          status,
          status_reason: reason,
          last_error: reason,
          last_error_at: at,
          updated_at: at,
          ...(status === 'EXPIRED' ? { session: null } : {}),
        },
        ['ACTIVE'],
      );
    },

    /** Notes an error of a request that did not take the account out. */
    async noteError(lease: Lease, message: string): Promise<void> {
      const at = iso(now());
      await updateXWebAccount(db, lease.id, { last_error: message, last_error_at: at });
    },

    /**
     * Continues the sign-in waiting for a code with `code` (the oldest waiting account, or the
     * one named): signed in, or refused (still waiting when X lets the step be tried again).
     * Null when no account waits.
     */
    async submitCode(code: string, accountId?: number): Promise<CodeResult | null> {
      const row = await findAwaitingXWebAccount(db, accountId);
      if (!row?.flow) return null;
      const flow = unseal<PendingFlow>(cipher, 'flow', row.username, row.flow);
      const outcome = await login.continueWithCode(flow, code);
      if (outcome.kind === 'failed' && outcome.retryable && outcome.flow) {
        const at = iso(now());
        await updateXWebAccount(db, row.id, { last_error: outcome.reason, last_error_at: at });
        return {
          kind: 'rejected',
          username: row.username,
          reason: outcome.reason,
          stillWaiting: true,
        };
      }
      await applyOutcome(row, outcome);
      if (outcome.kind === 'signed_in') return { kind: 'signed_in', username: row.username };
      if (outcome.kind === 'awaiting_input') {
        return {
          kind: 'rejected',
          username: row.username,
          reason: 'X asks for another code.',
          stillWaiting: true,
        };
      }
      return {
        kind: 'rejected',
        username: row.username,
        reason: outcome.reason,
        stillWaiting: false,
      };
    },
  };
}

export type XWebPool = ReturnType<typeof createXWebPool>;

/** The challenge panel's sentence for an account waiting for an emailed code. */
export const awaitingDetails = (row: XWebAccountRow) =>
  X_WEB_MESSAGES.emailCodeDetails(row.username, row.challenge_hint);
