import {
  BACKGROUND_REQUEST_HEADER,
  CSRF_HEADER,
  MESSAGES,
  REAUTH_REQUIRED_CODE,
  REDIRECT_GUARD_MS,
  REQUEST_TIMEOUT_MS,
} from '@perch/shared';
import {
  isFailureEnvelope,
  isRecord,
  parseRetryAfterMs,
  readPayload,
  textField,
  toApiError,
  unwrapSuccess,
} from './api-envelope';
import {
  ApiError,
  CIRCUIT_OPEN_CODE,
  INVALID_RESPONSE_CODE,
  NETWORK_ERROR_CODE,
  TIMEOUT_CODE,
  clientFailure,
  isNetworkError,
} from './api-error';
import { apiUrl } from './api-url';
import { readCsrfCookie } from './cookies';
import { removeLegacyTokens } from './legacy-tokens';
import type { CircuitBreaker } from './resilience/circuit-breaker';
import type { RequestGate } from './resilience/request-gate';

// Callers catch the client's failures: they import them from here, beside the client.
export {
  ApiError,
  CIRCUIT_OPEN_CODE,
  INVALID_JSON_CODE,
  INVALID_RESPONSE_CODE,
  NETWORK_ERROR_CODE,
  TIMEOUT_CODE,
  isNetworkError,
} from './api-error';

const CIRCUIT_OPEN_MESSAGE =
  'Perch is not answering. Requests are paused for a minute and resume by themselves.';

const TIMEOUT_MESSAGE = 'The request timed out. Please check your connection and try again.';
const INVALID_RESPONSE_MESSAGE = 'Invalid response format';
const CSRF_INVALID_CODE = 'CSRF_INVALID';
const SESSION_CHECK_PATH = '/auth/check';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const STATE_CHANGING_METHODS: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the 15 s request timeout. */
  timeoutMs?: number;
}

/**
 * What checks the `data` of a success envelope: a zod schema of @perch/shared, or a plain check
 * (`checkedBy`) where loading zod would weigh on the page, as on the sign-in page.
 */
export interface ResponseSchema<T> {
  safeParse(data: unknown): { success: true; data: T } | { success: false };
}

/** A response schema from a type guard: the data passes as is when the guard accepts it. */
export function checkedBy<T>(guard: (data: unknown) => data is T): ResponseSchema<T> {
  return { safeParse: (data) => (guard(data) ? { success: true, data } : { success: false }) };
}

export interface ApiRequest<T> extends RequestOptions {
  method?: HttpMethod;
  /** Sent as JSON. */
  body?: unknown;
  /** Validates `data` of the success envelope; a mismatch is 'Invalid response format'. */
  schema?: ResponseSchema<T>;
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

  get<T>(path: string, schema?: ResponseSchema<T>, options: RequestOptions = {}): Promise<T> {
    return this.request<T>(path, { ...options, method: 'GET', schema });
  }

  post<T>(path: string, body?: unknown, schema?: ResponseSchema<T>, options: RequestOptions = {}) {
    return this.request<T>(path, { ...options, method: 'POST', body, schema });
  }

  put<T>(path: string, body?: unknown, schema?: ResponseSchema<T>, options: RequestOptions = {}) {
    return this.request<T>(path, { ...options, method: 'PUT', body, schema });
  }

  patch<T>(path: string, body?: unknown, schema?: ResponseSchema<T>, options: RequestOptions = {}) {
    return this.request<T>(path, { ...options, method: 'PATCH', body, schema });
  }

  delete<T>(path: string, schema?: ResponseSchema<T>, options: RequestOptions = {}): Promise<T> {
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
        throw clientFailure(0, CIRCUIT_OPEN_MESSAGE, CIRCUIT_OPEN_CODE, path);
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
    return requestGate.run(
      { method: request.method, url: path, body: request.body, signal: request.signal },
      guarded,
    );
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

    if (!response.ok || isFailureEnvelope(payload)) {
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

    const { data, message } = unwrapSuccess(payload);
    if (isRecord(data) && typeof data.csrfToken === 'string')
      this.rememberCsrfToken(data.csrfToken);
    if (!request.schema) return { data: data as T, message };
    const parsed = request.schema.safeParse(data);
    if (!parsed.success) {
      throw clientFailure(response.status, INVALID_RESPONSE_MESSAGE, INVALID_RESPONSE_CODE, path);
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
        throw clientFailure(0, TIMEOUT_MESSAGE, TIMEOUT_CODE, path);
      }
      // A cancellation asked for by the caller (e.g. TanStack Query) stays a cancellation.
      if (callerSignal?.aborted) throw error;
      throw clientFailure(0, MESSAGES.networkError, NETWORK_ERROR_CODE, path);
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

/** The client the app uses; src/app wires its router and auth cache into it. */
export const apiClient = new ApiClient();
