import {
  BACKGROUND_REQUEST_HEADER,
  CSRF_HEADER,
  MESSAGES,
  REAUTH_REQUIRED_CODE,
  REDIRECT_GUARD_MS,
  REQUEST_TIMEOUT_MS,
} from '@perch/shared';
import type { z } from 'zod';
import { readCsrfCookie } from './cookies';
import { removeLegacyTokens } from './legacy-tokens';
import type { CircuitBreaker } from './resilience/circuit-breaker';
import type { RequestGate } from './resilience/request-gate';

/** Base of every API path unless the path already starts with /api. */
export const API_BASE = '/api/v1';

/** Machine codes of failures that never reached the server or never came back. */
export const NETWORK_ERROR_CODE = 'NETWORK_ERROR';
export const TIMEOUT_CODE = 'TIMEOUT';
export const INVALID_JSON_CODE = 'INVALID_JSON';
export const INVALID_RESPONSE_CODE = 'INVALID_RESPONSE';
/** Machine code of a call refused while the retry circuit is open (nothing was sent). */
export const CIRCUIT_OPEN_CODE = 'CIRCUIT_OPEN';
const CIRCUIT_OPEN_MESSAGE =
  'Perch is not answering. Requests are paused for a minute and resume by themselves.';

const TIMEOUT_MESSAGE = 'The request timed out. Please check your connection and try again.';
const INVALID_RESPONSE_MESSAGE = 'Invalid response format';
const CSRF_INVALID_CODE = 'CSRF_INVALID';
const SESSION_CHECK_PATH = '/auth/check';

/**
 * A failed API call: the HTTP status (0 when no response arrived), the human text to show,
 * the server's machine code, for a 400 the server's field details, when the response
 * carried a Retry-After header, how long the server asked to wait and, when thrown by ApiClient,
 * the API path that was called.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly details?: string,
    /** The text the server sent, when it sent one (the message may be a generic fallback). */
    readonly serverMessage?: string,
    /** Milliseconds from the response's Retry-After header (seconds or an HTTP date). */
    readonly retryAfterMs?: number,
    /** The API path of the failed call, as passed to ApiClient (e.g. '/handles?page=2'). */
    readonly path?: string,
  ) {
    super(message);
  }
}

/** True for failures where no response arrived: offline, refused connection or timeout. */
export function isNetworkError(error: unknown): boolean {
  return (
    error instanceof ApiError && (error.code === NETWORK_ERROR_CODE || error.code === TIMEOUT_CODE)
  );
}

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const STATE_CHANGING_METHODS: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the 15 s request timeout. */
  timeoutMs?: number;
}

export interface ApiRequest<T> extends RequestOptions {
  method?: HttpMethod;
  /** Sent as JSON. */
  body?: unknown;
  /** Validates `data` of the success envelope; a mismatch is 'Invalid response format'. */
  schema?: z.ZodType<T>;
}

/** The `data` of a success envelope and its `message`, when the server sent one. */
export interface ApiAnswer<T> {
  data: T;
  message?: string;
}

export interface ApiClientConfig {
  /** The browser boundary; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Called on every session-expiry 401 (clears the signed-in user). */
  onUnauthorized?: () => void;
  /** Sends the person to the sign-in page; called at most once per redirect guard window. */
  redirectToLogin?: () => void;
  /** Clock, for tests. */
  now?: () => number;
  /** Same-endpoint pacing and duplicate cancelling; none by default. */
  requestGate?: RequestGate | null;
  /**
   * The retry circuit: counts calls that got no answer or a 5xx, and refuses calls while open;
   * none by default.
   */
  circuitBreaker?: CircuitBreaker | null;
  /**
   * True while nobody uses the page: calls then say they are background ones, which do not keep
   * the session from timing out. Unset: every call is the person's.
   */
  isBackground?: (() => boolean) | null;
  /**
   * A sensitive change answered 403 REAUTH_REQUIRED: asks the person for their password (or a
   * code) and resolves true once the session is confirmed, false when they cancel. The call is
   * then sent once more, or fails with that 403. Unset: it fails at once.
   */
  onReauthRequired?: (() => Promise<boolean>) | null;
}

