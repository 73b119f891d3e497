/**
 * One GraphQL call of the x-web source, as x.com's client makes it: an account from the pool,
 * the operation's current query id, features and field toggles, a transaction id, and what
 * the answer means (x-web-answer.ts) acted on:
 *
 * - a stale transaction id (404, empty body) is made anew and the call tried again; a 404 that
 *   persists, or an operation X says it does not know, makes the source read x.com's client for
 *   the operations in use and try again, with no restart (a read refused as made moments ago
 *   is waited out when that is a few seconds; otherwise the request ends, told when to retry);
 * - missing features are added from X's own message and the client is read again;
 * - an HTML page pauses the pool; an account's own trouble takes it out or rests it and the
 *   call moves to another account; overload is retried with backoff, and noted on the account
 *   when it outlasts the retries.
 */
import type { XWebOperation } from '@perch/shared';
import type { XRequestMetrics } from '../../lib/metrics.js';
import { abortReason, sleep } from '../../lib/sleep.js';
import { SourceError } from '../../domain/tweet-source.js';
import { classifyAnswer, parseBody, type Answer, type RawAnswer } from './x-web-answer.js';
import { webHeaders } from './x-web-http.js';
import { HtmlRefusal } from './x-web-client-page.js';
import type { OperationValues } from './x-web-operation-defaults.js';
import { HEADERLESS_REST_MS, type Lease, type XWebPool } from './x-web-pool.js';
import type { TransactionIds } from './x-web-transaction.js';
import { headerNumber } from '../../lib/http-headers.js';

/** How long an account rests an operation when X limits it with requests left (error 88). */
const LIMITED_REST_MS = 24 * 60 * 60_000;
/** Calls of one request at most (accounts rotated, ids renewed, operations re-read). */
const MAX_ATTEMPTS = 30;
/**
 * A forced read of x.com's client refused as too soon (another was made moments ago) is waited
 * out and tried once more when it may be made within this; a longer wait is the request's.
 */
const SHORT_REREAD_WAIT_MS = 5_000;

/** The operations in use, as the source needs them (x-web-operations.ts). */
export interface OperationsInUse {
  current(name: XWebOperation): Promise<OperationValues>;
  /** `retryAfterMs` is set when the read was not made because another was made moments ago. */
  refresh(options: {
    force?: boolean;
    reason?: string;
  }): Promise<{ error: string | null; retryAfterMs: number | null }>;
  addMissingFeatures(name: XWebOperation, features: string[]): Promise<void>;
}

/** How requests to X's web API are made, timed and retried; tests replace the defaults. */
export interface XWebRequestOptions {
  fetch?: typeof fetch;
  now?: () => number;
  timeoutMs?: number;
  retryBaseMs?: number;
  maxRetries?: number;
  metrics?: XRequestMetrics;
  /** How the client waits (backoff, a read of x.com's client refused as too soon); tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface GraphqlOptions extends XWebRequestOptions {
  /** X_WEB_BASE_URL: GraphQL at /i/api/graphql. */
  baseUrl: string;
  pool: XWebPool;
  operations: OperationsInUse;
  transactionIds: TransactionIds;
}

/** What one request has been through so far, for the rules that allow another try. */
interface Attempts {
  operation: XWebOperation;
  signal?: AbortSignal;
  /** Tries that failed for X's overload or the network (retried with backoff). */
  failures: number;
  /** Transaction ids X refused (one is made anew, then the query id is suspected). */
  staleIds: number;
  /** x.com's client was read again for this request (once). */
  reread: boolean;
  /** Times missing features were added (twice at most). */
  healed: number;
}

/** The answer of one try, with the account that sent it and X's remaining count. */
interface Sent {
  answer: RawAnswer;
  lease: Lease;
  remaining: number | null;
  reset: number | null;
}

/** One GraphQL call with every try it takes; see the header for the rules. */
class GraphqlClient {
  private readonly baseUrl: string;
  private readonly doFetch: typeof fetch;
  private readonly now: () => number;
  private readonly timeoutMs: number;
  private readonly retryBaseMs: number;
  private readonly maxRetries: number;
  private readonly wait: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(private readonly options: GraphqlOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.doFetch = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.maxRetries = options.maxRetries ?? 3;
    this.wait = options.sleep ?? sleep;
  }

