import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES, loginResponseSchema } from '@perch/shared';
import { dataOf, expectError, setCookieLine } from './assertions.js';
import { DIALECTS, TEST_PASSWORD, TestClient, buildTestApp, type TestApp } from './helpers.js';
import { appForSuite } from './seed.js';

const CSRF = { message: MESSAGES.csrfInvalid, code: 'CSRF_INVALID' };

describe.each(DIALECTS)('CSRF double submit [%s]', (dialect) => {
  let t: TestApp;
  let csrf: string;
  beforeAll(async () => {
    t = await buildTestApp(dialect);
    await new TestClient(t.app).register(t.db, 'csrf_user', 'user', TEST_PASSWORD);
    const client = new TestClient(t.app);
    await client.get('/api/v1/auth/check');
    csrf = client.csrf ?? '';
  });
  afterAll(() => t.close());

  const body = { username: 'csrf_user', password: TEST_PASSWORD };
  const post = (headers: Record<string, string>, cookies: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: body, headers, cookies });

  it('refuses a POST without the X-CSRF-Token header with 403', async () => {
    const response = await post({}, { perch_csrf: csrf });
    expectError(response, 403, CSRF);
    expect(setCookieLine(response, 'perch_session')).toBeUndefined();
  });

  it('refuses a POST whose header does not match the cookie', async () => {
    expectError(
      await post({ 'x-csrf-token': `${csrf.slice(0, -1)}x` }, { perch_csrf: csrf }),
      403,
      CSRF,
    );
    expectError(await post({ 'x-csrf-token': 'short' }, { perch_csrf: csrf }), 403, CSRF);
    expectError(await post({ 'x-csrf-token': '' }, { perch_csrf: csrf }), 403, CSRF);
  });

  it('refuses a POST with the header but without the cookie', async () => {
    const response = await post({ 'x-csrf-token': csrf }, {});
    expectError(response, 403, CSRF);
    // It still hands out a token, so the client can recover.
    expect(setCookieLine(response, 'perch_csrf')).toBeDefined();
  });

  it('lets a POST through when the header matches the cookie', async () => {
    const response = await post({ 'x-csrf-token': csrf }, { perch_csrf: csrf });
    expect(response.statusCode, response.body).toBe(200);
    expect(dataOf(response, loginResponseSchema).user.username).toBe('csrf_user');
  });

  it('checks every state-changing route, not only login', async () => {
    for (const url of [
      '/api/v1/auth/register',
      '/api/v1/auth/verify-invite',
      '/api/v1/auth/logout',
    ]) {
      expectError(
        await t.app.inject({ method: 'POST', url, payload: {}, cookies: { perch_csrf: csrf } }),
        403,
        CSRF,
      );
    }
    for (const [method, url] of [
      ['PUT', '/api/v1/security/settings'],
      ['DELETE', '/api/v1/security/sessions/abc'],
    ] as const) {
      expectError(
        await t.app.inject({ method, url, payload: {}, cookies: { perch_csrf: csrf } }),
        403,
        CSRF,
      );
    }
    // A method no route serves reaches no handler: the router's 404 (csrf-routes.test.ts).
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      expectError(
        await t.app.inject({ method, url: '/api/v1/auth/login', cookies: { perch_csrf: csrf } }),
        404,
        { code: 'NOT_FOUND', message: `Not found: ${method} /api/v1/auth/login` },
      );
    }
  });

  it('checks CSRF before anything else (no 400 leak for a bad body)', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expectError(response, 403, CSRF);
  });

  it('does not ask GET requests for a token', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(response.statusCode).toBe(200);
  });
});

describe.each(DIALECTS)('dev-login [%s]', (dialect) => {
  describe('by default', () => {
    const suite = appForSuite(dialect);

    it('does not exist', async () => {
      const client = new TestClient(suite.t.app);
      await client.register(suite.t.db, 'dev_target');
      const response = await client.post('/api/v1/auth/dev-login', { username: 'dev_target' });
      expectError(response, 404, { code: 'NOT_FOUND' });
      expect(setCookieLine(response, 'perch_session')).toBeUndefined();
    });
  });

  describe('with DEV_LOGIN=true', () => {
    const suite = appForSuite(dialect, { DEV_LOGIN: 'true' });

    it('signs in as an existing user without a password', async () => {
      await new TestClient(suite.t.app).register(suite.t.db, 'dev_admin', 'admin');
      const client = new TestClient(suite.t.app);
      const response = await client.post('/api/v1/auth/dev-login', { username: 'DEV_ADMIN' });
      expect(response.statusCode, response.body).toBe(200);
      const data = dataOf(response, loginResponseSchema);
      expect(data.user).toMatchObject({ username: 'dev_admin', isAdmin: true });
      expect(data.session.authMethod).toBe('cookie');
      const check = await client.get('/api/v1/auth/check');
      expect(check.json()).toMatchObject({ data: { authenticated: true, username: 'dev_admin' } });
    });

    it('refuses an unknown user and still needs the CSRF header', async () => {
      const client = new TestClient(suite.t.app);
      expectError(await client.post('/api/v1/auth/dev-login', { username: 'nobody_here' }), 403, {
        code: 'DEV_LOGIN_UNKNOWN_USER',
      });
      expectError(
        await client.request({
          method: 'POST',
          url: '/api/v1/auth/dev-login',
          payload: { username: 'dev_admin' },
          csrf: false,
        }),
        403,
        CSRF,
      );
      expectError(await client.post('/api/v1/auth/dev-login', {}), 400, {
        message: MESSAGES.loginInvalidData,
      });
    });
  });
});
