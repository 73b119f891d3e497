import { MESSAGES, SAME_ENDPOINT_GAP_MS } from '@perch/shared';
import { API_BASE, apiUrl } from '../api-url';

/** Machine code of a request cancelled as a duplicate of one still in flight. */
export const DUPLICATE_REQUEST_CODE = 'DUPLICATE_REQUEST';

/** The later of two identical in-flight requests fails with this. */
export class DuplicateRequestError extends Error {
  override readonly name = 'DuplicateRequestError';
  readonly code = DUPLICATE_REQUEST_CODE;

  constructor() {
    super(MESSAGES.duplicateRequest);
  }
}

/** What the gate reads of a request. */
export interface GatedRequest {
  /** Defaults to GET. */
  method?: string;
  /** An API path (with /api/v1 or without) and its query string. */
  url: string;
  /** The body as it will be sent as JSON. */
  body?: unknown;
  /** The caller's cancellation: once aborted, the request no longer counts as in flight. */
  signal?: AbortSignal;
}

function methodOf(request: GatedRequest): string {
  return (request.method ?? 'GET').toUpperCase();
}

function pathnameOf(request: GatedRequest): string {
  const url = apiUrl(request.url);
  return url.split('?')[0] ?? url;
}

/** The endpoint of a request: method and path without the query string. */
export function endpointKey(request: GatedRequest): string {
  return `${methodOf(request)} ${pathnameOf(request)}`;
}

/** What makes two requests identical: method, full URL and body. */
export function requestKey(request: GatedRequest): string {
  const body = request.body === undefined ? '' : JSON.stringify(request.body);
  return `${methodOf(request)} ${apiUrl(request.url)} ${body}`;
}

/**
 * Requests never cancelled as duplicates: heartbeat, health, the handle calls
 * under /api/v1/handles (any method), admin GET and analytics GET.
 */
export function isDuplicateExempt(request: GatedRequest): boolean {
  const pathname = pathnameOf(request).toLowerCase();
  const isGet = methodOf(request) === 'GET';
  return (
    pathname.includes('/heartbeat') ||
    pathname.includes('/health') ||
    pathname.startsWith(`${API_BASE}/handles`) ||
    (isGet && pathname.includes('/admin/')) ||
    (isGet && pathname.includes('/analytics/'))
  );
}

export interface RequestGateOptions {
  /** Least time between the starts of two requests to one endpoint (500 ms). */
  gapMs?: number;
  /** Clock, for tests. */
  now?: () => number;
  /** Waits the given milliseconds, for tests. */
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

/**
 * The request pacing (docs/spec-notes.md, API conventions), in front of a send function:
 * - a request to an endpoint that started less than 500 ms ago waits out the remainder
 *   (several waiting requests are spaced 500 ms apart, in arrival order);
 * - a request identical to one still in flight (waiting or sent) fails at once with
 *   'Duplicate request canceled', and the first goes on. A request whose caller cancelled it
 *   (its signal aborted) is no longer in flight: the fetch that replaces it (a query fetched
 *   again after a change) goes, rather than failing as its duplicate.
 * Exempt requests (see isDuplicateExempt) are neither cancelled nor merged: they are sent as
 * usual, since the spec exempts them from cancellation only, a shared answer would hide a
 * deliberate second call (a re-fetch after a change) and TanStack Query already merges
 * identical query fetches. They are still paced.
 */
export class RequestGate {
  private readonly gapMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** The requests in flight, each by its key, with the token of the run that holds it. */
  private readonly inFlight = new Map<string, object>();
  /** When the latest request to each endpoint started (or is due to start). */
  private readonly lastStart = new Map<string, number>();

  constructor(options: RequestGateOptions = {}) {
    this.gapMs = options.gapMs ?? SAME_ENDPOINT_GAP_MS;
    this.now = options.now ?? (() => Date.now());
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** Runs `send` for the request once the gate lets it through. */
  async run<T>(request: GatedRequest, send: () => Promise<T>): Promise<T> {
    const release = isDuplicateExempt(request) ? undefined : this.hold(request);
    try {
      const waitMs = this.reserveStart(endpointKey(request));
      if (waitMs > 0) await this.sleep(waitMs);
      return await send();
    } finally {
      release?.();
    }
  }

  /**
   * Marks a request in flight until the returned release runs or its signal aborts; fails at
   * once when an identical one is in flight.
   */
  private hold(request: GatedRequest): () => void {
    const key = requestKey(request);
    if (this.inFlight.has(key)) throw new DuplicateRequestError();
    const token = {};
    this.inFlight.set(key, token);
    const { signal } = request;
    const release = () => {
      signal?.removeEventListener('abort', release);
      if (this.inFlight.get(key) === token) this.inFlight.delete(key);
    };
    if (signal?.aborted) release();
    else signal?.addEventListener('abort', release);
    return release;
  }

  /** Books the next start slot of an endpoint; returns how long to wait for it. */
  private reserveStart(endpoint: string): number {
    const now = this.now();
    for (const [key, start] of this.lastStart) {
      if (start + this.gapMs <= now) this.lastStart.delete(key);
    }
    const last = this.lastStart.get(endpoint);
    const start = last === undefined ? now : Math.max(now, last + this.gapMs);
    this.lastStart.set(endpoint, start);
    return start - now;
  }
}