  /** One GraphQL call, rotating accounts on limits and account errors: the body of a 200. */
  async call(
    operation: XWebOperation,
    variables: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const attempts: Attempts = {
      operation,
      signal,
      failures: 0,
      staleIds: 0,
      reread: false,
      healed: 0,
    };
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const sent = await this.tryOnce(variables, attempts);
      if (!sent) continue;
      const body = await this.act(classifyAnswer(sent.answer, sent.remaining), sent, attempts);
      if (body) return body;
    }
    throw new SourceError('unavailable', `X web: ${operation} failed with every account`);
  }

  /** Sends the request once with an account of the pool; null: the network failed, try again. */
  private async tryOnce(variables: Record<string, unknown>, attempts: Attempts) {
    const { operation, signal } = attempts;
    const url = await this.urlOf(operation, variables);
    const lease = await this.options.pool.acquire(operation, signal);
    let answer: RawAnswer;
    try {
      answer = await this.send(url, lease, signal);
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      if (error instanceof SourceError) throw error;
      this.options.metrics?.xRequest(operation, 0);
      if (attempts.failures++ < this.maxRetries) {
        await this.backoff(attempts.failures, signal);
        return null;
      }
      throw new SourceError('unavailable', `X web unreachable: ${(error as Error).message}`);
    } finally {
      await lease.release();
    }
    return this.noteHeaders(answer, lease, operation);
  }

  /** Counts the request and keeps what X's headers tell of the account's limit. */
  private async noteHeaders(answer: RawAnswer, lease: Lease, operation: XWebOperation) {
    const { status, headers } = answer;
    this.options.metrics?.xRequest(operation, status);
    const remaining = headerNumber(headers, 'x-rate-limit-remaining');
    const reset = headerNumber(headers, 'x-rate-limit-reset');
    if (remaining !== null && reset !== null) {
      await this.options.pool.recordLimit(lease, operation, {
        limit: headerNumber(headers, 'x-rate-limit-limit'),
        remaining,
        resetAt: reset * 1000,
      });
    }
    return { answer, lease, remaining, reset } satisfies Sent;
  }

  /** Acts on what the answer means: the body of a 200, or null to try again; else throws. */
  private async act(
    meaning: Answer,
    sent: Sent,
    attempts: Attempts,
  ): Promise<Record<string, unknown> | null> {
    const { pool } = this.options;
    const { operation, signal } = attempts;
    switch (meaning.kind) {
      case 'ok':
        await pool.resumed();
        return sent.answer.body as Record<string, unknown>;
      case 'html':
        throw await pool.pauseFor(meaning.reason);
      case 'stale_transaction':
      case 'unknown_operation':
      case 'missing_features':
        await this.healOperation(meaning, attempts);
        return null;
      case 'account_out':
        await this.takeOut(meaning, sent.lease);
        return null;
      case 'rate_limited':
      case 'account_limited':
        await this.rest(meaning, sent, operation);
        return null;
      case 'transient':
        if (attempts.failures++ < this.maxRetries) {
          await this.backoff(attempts.failures, signal);
          return null;
        }
        await pool.noteError(sent.lease, `${operation}: ${meaning.reason}`);
        throw new SourceError('unavailable', `X web error on ${operation}: ${meaning.reason}`);
      case 'refused':
        await pool.noteError(sent.lease, `${operation}: ${meaning.reason}`);
        throw new SourceError('unavailable', `X web refused ${operation}: ${meaning.reason}`);
    }
  }

  /**
   * X does not take the request as the operation is sent: a new transaction id, then x.com's
   * client read again, or the features X names added. Throws when that was done already.
   */
  private async healOperation(
    meaning: Extract<
      Answer,
      { kind: 'stale_transaction' | 'unknown_operation' | 'missing_features' }
    >,
    attempts: Attempts,
  ): Promise<void> {
    const { operation, signal } = attempts;
    const { operations, transactionIds } = this.options;
    if (meaning.kind === 'missing_features') {
      if (attempts.healed++ >= 2) {
        throw new SourceError('unavailable', `X web refused ${operation}: ${meaning.reason}`);
      }
      await operations.addMissingFeatures(operation, meaning.features);
      // The features are added already: a read refused as too soon does not matter.
      await operations.refresh({ force: true, reason: `${operation}: ${meaning.reason}` });
      return;
    }
    const stale = meaning.kind === 'stale_transaction';
    // X refuses the id: a new one first; a 404 that outlives a new id is the query id.
    if (stale && attempts.staleIds++ < 1) {
      transactionIds.renew();
      return;
    }
    if (attempts.reread) {
      throw new SourceError(
        'unavailable',
        stale
          ? `X web: ${operation} answered 404 with a new transaction id and the operations of x.com's current client`
          : `X web: ${operation} is unknown to X`,
      );
    }
    attempts.reread = true;
    const reason = stale ? `${operation} answered 404` : `${operation} is unknown to X`;
    await this.readClientAgain(reason, signal);
  }

  /** X says the account is locked, suspended or signed out: the pool takes it out. */
  private async takeOut(meaning: Extract<Answer, { kind: 'account_out' }>, lease: Lease) {
    const why = {
      LOCKED: `X locked the account: ${meaning.reason}`,
      SUSPENDED: `X suspended the account: ${meaning.reason}`,
      EXPIRED: `X ended the session (${meaning.reason}): paste new cookies or reset it to sign in again`,
    }[meaning.status];
    await this.options.pool.takeOut(lease, meaning.status, why);
  }

  /** X limits the account on the operation: it rests until X's reset (24 h when X limits it). */
  private async rest(
    meaning: Extract<Answer, { kind: 'rate_limited' | 'account_limited' }>,
    { lease, answer, reset }: Sent,
    operation: XWebOperation,
  ): Promise<void> {
    const limited = meaning.kind === 'account_limited';
    const at = this.now();
    const resetAt = limited
      ? at + LIMITED_REST_MS
      : reset !== null && reset * 1000 > at
        ? reset * 1000
        : at + HEADERLESS_REST_MS;
    await this.options.pool.recordLimit(lease, operation, {
      limit: headerNumber(answer.headers, 'x-rate-limit-limit'),
      remaining: 0,
      resetAt,
    });
    const until = new Date(resetAt).toISOString();
    await this.options.pool.noteError(
      lease,
      limited
        ? `X limits this account on ${operation} though its window has requests left (${meaning.reason}): resting it until ${until}`
        : `Rate limited on ${operation} until ${until} (${meaning.reason})`,
    );
  }

  private async urlOf(operation: XWebOperation, variables: Record<string, unknown>) {
    const values = await this.options.operations.current(operation);
    const url = new URL(`${this.baseUrl}/i/api/graphql/${values.queryId}/${operation}`);
    url.searchParams.set('variables', JSON.stringify(variables));
    url.searchParams.set('features', JSON.stringify(values.features));
    if (Object.keys(values.fieldToggles).length > 0) {
      url.searchParams.set('fieldToggles', JSON.stringify(values.fieldToggles));
    }
    return url;
  }

  private async send(url: URL, lease: Lease, signal?: AbortSignal): Promise<RawAnswer> {
    const transactionId = await this.transactionIdFor(url);
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const response = await this.doFetch(url, {
      headers: webHeaders(lease.cookies, {
        'content-type': 'application/json',
        'x-client-transaction-id': transactionId,
      }),
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: parseBody(text) };
  }

  private async transactionIdFor(url: URL): Promise<string> {
    try {
      return await this.options.transactionIds.idFor('GET', url.pathname);
    } catch (error) {
      if (error instanceof SourceError) throw error;
      // x.com's page answered with a Cloudflare page: the server is refused, as for GraphQL.
      if (error instanceof HtmlRefusal) throw await this.options.pool.pauseFor(error.message);
      throw new SourceError(
        'unavailable',
        `X web: no transaction id (x.com's client could not be read: ${(error as Error).message})`,
      );
    }
  }

  private async backoff(failures: number, signal?: AbortSignal) {
    await this.wait(this.retryBaseMs * 2 ** failures * (1 + Math.random()), signal);
  }

  /**
   * Reads x.com's client again because X refused `reason`. A read refused as too soon is waited
   * out once when that is short; otherwise the request ends, told when a read may be made.
   */
  private async readClientAgain(reason: string, signal?: AbortSignal): Promise<void> {
    const { operations } = this.options;
    let result = await operations.refresh({ force: true, reason });
    if (result.retryAfterMs !== null && result.retryAfterMs <= SHORT_REREAD_WAIT_MS) {
      await this.wait(result.retryAfterMs, signal);
      result = await operations.refresh({ force: true, reason });
    }
    if (result.retryAfterMs !== null) {
      throw new SourceError(
        'unavailable',
        `X web: ${reason}, and ${result.error ?? "x.com's client was read moments ago"}`,
        Math.max(1_000, result.retryAfterMs),
      );
    }
  }
}

/** The GraphQL call of the x-web source: `call(operation, variables, signal)`. */
export function createGraphqlClient(options: GraphqlOptions) {
  const client = new GraphqlClient(options);
  return (operation: XWebOperation, variables: Record<string, unknown>, signal?: AbortSignal) =>
    client.call(operation, variables, signal);
}

export type GraphqlCall = ReturnType<typeof createGraphqlClient>;
