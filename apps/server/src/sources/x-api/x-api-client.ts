/**
 * One X API v2 request: the bearer token, the time limit of each try, the rate budgets, the
 * retries and what each answer means.
 *
 * Errors: 429 -> rate_limited; 402 -> credits; 401/403 -> auth (none retried); 5xx, network
 * failures and requests that take longer than `timeoutMs` are retried with exponential backoff
 * and jitter, then -> unavailable; problem `type`s decide not_found / suspended / protected.
 */
import { SourceError, type BilledReadsListener } from '../../domain/tweet-source.js';
import type { XRequestMetrics } from '../../lib/metrics.js';
import { abortReason, sleep } from '../../lib/sleep.js';
import { hasProblemType, userProblem } from './x-api-problems.js';
import { XRateLimits, type XEndpoint } from './x-api-rate-limits.js';
import { parseBody, type WireBody } from './x-api-wire.js';

export interface XApiClientOptions {
  /** Prometheus: every request by endpoint and status (0: no answer). */
  metrics?: XRequestMetrics;
  /** X_API_BASE_URL, e.g. https://api.x.com (a trailing slash is tolerated). */
  baseUrl: string;
  /** X_BEARER_TOKEN (app-only). */
  bearerToken: string;
  /** Injected in tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Clock (epoch ms). */
  now?: () => number;
  /** First retry delay for 5xx/network errors (doubles each attempt, plus jitter). Default 500. */
  retryBaseMs?: number;
  /** Retries after the first attempt for 5xx/network errors and timeouts. Default 3. */
  maxRetries?: number;
  /** Wait for a spent budget when it resets within this many ms, else throw. Default 60,000. */
  maxRateLimitWaitMs?: number;
  /**
   * Limit of one try, from connecting to the last byte of the body (X_REQUEST_TIMEOUT_SECONDS):
   * a server that accepts the request and never answers would otherwise hold a collection job
   * forever. Default 30,000.
   */
  timeoutMs?: number;
}

/** The query of a request; undefined values are left out. */
export type XQuery = Record<string, string | undefined>;

const CREDITS_DEPLETED = 'X API credits are depleted: add credits in the X Developer Console';

/** The response of one try: read whole within the time limit. */
interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** What one try came to: the body of a 200, or a failure worth another try. */
type Outcome<T> = { kind: 'body'; body: WireBody<T> } | { kind: 'transient'; error: SourceError };

/** One try took longer than `timeoutMs` (a transient failure, like a network error). */
class RequestTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`X API did not answer within ${timeoutMs / 1000} s`);
    this.name = 'RequestTimeout';
  }
}

function requestUrl(baseUrl: string, path: string, query: XQuery): URL {
  const url = new URL(baseUrl + path);
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(key, value);
  }
  return url;
}

/** The failure of a try that got no answer (a network error or the time limit). */
function unreachable(error: unknown): SourceError {
  const message =
    error instanceof RequestTimeout
      ? error.message
      : `X API unreachable: ${(error as Error).message}`;
  return new SourceError('unavailable', message);
}

/** The error of an answer that no retry can change: 402, 401/403, 404 and other 4xx. */
function refusalError(status: number, detail: string, body: WireBody<unknown>): SourceError {
  if (status === 402) return new SourceError('credits', CREDITS_DEPLETED);
  if (status === 401 || status === 403) {
    return new SourceError('auth', `X API refused the credentials (${status}): ${detail}`);
  }
  if (status === 404) {
    return userProblem(body, detail) ?? new SourceError('not_found', `X API: ${detail}`);
  }
  // 400 and other client errors are not transient; retrying the same request cannot help.
  return new SourceError('unavailable', `X API rejected the request (${status}): ${detail}`);
}

/** Sends X API requests with one bearer token, within its rate budgets. */
export class XApiClient {
  /** The token's rate budgets (one instance per token). */
  readonly limits: XRateLimits;
  private readonly baseUrl: string;
  private readonly doFetch: typeof fetch;
  private readonly retryBaseMs: number;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: XApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.doFetch = options.fetch ?? fetch;
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.maxRetries = options.maxRetries ?? 3;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.limits = new XRateLimits(options.now ?? Date.now, options.maxRateLimitWaitMs ?? 60_000);
  }

  /** The body of a 200; every other answer throws the SourceError it means. */
  async request<T>(
    endpoint: XEndpoint,
    path: string,
    query: XQuery,
    signal?: AbortSignal,
  ): Promise<WireBody<T>> {
    const url = requestUrl(this.baseUrl, path, query);
    for (let attempts = 0; ; attempts++) {
      await this.limits.take(endpoint, signal);
      const outcome = await this.tryOnce<T>(endpoint, url, signal);
      if (outcome.kind === 'body') return outcome.body;
      if (attempts >= this.maxRetries) throw outcome.error;
      await this.backoff(attempts, signal);
    }
  }

  /** One try and what its answer means; throws the errors no retry can change. */
  private async tryOnce<T>(
    endpoint: XEndpoint,
    url: URL,
    signal?: AbortSignal,
  ): Promise<Outcome<T>> {
    let answer: Answer;
    try {
      answer = await this.fetchWithin(url, signal);
    } catch (error) {
      // The caller's abort is the caller's business: never retried, never reworded.
      if (signal?.aborted) throw abortReason(signal);
      this.options.metrics?.xRequest(endpoint, 0);
      return { kind: 'transient', error: unreachable(error) };
    }
    this.options.metrics?.xRequest(endpoint, answer.status);
    this.limits.record(endpoint, answer.headers);
    return this.outcomeOf<T>(endpoint, answer);
  }

  /** One try, bounded by `timeoutMs` from connecting to the end of the body. */
  private async fetchWithin(url: URL, signal?: AbortSignal): Promise<Answer> {
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    try {
      const response = await this.doFetch(url, {
        headers: {
          authorization: `Bearer ${this.options.bearerToken}`,
          accept: 'application/json',
        },
        signal: combined,
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, text };
    } catch (error) {
      if (deadline.aborted && !signal?.aborted) throw new RequestTimeout(this.timeoutMs);
      throw error;
    }
  }

  /** The body of a 200, or a 5xx to retry; throws the error of any other answer. */
  private outcomeOf<T>(endpoint: XEndpoint, { status, headers, text }: Answer): Outcome<T> {
    const body = parseBody<T>(text);
    const detail = body.detail ?? body.title ?? body.errors?.[0]?.message ?? `HTTP ${status}`;
    const v1RateLimit = !body.data && (body.errors ?? []).some((e) => e.code === 88);
    if (status === 429 || v1RateLimit) {
      const usageCapped = hasProblemType(body, 'usage-capped');
      throw this.limits.rateLimitedError(endpoint, headers, usageCapped, `X API: ${detail}`);
    }
    if (status >= 500) {
      const error = new SourceError('unavailable', `X API error ${status}: ${detail}`);
      return { kind: 'transient', error };
    }
    if (status !== 200) throw refusalError(status, detail, body);
    this.limits.succeeded(endpoint);
    return { kind: 'body', body };
  }

  private backoff(attempt: number, signal?: AbortSignal): Promise<void> {
    const delay = this.retryBaseMs * 2 ** attempt;
    return sleep(delay + Math.random() * delay, signal);
  }
}

/** What the source's reads need: the client, and the cost meter to tell what X billed. */
export interface XApiContext {
  client: XApiClient;
  onBilledReads?: BilledReadsListener;
}
