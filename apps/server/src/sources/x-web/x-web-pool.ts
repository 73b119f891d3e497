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
 *   the server is refused, not the accounts, so none is taken out for it; a sign-in refused so
 *   leaves its account NEEDS_LOGIN, to sign in once the pause is over.
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
  unseal,
  updateXWebAccount,
  type XWebAccountRow,
  type XWebSecrets,
} from './x-web-accounts.repository.js';
import { sleep } from '../../lib/sleep.js';
import { SourceError } from '../../domain/tweet-source.js';
import type { LoginFlow, LoginOutcome, PendingFlow } from './x-web-login.js';
import { HtmlRefusal } from './x-web-client-page.js';
import { createPoolPause } from './x-web-pool-pause.js';
import type { Cookies } from './x-web-http.js';
import {
  noAccountError,
  outcomeUpdate,
  parseLimits,
  restMs,
  sessionOf,
  type OperationLimit,
} from './x-web-pool-rows.js';

export {
  parseLimits,
  REMAINING_MARGIN,
  restMs,
  type AccountLimits,
  type OperationLimit,
} from './x-web-pool-rows.js';

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

const iso = (ms: number) => new Date(ms).toISOString();

/** The pool of collector accounts (see the header). */
export class XWebPool {
  private readonly db: Kysely<Database>;
  private readonly cipher: TokenCipher;
  private readonly login: LoginFlow;
  private readonly now: () => number;
  private readonly leaseMs: number;
  private readonly busyWaitMs: number;
  private readonly pause: ReturnType<typeof createPoolPause>;
  /** Sign-ins running in this process, by account id (one at a time per account). */
  private readonly signingIn = new Map<number, Promise<void>>();
  /** The rows as last read (rateStatus is synchronous). */
  private rows: XWebAccountRow[] = [];

  constructor(options: PoolOptions) {
    this.db = options.db;
    this.cipher = options.cipher;
    this.login = options.login;
    this.now = options.now ?? Date.now;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.busyWaitMs = options.busyWaitMs ?? 60_000;
    this.pause = createPoolPause(this.db, this.now);
  }

  /** The rows as last read, for rateStatus(). */
  known(): XWebAccountRow[] {
    return this.rows;
  }

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
      const paused = await this.pause.current();
      if (paused) throw this.pause.errorOf(paused);
      const rows = await listXWebAccounts(this.db);
      this.rows = rows;
      const lease = await this.leaseReady(rows, operation);
      if (lease === 'busy') {
        // Every account that could serve has a request of this operation in flight.
        if (waited >= this.busyWaitMs) {
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
      if (lease) return lease;
      round += 1;
      await this.signInOneFor(rows, operation);
    }
    throw noAccountError(await listXWebAccounts(this.db), operation, this.now());
  }

  /**
   * A signed-in session's cookies, to read x.com's client as a signed-in browser does (X
   * serves signed-out visitors another build); null when no account is signed in.
   */
  async sessionCookies(): Promise<Cookies | null> {
    const rows = await listXWebAccounts(this.db);
    for (const row of rows.filter((r) => r.status === 'ACTIVE')) {
      try {
        const cookies = sessionOf(this.cipher, row);
        if (cookies) return cookies;
      } catch {
        // A session sealed with another key: the next account's.
      }
    }
    return null;
  }

  /** The pool's pause as every process sees it (the Admin page). */
  pauseState() {
    return this.pause.read();
  }

  /** X answered with an HTML page: the pool pauses; the error requests get meanwhile. */
  pauseFor(reason: string): Promise<SourceError> {
    return this.pause.pauseFor(reason);
  }

  /** A request got through: a pause (if any) ends. */
  resumed(): Promise<void> {
    return this.pause.resumed();
  }

  /** Keeps what X's headers told of an operation's limit for the account. */
  async recordLimit(lease: Lease, operation: XWebOperation, limit: OperationLimit): Promise<void> {
    const row = await findXWebAccount(this.db, lease.id);
    if (!row) return;
    const limits = parseLimits(row.limits);
    limits[operation] = limit;
    await updateXWebAccount(this.db, lease.id, { limits: JSON.stringify(limits) });
    const cached = this.rows.find((r) => r.id === lease.id);
    if (cached) cached.limits = JSON.stringify(limits);
  }

