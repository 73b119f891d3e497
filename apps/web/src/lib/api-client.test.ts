import { MESSAGES, REAUTH_REQUIRED_CODE, STEP_UP_MESSAGES } from '@perch/shared';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { fail, jsonResponse, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import {
  ApiClient,
  ApiError,
  NETWORK_ERROR_CODE,
  TIMEOUT_CODE,
  isUnauthorizedPassedOn,
} from './api-client';
import { parseRetryAfterMs } from './api-envelope';
import { apiUrl } from './api-url';
import { LEGACY_TOKEN_KEYS, removeLegacyTokens } from './legacy-tokens';

function setCsrfCookie(value: string) {
  document.cookie = `perch_csrf=${value}; path=/`;
}

async function caught(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}

describe('apiUrl', () => {
  it('prefixes /api/v1 unless the path already starts with /api', () => {
    expect(apiUrl('/auth/check')).toBe('/api/v1/auth/check');
    expect(apiUrl('health')).toBe('/api/v1/health');
    expect(apiUrl('/api/v1/handles/x/backfill-progress')).toBe(
      '/api/v1/handles/x/backfill-progress',
    );
  });
});

describe('ApiClient', () => {
  let client: ApiClient;
  let onUnauthorized: ReturnType<typeof vi.fn<() => void>>;
  let redirectToLogin: ReturnType<typeof vi.fn<() => void>>;
  let now: number;

  beforeEach(() => {
    now = 1_000_000;
    onUnauthorized = vi.fn<() => void>();
    redirectToLogin = vi.fn<() => void>();
    client = new ApiClient({ onUnauthorized, redirectToLogin, now: () => now });
  });

  it('returns the envelope message with the data when asked for it', async () => {
    stubFetch({
      'GET /api/v1/health': () =>
        jsonResponse(200, { success: true, data: { status: 'ok' }, message: 'All good.' }),
      'GET /api/v1/plain': () => ok({ status: 'ok' }),
    });
    const schema = z.object({ status: z.literal('ok') });
    await expect(client.requestWithMessage('/health', { schema })).resolves.toEqual({
      data: { status: 'ok' },
      message: 'All good.',
    });
    await expect(client.requestWithMessage('/plain', { schema })).resolves.toEqual({
      data: { status: 'ok' },
      message: undefined,
    });
  });

  it('sends credentials, unwraps the envelope and validates data with the schema', async () => {
    const fetchMock = stubFetch({ 'GET /api/v1/health': () => ok({ status: 'ok', extra: 1 }) });
    const data = await client.get('/health', z.object({ status: z.literal('ok') }));
    expect(data).toEqual({ status: 'ok' });
    const init = fetchMock.mock.calls[0]?.[1];
    expect(init?.credentials).toBe('include');
    expect(new Headers(init?.headers).get('x-csrf-token')).toBeNull();
    expect(new Headers(init?.headers).get('x-requested-with')).toBeNull();
  });

  it("rejects data that does not match the schema with 'Invalid response format'", async () => {
    stubFetch({ 'GET /api/v1/health': () => ok({ status: 42 }) });
    const error = await caught(client.get('/health', z.object({ status: z.string() })));
    expect(error.message).toBe('Invalid response format');
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)(
    'adds the CSRF cookie and the XMLHttpRequest marker to %s',
    async (method) => {
      setCsrfCookie('cookie-token');
      const fetchMock = stubFetch({ [`${method} /api/v1/things`]: () => ok({ done: true }) });
      await client.request('/things', { method, body: { a: 1 } });
      const [request] = requestsTo(fetchMock, `${method} /api/v1/things`);
      expect(request?.headers.get('x-csrf-token')).toBe('cookie-token');
      expect(request?.headers.get('x-requested-with')).toBe('XMLHttpRequest');
      expect(request?.headers.get('content-type')).toBe('application/json');
      expect(request?.body).toEqual({ a: 1 });
    },
  );

  it('asks the session check for a CSRF token when there is no cookie yet', async () => {
    const fetchMock = stubFetch({
      'GET /api/v1/auth/check': () => ok({ authenticated: false, csrfToken: 'from-check' }),
      'POST /api/v1/auth/logout': () => ok({ loggedOut: true }),
    });
    await client.post('/auth/logout', {});
    expect(fetchMock.mock.calls.map(([input]) => String(input))).toEqual([
      '/api/v1/auth/check',
      '/api/v1/auth/logout',
    ]);
    expect(requestsTo(fetchMock, 'POST /api/v1/auth/logout')[0]?.headers.get('x-csrf-token')).toBe(
      'from-check',
    );
  });

  it('retries once with a fresh token when the server refuses the CSRF token', async () => {
    setCsrfCookie('stale');
    let attempts = 0;
    const fetchMock = stubFetch({
      'POST /api/v1/things': () => {
        attempts += 1;
        if (attempts === 1) {
          setCsrfCookie('fresh');
          return fail(403, MESSAGES.csrfInvalid, 'CSRF_INVALID');
        }
        return ok({ done: true });
      },
    });
    await expect(client.post('/things', {})).resolves.toEqual({ done: true });
    const tokens = requestsTo(fetchMock, 'POST /api/v1/things').map((r) =>
      r.headers.get('x-csrf-token'),
    );
    expect(tokens).toEqual(['stale', 'fresh']);
  });

  it('reads the __Host- CSRF cookie of a server with COOKIE_SECURE first', async () => {
    // A test DOM on http://localhost will not store a __Host- cookie: the page's view of them.
    const cookies = vi
      .spyOn(document, 'cookie', 'get')
      .mockReturnValue('perch_csrf=plain; __Host-perch_csrf=prefixed');
    const fetchMock = stubFetch({ 'POST /api/v1/things': () => ok({ done: true }) });
    await client.post('/things', {});
    cookies.mockRestore();
    expect(requestsTo(fetchMock, 'POST /api/v1/things')[0]?.headers.get('x-csrf-token')).toBe(
      'prefixed',
    );
  });

  it('marks calls made while nobody uses the page as background ones', async () => {
    let background = false;
    client.configure({ isBackground: () => background });
    const fetchMock = stubFetch({ 'GET /api/v1/things': () => ok({ done: true }) });
    await client.get('/things');
    background = true;
    await client.get('/things');
    expect(
      requestsTo(fetchMock, 'GET /api/v1/things').map((r) => r.headers.get('x-perch-background')),
    ).toEqual([null, '1']);
  });

  it('asks the person to confirm a change refused with REAUTH_REQUIRED, then sends it once more', async () => {
    setCsrfCookie('token');
    let attempts = 0;
    const fetchMock = stubFetch({
      'POST /api/v1/settings': () => {
        attempts += 1;
        return attempts === 1
          ? fail(403, STEP_UP_MESSAGES.required, REAUTH_REQUIRED_CODE)
          : ok({ saved: true });
      },
    });
    const onReauthRequired = vi.fn(() => Promise.resolve(true));
    client.configure({ onReauthRequired });
    await expect(client.post('/settings', { discord_user_id: '1' })).resolves.toEqual({
      saved: true,
    });
    expect(onReauthRequired).toHaveBeenCalledTimes(1);
    expect(requestsTo(fetchMock, 'POST /api/v1/settings').map((r) => r.body)).toEqual([
      { discord_user_id: '1' },
      { discord_user_id: '1' },
    ]);
  });

  it('fails with the 403 when the person cancels, or when the server asks again', async () => {
    setCsrfCookie('token');
    const fetchMock = stubFetch({
      'POST /api/v1/settings': () => fail(403, STEP_UP_MESSAGES.required, REAUTH_REQUIRED_CODE),
    });
    client.configure({ onReauthRequired: () => Promise.resolve(false) });
    expect(await caught(client.post('/settings', {}))).toMatchObject({
      status: 403,
      code: REAUTH_REQUIRED_CODE,
    });
    expect(requestsTo(fetchMock, 'POST /api/v1/settings')).toHaveLength(1);

    client.configure({ onReauthRequired: () => Promise.resolve(true) });
    expect(await caught(client.post('/settings', {}))).toMatchObject({
      code: REAUTH_REQUIRED_CODE,
    });
    expect(requestsTo(fetchMock, 'POST /api/v1/settings')).toHaveLength(3);
  });

  it('takes the error text from message, then error, then a generic text', async () => {
    stubFetch({
      'GET /api/v1/a': () => fail(400, 'From message', 'BAD', 'field: wrong'),
      'GET /api/v1/b': () => jsonResponse(502, { error: 'From error' }),
      'GET /api/v1/c': () => jsonResponse(503, {}),
    });
    const a = await caught(client.get('/a'));
    expect(a).toMatchObject({
      status: 400,
      message: 'From message',
      code: 'BAD',
      details: 'field: wrong',
    });
    const b = await caught(client.get('/b'));
    expect(b).toMatchObject({ status: 502, message: 'From error', code: 'HTTP_502' });
    const c = await caught(client.get('/c'));
    expect(c).toMatchObject({ status: 503, message: 'Request failed with status 503' });
    expect(c.serverMessage).toBeUndefined();
  });

  it("turns an unparsable body into 'Invalid JSON response'", async () => {
    stubFetch({ 'GET /api/v1/broken': () => new Response('<html>oops</html>', { status: 200 }) });
    const error = await caught(client.get('/broken'));
    expect(error).toMatchObject({ status: 200, message: MESSAGES.invalidJsonResponse });
  });

  it('treats a success:false envelope as a failure even with a 200', async () => {
    stubFetch({ 'GET /api/v1/odd': () => jsonResponse(200, { success: false, message: 'Nope' }) });
    await expect(client.get('/odd')).rejects.toMatchObject({ message: 'Nope' });
  });

  it('reports a network failure with status 0', async () => {
    stubFetch({ 'GET /api/v1/health': () => Promise.reject(new TypeError('Failed to fetch')) });
    const error = await caught(client.get('/health'));
    expect(error).toMatchObject({
      status: 0,
      code: NETWORK_ERROR_CODE,
      message: MESSAGES.networkError,
    });
  });

  it('aborts a request that takes longer than the timeout', async () => {
    const fetchMock = vi.fn<typeof fetch>(
      (_input, init) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () =>
            reject(new DOMException('aborted', 'AbortError')),
          );
        }),
    );
    vi.stubGlobal('fetch', fetchMock);
    const error = await caught(client.get('/slow', undefined, { timeoutMs: 20 }));
    expect(error).toMatchObject({ status: 0, code: TIMEOUT_CODE });
  });

  it('leaves a cancellation by the caller as a cancellation', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn<typeof fetch>(
        (_input, init) =>
          new Promise<Response>((_resolve, reject) => {
            init?.signal?.addEventListener('abort', () =>
              reject(new DOMException('aborted', 'AbortError')),
            );
          }),
      ),
    );
    const controller = new AbortController();
    const pending = client.get('/slow', undefined, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(DOMException);
  });

  describe('401', () => {
    it('on an ordinary path clears legacy tokens and redirects at most once per 5 s', async () => {
      window.localStorage.setItem('token', 'legacy');
      window.sessionStorage.setItem('refresh_token', 'legacy');
      window.localStorage.setItem('mantine-color-scheme-value', 'dark');
      stubFetch({
        'GET /api/v1/handles': () => fail(401, MESSAGES.notAuthenticated, 'UNAUTHORIZED'),
      });

      await expect(client.get('/handles')).rejects.toMatchObject({ status: 401 });
      expect(window.localStorage.getItem('token')).toBeNull();
      expect(window.sessionStorage.getItem('refresh_token')).toBeNull();
      expect(window.localStorage.getItem('mantine-color-scheme-value')).toBe('dark');
      expect(onUnauthorized).toHaveBeenCalledTimes(1);
      expect(redirectToLogin).toHaveBeenCalledTimes(1);

      now += 4_000;
      await expect(client.get('/handles')).rejects.toMatchObject({ status: 401 });
      expect(redirectToLogin).toHaveBeenCalledTimes(1);

      now += 1_500;
      await expect(client.get('/handles')).rejects.toMatchObject({ status: 401 });
      expect(redirectToLogin).toHaveBeenCalledTimes(2);
    });

    it.each([
      '/auth/login',
      '/auth/check',
      '/settings',
      '/settings/telegram/test',
      '/test-telegram',
      '/test-discord',
      '/health',
    ])('on %s is passed on to the caller', async (path) => {
      window.localStorage.setItem('token', 'legacy');
      stubFetch({ [`GET /api/v1${path}`]: () => fail(401, 'No', 'UNAUTHORIZED') });
      await expect(client.get(path)).rejects.toMatchObject({ status: 401, message: 'No' });
      expect(redirectToLogin).not.toHaveBeenCalled();
      expect(onUnauthorized).not.toHaveBeenCalled();
      expect(window.localStorage.getItem('token')).toBe('legacy');
    });

    it('classifies the exempt paths', () => {
      expect(isUnauthorizedPassedOn('/auth/register')).toBe(true);
      expect(isUnauthorizedPassedOn('/api/v1/health')).toBe(true);
      expect(isUnauthorizedPassedOn('/handles')).toBe(false);
      expect(isUnauthorizedPassedOn('/session/heartbeat')).toBe(false);
      expect(isUnauthorizedPassedOn('/admin/users')).toBe(false);
    });
  });
});

