import { vi, type Mock } from 'vitest';

/** A request as the stub saw it. */
export interface StubRequest {
  method: string;
  path: string;
  /** The query string's parameters. */
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
}

export type StubHandler = (request: StubRequest) => Response | Promise<Response>;

/** A JSON response, like the API's envelopes. */
export function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

/** The API's success envelope. */
export function ok(data: unknown, status = 200): Response {
  return jsonResponse(status, { success: true, data });
}

/** The API's failure envelope. */
export function fail(status: number, message: string, code: string, details?: string): Response {
  return jsonResponse(status, { success: false, message, code, ...(details ? { details } : {}) });
}

/**
 * Replaces window.fetch (the browser's boundary) with handlers keyed by 'METHOD /path'.
 * Unknown requests fail the test loudly with a 599.
 */
export function stubFetch(handlers: Record<string, StubHandler>): Mock<typeof fetch> {
  const mock = vi.fn<typeof fetch>(async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input.toString(), 'http://localhost');
    const method = (init?.method ?? 'GET').toUpperCase();
    const rawBody = init?.body;
    const request: StubRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      headers: new Headers(init?.headers),
      body: typeof rawBody === 'string' ? (JSON.parse(rawBody) as unknown) : undefined,
    };
    const handler = handlers[`${method} ${url.pathname}`];
    if (!handler) return jsonResponse(599, { message: `No stub for ${method} ${url.pathname}` });
    return handler(request);
  });
  vi.stubGlobal('fetch', mock);
  return mock;
}

/** The requests a stub received for one 'METHOD /path'. */
export function requestsTo(mock: Mock<typeof fetch>, key: string): StubRequest[] {
  const [method, path] = key.split(' ');
  return mock.mock.calls
    .map(([input, init]) => {
      const url = new URL(typeof input === 'string' ? input : input.toString(), 'http://localhost');
      const rawBody = init?.body;
      return {
        method: (init?.method ?? 'GET').toUpperCase(),
        path: url.pathname,
        query: url.searchParams,
        headers: new Headers(init?.headers),
        body: typeof rawBody === 'string' ? (JSON.parse(rawBody) as unknown) : undefined,
      };
    })
    .filter((request) => request.method === method && request.path === path);
}

/** The session check of a signed-out browser. */
export const signedOutCheckHandler: StubHandler = () =>
  ok({ authenticated: false, csrfToken: 'csrf-token-from-check', message: 'Not signed in' });

/** The session check of a signed-in browser (Grace, not an admin); overrides say what differs. */
export function signedInCheckHandler(overrides: Record<string, unknown> = {}): StubHandler {
  return () =>
    ok({
      authenticated: true,
      userId: 3,
      username: 'grace',
      email: 'grace@example.com',
      isAdmin: false,
      isSuperAdmin: false,
      profile: null,
      csrfToken: 'csrf',
      ...overrides,
    });
}

/** The server's answer to the session heartbeat. */
export const heartbeatHandler: StubHandler = () =>
  ok({ received: true, serverTime: new Date().toISOString() });
