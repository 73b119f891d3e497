import { describe, expect, it } from 'vitest';
import {
  MESSAGES,
  adminUsersResponseSchema,
  authCheckResponseSchema,
  loginResponseSchema,
} from '@perch/shared';
import { cookieAttributes, cookieValue, dataOf, expectError, setCookieLine } from './assertions.js';
import { DIALECTS, TEST_PASSWORD, TestClient } from './helpers.js';
import { appForSuite, sha256, signedInUser, uniqueName } from './seed.js';

describe.each(DIALECTS)('sessions [%s]', (dialect) => {
  const suite = appForSuite(dialect);

  /** A fresh user, signed in on a new client. */
  async function signedIn(prefix: string, ip = '10.20.0.1') {
    const user = await signedInUser(suite.t, prefix, { ip });
    const token = user.client.cookies.get('perch_session');
    if (!token) throw new Error('no session cookie after registration');
    return { ...user, token };
  }

  const sessionRow = (idHash: string) =>
    suite.t.db.db
      .selectFrom('sessions')
      .selectAll()
      .where('id', '=', idHash)
      .executeTakeFirstOrThrow();

  /** GET /auth/check with exactly this session cookie (and nothing else). */
  async function checkWith(token: string) {
    const response = await suite.t.app.inject({
      method: 'GET',
      url: '/api/v1/auth/check',
      cookies: { perch_session: token },
    });
    expect(response.statusCode).toBe(200);
    return dataOf(response, authCheckResponseSchema);
  }

  it('never stores the raw session id, only its SHA-256', async () => {
    const { token, userId, username } = await signedIn('hash');
    const login = await new TestClient(suite.t.app, '10.20.0.2').post('/api/v1/auth/login', {
      username,
      password: TEST_PASSWORD,
      rememberMe: true,
    });
    const second = cookieValue(setCookieLine(login, 'perch_session') ?? '');
    expect(second).not.toBe('');
    expect(second).not.toBe(token);

    const rows = await suite.t.db.db.selectFrom('sessions').selectAll().execute();
    const everything = JSON.stringify(rows);
    for (const raw of [token, second]) {
      expect(raw.length).toBeGreaterThanOrEqual(43); // 256 bits in base64url
      expect(everything).not.toContain(raw);
      const row = await sessionRow(sha256(raw));
      expect(row.user_id).toBe(userId);
      expect(row.id).toMatch(/^[0-9a-f]{64}$/);
      expect(row.id).not.toBe(raw);
    }
    for (const row of rows) expect(row.id).toMatch(/^[0-9a-f]{64}$/);
  });

  describe('GET /auth/check', () => {
    it('signed out: not authenticated, with the CSRF token it sets as a readable cookie', async () => {
      const response = await suite.t.app.inject({ method: 'GET', url: '/api/v1/auth/check' });
      expect(response.statusCode).toBe(200);
      const data = dataOf(response, authCheckResponseSchema);
      expect(data.authenticated).toBe(false);
      expect(data.userId).toBeUndefined();
      const line = setCookieLine(response, 'perch_csrf');
      expect(line).toBeDefined();
      expect(data.csrfToken).toBe(cookieValue(line ?? ''));
      expect(data.csrfToken.length).toBeGreaterThanOrEqual(32);
      const attributes = cookieAttributes(line ?? '');
      expect(attributes).not.toHaveProperty('httponly');
      expect(attributes.samesite?.toLowerCase()).toBe('lax');
      expect(attributes.path).toBe('/');
    });

    it('keeps the CSRF cookie a client already holds', async () => {
      const client = new TestClient(suite.t.app);
      const first = dataOf(await client.get('/api/v1/auth/check'), authCheckResponseSchema);
      const again = await client.get('/api/v1/auth/check');
      expect(setCookieLine(again, 'perch_csrf')).toBeUndefined();
      expect(dataOf(again, authCheckResponseSchema).csrfToken).toBe(first.csrfToken);
    });

    it('signed in: the user, its flags and profile', async () => {
      const { client, username, userId } = await signedIn('checker');
      const data = dataOf(await client.get('/api/v1/auth/check'), authCheckResponseSchema);
      expect(data).toEqual({
        authenticated: true,
        userId,
        username,
        email: `${username}@example.com`,
        isAdmin: false,
        isSuperAdmin: false,
        profile: null,
        csrfToken: client.csrf,
      });
    });

    it('returns a stored profile object', async () => {
      const { client, userId } = await signedIn('profiled');
      await suite.t.db.db
        .updateTable('users')
        .set({ profile: JSON.stringify({ displayName: 'Pat', theme: 'dark' }) })
        .where('id', '=', userId)
        .execute();
      const data = dataOf(await client.get('/api/v1/auth/check'), authCheckResponseSchema);
      expect(data.profile).toEqual({ displayName: 'Pat', theme: 'dark' });
    });

    it('treats an unknown or oversized session cookie as signed out', async () => {
      expect((await checkWith('not-a-session')).authenticated).toBe(false);
      expect((await checkWith('x'.repeat(5000))).authenticated).toBe(false);
    });
  });

  describe('POST /auth/logout', () => {
    it('revokes the session, clears the cookie, and the old cookie no longer works', async () => {
      const { client, token } = await signedIn('leaver');
      const response = await client.post('/api/v1/auth/logout', {
        user_id: 1,
        action: 'manual_logout',
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ success: true });

      const line = setCookieLine(response, 'perch_session');
      expect(line).toBeDefined();
      expect(cookieValue(line ?? '')).toBe('');
      const attributes = cookieAttributes(line ?? '');
      const expiresAt = attributes.expires ? Date.parse(attributes.expires) : Infinity;
      expect(attributes['max-age'] === '0' || expiresAt <= Date.now()).toBe(true);
      expect(attributes.path).toBe('/');

      const row = await sessionRow(sha256(token));
      expect(row.revoked_at).not.toBeNull();

      const check = dataOf(await client.get('/api/v1/auth/check'), authCheckResponseSchema);
      expect(check.authenticated).toBe(false);
      // Replaying the old cookie value does not bring the session back.
      expect((await checkWith(token)).authenticated).toBe(false);
    });

    it('works signed out, and without a body', async () => {
      const client = new TestClient(suite.t.app);
      const response = await client.request({ method: 'POST', url: '/api/v1/auth/logout' });
      expect(response.statusCode, response.body).toBe(200);
    });

    it('ends only the session it is sent with', async () => {
      const { client, username, token } = await signedIn('twodevices');
      const other = new TestClient(suite.t.app, '10.20.0.3');
      const login = await other.post('/api/v1/auth/login', { username, password: TEST_PASSWORD });
      expect(login.statusCode).toBe(200);
      await client.post('/api/v1/auth/logout', {});
      expect((await checkWith(token)).authenticated).toBe(false);
      const stillIn = dataOf(await other.get('/api/v1/auth/check'), authCheckResponseSchema);
      expect(stillIn).toMatchObject({ authenticated: true, username });
    });
  });

  it('does not accept a revoked session', async () => {
    const { token } = await signedIn('revoked');
    expect((await checkWith(token)).authenticated).toBe(true);
    await suite.t.db.db
      .updateTable('sessions')
      .set({ revoked_at: new Date().toISOString() })
      .where('id', '=', sha256(token))
      .execute();
    expect((await checkWith(token)).authenticated).toBe(false);
  });

  it('does not accept an expired session', async () => {
    const { token } = await signedIn('expired');
    await suite.t.db.db
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', sha256(token))
      .execute();
    expect((await checkWith(token)).authenticated).toBe(false);
  });

  it('slides the expiry of a session without remember-me when it is used', async () => {
    const { token } = await signedIn('sliding');
    const idHash = sha256(token);
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000).toISOString();
    const soon = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    await suite.t.db.db
      .updateTable('sessions')
      .set({ last_seen_at: old, expires_at: soon })
      .where('id', '=', idHash)
      .execute();
    expect((await checkWith(token)).authenticated).toBe(true);
    const row = await sessionRow(idHash);
    expect(row.last_seen_at > old).toBe(true);
    expect(Date.parse(row.expires_at) - Date.now()).toBeGreaterThan(11 * 60 * 60 * 1000);
  });

  describe('POST /session/heartbeat', () => {
    const beat = {
      user_id: 1,
      client_id: 'tab-1',
      timestamp: Date.now(),
      userAgent: 'vitest',
      url: 'http://localhost/dashboard/',
    };

    it('answers 401 when signed out', async () => {
      const client = new TestClient(suite.t.app);
      expectError(await client.post('/api/v1/session/heartbeat', beat), 401, {
        message: MESSAGES.notAuthenticated,
        code: 'UNAUTHORIZED',
      });
      expectError(
        await client.request({
          method: 'POST',
          url: '/api/v1/session/heartbeat',
          payload: beat,
          csrf: false,
        }),
        401,
      );
    });

    it('answers 200 when signed in, with or without the CSRF header (beacons)', async () => {
      const { client } = await signedIn('beater');
      const withHeader = await client.post('/api/v1/session/heartbeat', beat);
      expect(withHeader.statusCode, withHeader.body).toBe(200);
      expect(withHeader.json()).toMatchObject({ success: true, data: { received: true } });

      const beacon = await client.request({
        method: 'POST',
        url: '/api/v1/session/heartbeat',
        payload: { user_id: 1, client_id: 'tab-1', timestamp: Date.now(), event: 'unload' },
        csrf: false,
      });
      expect(beacon.statusCode, beacon.body).toBe(200);

      const empty = await client.request({
        method: 'POST',
        url: '/api/v1/session/heartbeat',
        csrf: false,
      });
      expect(empty.statusCode, empty.body).toBe(200);
    });

    it('accepts a text/plain JSON beacon without the CSRF header; other routes still refuse', async () => {
      const { client } = await signedIn('plain');
      const beacon = await client.request({
        method: 'POST',
        url: '/api/v1/session/heartbeat',
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
        payload: JSON.stringify({ user_id: 1, client_id: 'tab-1', timestamp: 1, event: 'unload' }),
        csrf: false,
      });
      expect(beacon.statusCode, beacon.body).toBe(200);
      expect(beacon.json()).toMatchObject({ success: true, data: { received: true } });

      const emptyPlain = await client.request({
        method: 'POST',
        url: '/api/v1/session/heartbeat',
        headers: { 'content-type': 'text/plain' },
        payload: '',
        csrf: false,
      });
      expect(emptyPlain.statusCode, emptyPlain.body).toBe(200);

      expectError(
        await client.request({
          method: 'POST',
          url: '/api/v1/session/heartbeat',
          headers: { 'content-type': 'text/plain' },
          payload: 'not json',
          csrf: false,
        }),
        400,
        { code: 'INVALID_JSON' },
      );

      const logout = await client.request({
        method: 'POST',
        url: '/api/v1/auth/logout',
        csrf: false,
      });
      expect(logout.statusCode).toBe(403);
      expect(logout.json()).toMatchObject({ success: false, code: 'CSRF_INVALID' });
      const otherPlain = await client.request({
        method: 'POST',
        url: '/api/v1/handles',
        headers: { 'content-type': 'text/plain' },
        payload: JSON.stringify({ username: 'someone' }),
        csrf: false,
      });
      expect(otherPlain.statusCode).toBe(403);
    });

    it("moves the user's last_active_at in the admin users list", async () => {
      const { client, userId, token } = await signedIn('active');
      const admin = new TestClient(suite.t.app, '10.20.0.3');
      await admin.register(suite.t.db, uniqueName('overseer'), 'admin', TEST_PASSWORD);
      const old = new Date(Date.now() - 30_000).toISOString();
      // Within resolveSession's once-a-minute touch window: only the heartbeat writes it.
      await suite.t.db.db
        .updateTable('sessions')
        .set({ last_seen_at: old })
        .where('id', '=', sha256(token))
        .execute();
      const lastActive = async () => {
        const users = dataOf(await admin.get('/api/v1/admin/users'), adminUsersResponseSchema);
        return users.users.find((user) => user.id === userId)?.last_active_at;
      };
      expect(await lastActive()).toBe(old);

      const before = Date.now();
      const beacon = await client.request({
        method: 'POST',
        url: '/api/v1/session/heartbeat',
        headers: { 'content-type': 'text/plain' },
        payload: JSON.stringify({ user_id: userId, event: 'unload' }),
        csrf: false,
      });
      expect(beacon.statusCode, beacon.body).toBe(200);
      const moved = await lastActive();
      expect(moved).toBeDefined();
      expect(Date.parse(moved ?? '')).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(moved ?? '')).toBeGreaterThan(Date.parse(old));
    });
  });

  it('login answers the session it opened to /auth/check', async () => {
    const { username } = await signedIn('relogin');
    const client = new TestClient(suite.t.app, '10.20.0.9');
    const login = await client.post('/api/v1/auth/login', { username, password: TEST_PASSWORD });
    const data = dataOf(login, loginResponseSchema);
    const token = client.cookies.get('perch_session') ?? '';
    const row = await sessionRow(sha256(token));
    expect(row.expires_at).toBe(data.session.expiresAt);
    expect(row.ip).toBe('10.20.0.9');
  });
});

describe.each(DIALECTS)('session cookie with COOKIE_SECURE=true [%s]', (dialect) => {
  const suite = appForSuite(dialect, { COOKIE_SECURE: 'true' });

  it('marks both cookies Secure (as __Host- cookies)', async () => {
    const client = new TestClient(suite.t.app);
    const check = await client.get('/api/v1/auth/check');
    expect(cookieAttributes(setCookieLine(check, '__Host-perch_csrf') ?? '')).toHaveProperty(
      'secure',
    );
    const username = uniqueName('secure');
    await client.register(suite.t.db, username, 'user', TEST_PASSWORD);
    const login = await client.post('/api/v1/auth/login', { username, password: TEST_PASSWORD });
    expect(login.statusCode, login.body).toBe(200);
    const attributes = cookieAttributes(setCookieLine(login, '__Host-perch_session') ?? '');
    expect(attributes).toHaveProperty('secure');
    expect(attributes).toHaveProperty('httponly');
  });
});