  /** Takes an account out of the pool with X's reason (locked, suspended, session ended). */
  async takeOut(lease: Lease, status: XWebAccountStatus, reason: string): Promise<void> {
    const at = iso(this.now());
    await updateXWebAccount(
      this.db,
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
  }

  /** Notes an error of a request that did not take the account out. */
  async noteError(lease: Lease, message: string): Promise<void> {
    const at = iso(this.now());
    await updateXWebAccount(this.db, lease.id, { last_error: message, last_error_at: at });
  }

  /**
   * Continues the sign-in waiting for a code with `code` (the oldest waiting account, or the
   * one named): signed in, or refused (still waiting when X lets the step be tried again).
   * Null when no account waits.
   */
  async submitCode(code: string, accountId?: number): Promise<CodeResult | null> {
    const row = await findAwaitingXWebAccount(this.db, accountId);
    if (!row?.flow) return null;
    const flow = unseal<PendingFlow>(this.cipher, 'flow', row.username, row.flow);
    const rejected = (reason: string, stillWaiting: boolean): CodeResult => ({
      kind: 'rejected',
      username: row.username,
      reason,
      stillWaiting,
    });
    let outcome: LoginOutcome;
    try {
      outcome = await this.login.continueWithCode(flow, code);
    } catch (error) {
      if (!(error instanceof HtmlRefusal)) throw error;
      // The server is refused, not the code: the flow still waits for it.
      return rejected((await this.pause.pauseFor(error.message)).message, true);
    }
    if (outcome.kind === 'failed' && outcome.retryable && outcome.flow) {
      const at = iso(this.now());
      await updateXWebAccount(this.db, row.id, { last_error: outcome.reason, last_error_at: at });
      return rejected(outcome.reason, true);
    }
    await this.applyOutcome(row, outcome);
    if (outcome.kind === 'signed_in') return { kind: 'signed_in', username: row.username };
    if (outcome.kind === 'awaiting_input') return rejected('X asks for another code.', true);
    return rejected(outcome.reason, false);
  }

  /**
   * Leases the least recently used ready account for `operation`: the lease, 'busy' when every
   * ready account has a request of it in flight, null when none is ready.
   */
  private async leaseReady(
    rows: XWebAccountRow[],
    operation: XWebOperation,
  ): Promise<Lease | 'busy' | null> {
    const at = this.now();
    const ready = rows
      .filter((row) => row.status === 'ACTIVE')
      .filter((row) => restMs(parseLimits(row.limits), operation, at) === 0)
      .sort((a, b) => (a.last_used_at ?? '').localeCompare(b.last_used_at ?? '') || a.id - b.id);
    let busy = false;
    for (const row of ready) {
      const cookies = sessionOf(this.cipher, row);
      if (!cookies) continue;
      const holder = randomUUID();
      const until = iso(at + this.leaseMs);
      if (!(await claimXWebLease(this.db, row.id, operation, holder, iso(at), until))) {
        busy = true;
        continue;
      }
      await updateXWebAccount(this.db, row.id, { last_used_at: iso(at) });
      row.last_used_at = iso(at);
      return {
        id: row.id,
        username: row.username,
        cookies,
        release: () => releaseXWebLease(this.db, row.id, operation, holder),
      };
    }
    return busy ? 'busy' : null;
  }

  /** No account could serve: signs one in, or throws why none can. */
  private async signInOneFor(rows: XWebAccountRow[], operation: XWebOperation): Promise<void> {
    const waiting = rows.find((row) => row.status === 'NEEDS_LOGIN');
    if (!waiting) throw noAccountError(rows, operation, this.now());
    await this.signIn(waiting);
    const after = await findXWebAccount(this.db, waiting.id);
    // Another process signs it in: this request waits for the next round of the collector.
    if (after?.status === 'NEEDS_LOGIN') {
      throw new SourceError('auth', `The X web account @${waiting.username} is signing in`);
    }
  }

  /** Signs a NEEDS_LOGIN account in, once (a sign-in already running here is awaited). */
  private async signIn(row: XWebAccountRow): Promise<void> {
    const running = this.signingIn.get(row.id);
    if (running) return running;
    const work = this.signInClaimed(row);
    this.signingIn.set(row.id, work);
    try {
      await work;
    } finally {
      this.signingIn.delete(row.id);
    }
  }

  /**
   * Claims the account's sign-in across processes and runs it. An HTML answer leaves the
   * account NEEDS_LOGIN and pauses the pool: the server is refused, not the account.
   */
  private async signInClaimed(row: XWebAccountRow): Promise<void> {
    const at = this.now();
    const claimed = await claimSignIn(this.db, row.id, iso(at), iso(at - SIGN_IN_CLAIM_MS));
    if (!claimed) return;
    const fresh = await findXWebAccount(this.db, row.id);
    if (fresh?.status !== 'NEEDS_LOGIN') return;
    let outcome: LoginOutcome;
    try {
      outcome = await this.signInWith(fresh);
    } catch (error) {
      if (!(error instanceof HtmlRefusal)) throw error;
      // The server is refused, not the account: it signs in when the pause is over.
      const refusedAt = iso(this.now());
      await updateXWebAccount(this.db, fresh.id, {
        status_reason: null,
        last_error: `The sign-in was refused with ${error.message}`,
        last_error_at: refusedAt,
        updated_at: refusedAt,
      });
      throw await this.pause.pauseFor(error.message);
    }
    await this.applyOutcome(fresh, outcome);
  }

  /**
   * Runs the sign-in of `row` from its stored credentials. Throws HtmlRefusal (the server is
   * refused); any other trouble is a FAILED outcome: the account waits for an admin, never a
   * sign-in again by itself.
   */
  private async signInWith(row: XWebAccountRow): Promise<LoginOutcome> {
    try {
      const secrets = unseal<XWebSecrets>(this.cipher, 'secrets', row.username, row.secrets);
      if (secrets.method !== 'credentials') throw new Error('no credentials are stored');
      return await this.login.start({
        username: row.username,
        password: secrets.password,
        email: secrets.email,
        totpSecret: secrets.totpSecret,
      });
    } catch (error) {
      if (error instanceof HtmlRefusal) throw error;
      const reason = `The sign-in could not run: ${(error as Error).message}`;
      return { kind: 'failed', status: 'FAILED', reason };
    }
  }

  /** Records where a sign-in got to. */
  private async applyOutcome(row: XWebAccountRow, outcome: LoginOutcome): Promise<void> {
    await updateXWebAccount(
      this.db,
      row.id,
      outcomeUpdate(this.cipher, row, outcome, iso(this.now())),
    );
  }
}

export function createXWebPool(options: PoolOptions): XWebPool {
  return new XWebPool(options);
}

/** The challenge panel's sentence for an account waiting for an emailed code. */
export const awaitingDetails = (row: XWebAccountRow) =>
  X_WEB_MESSAGES.emailCodeDetails(row.username, row.challenge_hint);
