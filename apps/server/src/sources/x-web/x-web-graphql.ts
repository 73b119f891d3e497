/**
 * One GraphQL call of the x-web source, as x.com's client makes it: an account from the pool,
 * the operation's current query id, features and field toggles, a transaction id, and what
 * the answer means (x-web-answer.ts) acted on:
 *
 * - a stale transaction id (404, empty body) is made anew and the call tried again; a 404 that
 *   persists, or an operation X says it does not know, makes the source read x.com's client for
 *   the operations in use and try again, with no restart;
 * - missing features are added from X's own message and the client is read again;
 * - an HTML page pauses the pool; an account's own trouble takes it out or rests it and the
 *   call moves to another account; overload is retried with backoff.
 */
import type { XWebOperation } from '@perch/shared';
import type { XRequestMetrics } from '../../lib/metrics.js';
import { abortReason, sleep } from '../../lib/sleep.js';
import { SourceError } from '../../domain/tweet-source.js';
import { classifyAnswer, parseBody, type RawAnswer } from './x-web-answer.js';
import { webHeaders } from './x-web-http.js';
import { HtmlRefusal } from './x-web-client-page.js';
import type { OperationValues } from './x-web-operation-defaults.js';
import { HEADERLESS_REST_MS, type Lease, type XWebPool } from './x-web-pool.js';
import type { TransactionIds } from './x-web-transaction.js';

/** How long an account rests an operation when X limits it with requests left (error 88). */
const LIMITED_REST_MS = 24 * 60 * 60_000;
/** Calls of one request at most (accounts rotated, ids renewed, operations re-read). */
const MAX_ATTEMPTS = 30;

/** The operations in use, as the source needs them (x-web-operations.ts). */
export interface OperationsInUse {
  current(name: XWebOperation): Promise<OperationValues>;
  refresh(options: { force?: boolean; reason?: string }): Promise<{ error: string | null }>;
  addMissingFeatures(name: XWebOperation, features: string[]): Promise<void>;
}

export interface GraphqlOptions {
  /** X_WEB_BASE_URL: GraphQL at /i/api/graphql. */
  baseUrl: string;
  pool: XWebPool;
  operations: OperationsInUse;
  transactionIds: TransactionIds;
  fetch?: typeof fetch;
  now?: () => number;
  timeoutMs?: number;
  retryBaseMs?: number;
  maxRetries?: number;
  metrics?: XRequestMetrics;
}

function headerInt(headers: Headers, name: string): number | null {
  const value = headers.get(name);
  if (value === null || value.trim() === '') return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}

