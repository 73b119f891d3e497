/**
 * One JSON request to a messaging service with a time limit. What the Telegram and Discord
 * clients share: the caller's AbortSignal is honoured (its reason is rethrown as is, so a
 * stopping worker is not mistaken for a failing service), while our own time limit and network
 * failures become transient DeliveryErrors the delivery worker retries with backoff.
 */
import { abortReason } from '../lib/sleep.js';
import { DeliveryError } from './types.js';
import { headerNumber } from '../lib/http-headers.js';

export interface HttpJsonReply {
  status: number;
  headers: Headers;
  /** The parsed body, or null when it was not JSON (e.g. an HTML page from a proxy). */
  body: unknown;
}

export interface HttpJsonRequest {
  /** Names the service in error messages ('Telegram', 'Discord'). */
  service: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  signal?: AbortSignal;
}

export async function requestJson(
  doFetch: typeof fetch,
  request: HttpJsonRequest,
): Promise<HttpJsonReply> {
  const { service, timeoutMs, signal } = request;
  if (signal?.aborted) throw abortReason(signal);
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    const response = await doFetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: combined,
    });
    // The body is read under the same time limit: a service can stall half-way through it.
    const text = await response.text();
    let body: unknown = null;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      body = null;
    }
    return { status: response.status, headers: response.headers, body };
  } catch (error) {
    if (signal?.aborted) throw abortReason(signal);
    if (timeout.aborted) {
      throw new DeliveryError(
        'transient',
        `${service} did not answer within ${Math.round(timeoutMs / 100) / 10} s`,
      );
    }
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new DeliveryError(
      'transient',
      `${service} is unreachable: ${(error as Error).message}${cause ? ` (${cause})` : ''}`,
    );
  }
}

/** A header holding a number of seconds (fractions allowed), in ms; null when absent or bad. */
export function headerSecondsMs(headers: Headers, name: string): number | null {
  const seconds = headerNumber(headers, name);
  return seconds !== null && seconds >= 0 ? Math.ceil(seconds * 1000) : null;
}

/** How a bot API client reaches its service: the options every one takes. */
export interface BotApiOptions {
  /** The bot token; without one the client is unavailable. */
  token: string | undefined;
  /** The API's base URL (a trailing slash is tolerated). */
  baseUrl: string;
  /** Injected in tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Time limit of one request. Default 15,000 ms. */
  requestTimeoutMs?: number;
}

/**
 * What every bot API client starts from: its token (blank counts as none: unavailable), the
 * base URL without trailing slashes, the fetch it calls and a request's time limit.
 */
export abstract class BotApiClient {
  readonly available: boolean;
  protected readonly token: string | undefined;
  protected readonly baseUrl: string;
  protected readonly doFetch: typeof fetch;
  protected readonly timeoutMs: number;

  protected constructor(options: BotApiOptions) {
    this.token = options.token?.trim() || undefined;
    this.available = this.token !== undefined;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.doFetch = options.fetch ?? fetch;
    this.timeoutMs = options.requestTimeoutMs ?? 15_000;
  }
}