describe('removeLegacyTokens', () => {
  it('removes every legacy key from both storages and nothing else', () => {
    for (const key of LEGACY_TOKEN_KEYS) {
      window.localStorage.setItem(key, 'x');
      window.sessionStorage.setItem(key, 'x');
    }
    window.localStorage.setItem('keep-me', 'y');
    removeLegacyTokens();
    for (const key of LEGACY_TOKEN_KEYS) {
      expect(window.localStorage.getItem(key)).toBeNull();
      expect(window.sessionStorage.getItem(key)).toBeNull();
    }
    expect(window.localStorage.getItem('keep-me')).toBe('y');
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads delay seconds and HTTP dates; past dates are 0, junk is ignored', () => {
    expect(parseRetryAfterMs('120', now)).toBe(120_000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs('', now)).toBeUndefined();
    expect(parseRetryAfterMs(null, now)).toBeUndefined();
  });

  it('is carried by the ApiError of a failed response', async () => {
    const client = new ApiClient({ now: () => now });
    stubFetch({
      'GET /api/v1/limited': () =>
        new Response(JSON.stringify({ success: false, message: 'Slow down', code: 'RATE' }), {
          status: 429,
          headers: { 'Content-Type': 'application/json', 'Retry-After': '7' },
        }),
      'GET /api/v1/dated': () =>
        new Response('', {
          status: 503,
          headers: { 'Retry-After': 'Thu, 01 Jan 2026 00:01:00 GMT' },
        }),
      'GET /api/v1/plain': () => fail(429, 'Slow down', 'RATE'),
    });
    const limited = await caught(client.get('/limited'));
    expect(limited.status).toBe(429);
    expect(limited.retryAfterMs).toBe(7_000);
    expect((await caught(client.get('/dated'))).retryAfterMs).toBe(60_000);
    expect((await caught(client.get('/plain'))).retryAfterMs).toBeUndefined();
  });
});