export function createGraphqlClient(options: GraphqlOptions) {
  const { pool, operations, transactionIds } = options;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retryBaseMs = options.retryBaseMs ?? 500;
  const maxRetries = options.maxRetries ?? 3;

  async function urlOf(operation: XWebOperation, variables: Record<string, unknown>) {
    const values = await operations.current(operation);
    const url = new URL(`${baseUrl}/i/api/graphql/${values.queryId}/${operation}`);
    url.searchParams.set('variables', JSON.stringify(variables));
    url.searchParams.set('features', JSON.stringify(values.features));
    if (Object.keys(values.fieldToggles).length > 0) {
      url.searchParams.set('fieldToggles', JSON.stringify(values.fieldToggles));
    }
    return url;
  }

  async function send(url: URL, lease: Lease, signal?: AbortSignal): Promise<RawAnswer> {
    let transactionId: string;
    try {
      transactionId = await transactionIds.idFor('GET', url.pathname);
    } catch (error) {
      if (error instanceof SourceError) throw error;
      // x.com's page answered with a Cloudflare page: the server is refused, as for GraphQL.
      if (error instanceof HtmlRefusal) throw await pool.pauseFor(error.message);
      throw new SourceError(
        'unavailable',
        `X web: no transaction id (x.com's client could not be read: ${(error as Error).message})`,
      );
    }
    const deadline = AbortSignal.timeout(timeoutMs);
    const response = await doFetch(url, {
      headers: webHeaders(lease.cookies, {
        'content-type': 'application/json',
        'x-client-transaction-id': transactionId,
      }),
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: parseBody(text) };
  }

  async function backoff(failures: number, signal?: AbortSignal) {
    await sleep(retryBaseMs * 2 ** failures * (1 + Math.random()), signal);
  }

  /** One GraphQL call, rotating accounts on limits and account errors: the body of a 200. */
  return async function call(
    operation: XWebOperation,
    variables: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    let failures = 0;
    let staleIds = 0;
    let reread = false;
    let healed = 0;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const url = await urlOf(operation, variables);
      const lease = await pool.acquire(operation, signal);
      let answer: RawAnswer;
      try {
        answer = await send(url, lease, signal);
      } catch (error) {
        if (signal?.aborted) throw abortReason(signal);
        if (error instanceof SourceError) throw error;
        options.metrics?.xRequest(operation, 0);
        if (failures++ < maxRetries) {
          await backoff(failures, signal);
          continue;
        }
        throw new SourceError('unavailable', `X web unreachable: ${(error as Error).message}`);
      } finally {
        await lease.release();
      }
      const { status, headers } = answer;
      options.metrics?.xRequest(operation, status);
      const remaining = headerInt(headers, 'x-rate-limit-remaining');
      const reset = headerInt(headers, 'x-rate-limit-reset');
      if (remaining !== null && reset !== null) {
        await pool.recordLimit(lease, operation, {
          limit: headerInt(headers, 'x-rate-limit-limit'),
          remaining,
          resetAt: reset * 1000,
        });
      }
      const meaning = classifyAnswer(answer, remaining);
      switch (meaning.kind) {
        case 'ok':
          await pool.resumed();
          return answer.body as Record<string, unknown>;
        case 'html':
          throw await pool.pauseFor(meaning.reason);
        case 'stale_transaction':
          // X refuses the id: a new one first; a 404 that outlives a new id is the query id.
          if (staleIds++ < 1) {
            transactionIds.renew();
            continue;
          }
          if (!reread) {
            reread = true;
            await operations.refresh({ force: true, reason: `${operation} answered 404` });
            continue;
          }
          throw new SourceError(
            'unavailable',
            `X web: ${operation} answered 404 with a new transaction id and the operations of x.com's current client`,
          );
        case 'unknown_operation':
          if (!reread) {
            reread = true;
            await operations.refresh({ force: true, reason: `${operation} is unknown to X` });
            continue;
          }
          throw new SourceError('unavailable', `X web: ${operation} is unknown to X (404)`);
        case 'missing_features':
          if (healed++ < 2) {
            await operations.addMissingFeatures(operation, meaning.features);
            await operations.refresh({ force: true, reason: `${operation}: ${meaning.reason}` });
            continue;
          }
          throw new SourceError('unavailable', `X web refused ${operation}: ${meaning.reason}`);
        case 'account_out': {
          const why = {
            LOCKED: `X locked the account: ${meaning.reason}`,
            SUSPENDED: `X suspended the account: ${meaning.reason}`,
            EXPIRED: `X ended the session (${meaning.reason}): paste new cookies or reset it to sign in again`,
          }[meaning.status];
          await pool.takeOut(lease, meaning.status, why);
          continue;
        }
        case 'rate_limited':
        case 'account_limited': {
          const limited = meaning.kind === 'account_limited';
          const resetAt = limited
            ? now() + LIMITED_REST_MS
            : reset !== null && reset * 1000 > now()
              ? reset * 1000
              : now() + HEADERLESS_REST_MS;
          await pool.recordLimit(lease, operation, {
            limit: headerInt(headers, 'x-rate-limit-limit'),
            remaining: 0,
            resetAt,
          });
          const until = new Date(resetAt).toISOString();
          await pool.noteError(
            lease,
            limited
              ? `X limits this account on ${operation} though its window has requests left (${meaning.reason}): resting it until ${until}`
              : `Rate limited on ${operation} until ${until} (${meaning.reason})`,
          );
          continue;
        }
        case 'transient':
          if (failures++ < maxRetries) {
            await backoff(failures, signal);
            continue;
          }
          throw new SourceError('unavailable', `X web error on ${operation}: ${meaning.reason}`);
        case 'refused':
          await pool.noteError(lease, `${operation}: ${meaning.reason}`);
          throw new SourceError('unavailable', `X web refused ${operation}: ${meaning.reason}`);
      }
    }
    throw new SourceError('unavailable', `X web: ${operation} failed with every account`);
  };
}

export type GraphqlCall = ReturnType<typeof createGraphqlClient>;