/** Retries a call has had: once for a rotated CSRF token, once after the person confirmed. */
interface Retried {
  csrf?: boolean;
  reauth?: boolean;
}

/** Full URL path of an API path: /api/v1 is prepended unless the path starts with /api. */
export function apiUrl(path: string): string {
  if (path.startsWith('/api')) return path;
  return `${API_BASE}${path.startsWith('/') ? path : `/${path}`}`;
}

/**
 * 401s on these paths belong to the caller (a wrong password, a signed-out session check,
 * settings and notification tests, health); any other 401 means the session expired.
 */
export function isUnauthorizedPassedOn(path: string): boolean {
  const pathname = path.split('?')[0] ?? path;
  return (
    pathname.includes('/auth/') ||
    pathname.includes(SESSION_CHECK_PATH) ||
    pathname.includes('/settings') ||
    /\/test-(telegram|discord)\b/.test(pathname) ||
    /\/(telegram|discord)\/test\b/.test(pathname) ||
    pathname.includes('/health')
  );
}

function isHealthCheck(path: string): boolean {
  return (path.split('?')[0] ?? path).endsWith('/health');
}

function defaultRedirectToLogin(): void {
  // The sign-in page itself is exempt: sending it to itself would only reload it.
  if (window.location.pathname.replace(/\/+$/, '').endsWith('/login')) return;
  window.location.assign('/dashboard/login');
}

/**
 * Milliseconds a Retry-After header value asks for: delay seconds or an HTTP date (a date in
 * the past is 0); undefined when missing or unreadable.
 */
export function parseRetryAfterMs(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textField(payload: unknown, key: string): string | undefined {
  if (!isRecord(payload)) return undefined;
  const value = payload[key];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/**
 * The one way the SPA talks to the API: same origin, cookies always sent, CSRF double submit
 * on state-changing calls, a timeout, the envelope unwrapped and failures turned into ApiError.
 */
export class ApiClient {
  private csrfToken: string | null = null;
  private csrfRequest: Promise<string | null> | null = null;
  private lastRedirectAt = Number.NEGATIVE_INFINITY;
  private config: ApiClientConfig;

  constructor(config: ApiClientConfig = {}) {
    this.config = config;
  }

  /** Replaces parts of the configuration (the app wires its router and query cache in). */
  configure(config: Partial<ApiClientConfig>): void {
    this.config = { ...this.config, ...config };
  }

  get<T>(path: string, schema?: z.ZodType<T>, options: RequestOptions = {}): Promise<T> {
    return this.request<T>(path, { ...options, method: 'GET', schema });
  }

  post<T>(path: string, body?: unknown, schema?: z.ZodType<T>, options: RequestOptions = {}) {
    return this.request<T>(path, { ...options, method: 'POST', body, schema });
  }

  put<T>(path: string, body?: unknown, schema?: z.ZodType<T>, options: RequestOptions = {}) {
    return this.request<T>(path, { ...options, method: 'PUT', body, schema });
  }

  patch<T>(path: string, body?: unknown, schema?: z.ZodType<T>, options: RequestOptions = {}) {
    return this.request<T>(path, { ...options, method: 'PATCH', body, schema });
  }

  delete<T>(path: string, schema?: z.ZodType<T>, options: RequestOptions = {}): Promise<T> {
    return this.request<T>(path, { ...options, method: 'DELETE', schema });
  }

  /** Sends one request and returns the `data` of the success envelope. */
  async request<T>(path: string, request: ApiRequest<T> = {}): Promise<T> {
    return (await this.guardedSend(path, request)).data;
  }

  /** Like `request`, with the envelope's `message` too (the server's words for a success). */
  requestWithMessage<T>(path: string, request: ApiRequest<T> = {}): Promise<ApiAnswer<T>> {
    return this.guardedSend(path, request);
  }

  /** Remembers the CSRF token a response carried, for when the cookie cannot be read. */
  rememberCsrfToken(token: string | null | undefined): void {
    if (token) this.csrfToken = token;
  }

  private get fetchImpl(): typeof fetch {
    return this.config.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  private now(): number {
    return this.config.now ? this.config.now() : Date.now();
  }

  /** The request gate and the retry circuit around one call. */
  private guardedSend<T>(path: string, request: ApiRequest<T>): Promise<ApiAnswer<T>> {
    const { requestGate, circuitBreaker } = this.config;
    // The health check goes out even while the circuit is open: its answer closes the circuit.
    const probe = isHealthCheck(path);
    const guarded = async (): Promise<ApiAnswer<T>> => {
      if (circuitBreaker && !probe && !circuitBreaker.canRequest()) {
        throw new ApiError(
          0,
          CIRCUIT_OPEN_MESSAGE,
          CIRCUIT_OPEN_CODE,
          undefined,
          undefined,
          undefined,
          path,
        );
      }
      try {
        const answer = await this.send(path, request);
        if (probe) circuitBreaker?.reset();
        else circuitBreaker?.recordSuccess();
        return answer;
      } catch (error) {
        if (circuitBreaker && error instanceof ApiError) {
          if (isNetworkError(error) || error.status >= 500) circuitBreaker.recordFailure();
          else circuitBreaker.recordSuccess();
        }
        throw error;
      }
    };
    if (!requestGate) return guarded();
    return requestGate.run({ method: request.method, url: path, body: request.body }, guarded);
  }

  private async send<T>(
    path: string,
    request: ApiRequest<T>,
    retried: Retried = {},
  ): Promise<ApiAnswer<T>> {
    const method = request.method ?? 'GET';
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    if (this.config.isBackground?.()) headers[BACKGROUND_REQUEST_HEADER] = '1';
    if (STATE_CHANGING_METHODS.has(method)) {
      const token = await this.resolveCsrfToken(request.signal);
      if (token) headers[CSRF_HEADER] = token;
      headers['X-Requested-With'] = 'XMLHttpRequest';
    }

    const response = await this.fetchWithTimeout(path, {
      method,
      headers,
      credentials: 'include',
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: request.signal,
      timeoutMs: request.timeoutMs,
    });
    const sessionExpired = response.status === 401 && !isUnauthorizedPassedOn(path);
    let payload: unknown;
    try {
      payload = await readPayload(response, path);
    } catch (error) {
      if (sessionExpired) this.handleSessionExpired();
      throw error;
    }

    if (!response.ok || (isRecord(payload) && payload.success === false)) {
      const retryAfterMs = parseRetryAfterMs(response.headers.get('Retry-After'), this.now());
      const error = toApiError(response.status, payload, retryAfterMs, path);
      if (error.status === 403 && error.code === CSRF_INVALID_CODE && !retried.csrf) {
        // The cookie was missing or rotated: the 403 response set a fresh one. Try once more.
        this.csrfToken = null;
        return this.send(path, request, { ...retried, csrf: true });
      }
      if (
        error.status === 403 &&
        error.code === REAUTH_REQUIRED_CODE &&
        !retried.reauth &&
        (await this.config.onReauthRequired?.())
      ) {
        // The person confirmed it is them (a dialog): the change goes once more.
        return this.send(path, request, { ...retried, reauth: true });
      }
      if (sessionExpired) this.handleSessionExpired();
      throw error;
    }

    const enveloped = isRecord(payload) && payload.success === true;
    const data = isRecord(payload) && enveloped ? payload.data : payload;
    const message = enveloped ? textField(payload, 'message') : undefined;
    if (isRecord(data) && typeof data.csrfToken === 'string')
      this.rememberCsrfToken(data.csrfToken);
    if (!request.schema) return { data: data as T, message };
    const parsed = request.schema.safeParse(data);
    if (!parsed.success) {
      throw new ApiError(
        response.status,
        INVALID_RESPONSE_MESSAGE,
        INVALID_RESPONSE_CODE,
        undefined,
        undefined,
        undefined,
        path,
      );
    }
    return { data: parsed.data, message };
  }

  /** Fetches an API path; a failure without a response is an ApiError carrying that path. */
  private async fetchWithTimeout(
    path: string,
    init: Omit<RequestInit, 'signal'> & { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<Response> {
    const { signal: callerSignal, timeoutMs = REQUEST_TIMEOUT_MS, ...rest } = init;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const abortFromCaller = () => controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) controller.abort(callerSignal.reason);
    else callerSignal?.addEventListener('abort', abortFromCaller, { once: true });

    try {
      return await this.fetchImpl(apiUrl(path), { ...rest, signal: controller.signal });
    } catch (error) {
      if (timedOut) {
        throw new ApiError(0, TIMEOUT_MESSAGE, TIMEOUT_CODE, undefined, undefined, undefined, path);
      }
      // A cancellation asked for by the caller (e.g. TanStack Query) stays a cancellation.
      if (callerSignal?.aborted) throw error;
      throw new ApiError(
        0,
        MESSAGES.networkError,
        NETWORK_ERROR_CODE,
        undefined,
        undefined,
        undefined,
        path,
      );
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', abortFromCaller);
    }
  }

  /** The CSRF cookie; without one yet, the session check hands one out. */
  private async resolveCsrfToken(signal?: AbortSignal): Promise<string | null> {
    const fromCookie = readCsrfCookie();
    if (fromCookie) return fromCookie;
    if (this.csrfToken) return this.csrfToken;
    this.csrfRequest ??= this.fetchCsrfToken(signal).finally(() => {
      this.csrfRequest = null;
    });
    return this.csrfRequest;
  }

  private async fetchCsrfToken(signal?: AbortSignal): Promise<string | null> {
    const response = await this.fetchWithTimeout(SESSION_CHECK_PATH, {
      method: 'GET',
      headers: { Accept: 'application/json' },
      credentials: 'include',
      signal,
    });
    const payload = await readPayload(response, SESSION_CHECK_PATH).catch(() => undefined);
    const data = isRecord(payload) ? payload.data : undefined;
    this.rememberCsrfToken(textField(data, 'csrfToken'));
    return readCsrfCookie() ?? this.csrfToken;
  }

  private handleSessionExpired(): void {
    removeLegacyTokens();
    this.config.onUnauthorized?.();
    const now = this.now();
    if (now - this.lastRedirectAt < REDIRECT_GUARD_MS) return;
    this.lastRedirectAt = now;
    (this.config.redirectToLogin ?? defaultRedirectToLogin)();
  }
}

async function readPayload(response: Response, path: string): Promise<unknown> {
  const text = await response.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(
      response.status,
      MESSAGES.invalidJsonResponse,
      INVALID_JSON_CODE,
      undefined,
      undefined,
      undefined,
      path,
    );
  }
}

/** Error text order: the response's message, then its error, then a generic text. */
function toApiError(
  status: number,
  payload: unknown,
  retryAfterMs: number | undefined,
  path: string,
): ApiError {
  const serverMessage = textField(payload, 'message') ?? textField(payload, 'error');
  const message = serverMessage ?? `Request failed with status ${status}`;
  const code = textField(payload, 'code') ?? `HTTP_${status}`;
  return new ApiError(
    status,
    message,
    code,
    textField(payload, 'details'),
    serverMessage,
    retryAfterMs,
    path,
  );
}

/** The client the app uses; src/app wires its router and auth cache into it. */
export const apiClient = new ApiClient();
