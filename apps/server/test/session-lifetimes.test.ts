/**
 * Session lifetimes, rotation and the session-bound CSRF token, tried the way an attacker would
 * (modules/auth/session-lifetime.ts, csrf-token.ts, modules/auth/auth.plugin.ts): a stolen or forgotten
 * session must end on time however it is kept busy, a session id planted before sign-in must not
 * survive it, a privilege change must not carry over to old ids, and a CSRF token must be of
 * the very session it is sent with. Time moves by the app's clock (testClock), never by waiting.
 */
import type { Kysely } from 'kysely';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MESSAGES,
  SESSION_IDLE_MS,
  SESSION_MAX_AGE_MS,
  REMEMBER_ME_MS,
  authCheckResponseSchema,
  loginResponseSchema,
  twoFactorResponseSchema,
} from '@perch/shared';
import {
  cookieAttributes,
  cookieValue,
  dataOf,
  expectError,
  setCookieLine,
  setCookieLines,
} from './assertions.js';
import { sessionLifetimes } from '../src/db/migrations/0018-session-lifetimes.js';
import { insertUser } from '../src/modules/users/users.repository.js';
import {
  DIALECTS,
  TEST_PASSWORD,
  TestClient,
  buildTestApp,
  createTestDb,
  type TestApp,
} from './helpers.js';
import { appOnTestClock, sha256, signedInUser, uniqueName } from './seed.js';

const API = '/api/v1';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const CSRF = { message: MESSAGES.csrfInvalid, code: 'CSRF_INVALID' };
const NOT_SIGNED_IN = { message: MESSAGES.notAuthenticated };

describe.each(DIALECTS)('session lifetimes [%s]', (dialect) => {
  const suite = appOnTestClock(dialect);
  const { clock } = suite;

  /** A new account, signed in (with remember-me when asked) on a new client. */
  async function signedIn(prefix: string, rememberMe = false) {
    const registered = await signedInUser(suite.t, prefix);
    if (!rememberMe) return registered;
    const { username } = registered;
    const client = new TestClient(suite.t.app);
    const login = await client.post(`${API}/auth/login`, {
      username,
      password: TEST_PASSWORD,
      rememberMe: true,
    });
    expect(login.statusCode, login.body).toBe(200);
    return { ...registered, client };
  }

  /** Something the person does: a request of their own. */
  const personsRequest = (client: TestClient) => client.get(`${API}/security/sessions/current`);
  /** The open tab's heartbeat, as the leading tab sends it every 15 s. */
  const heartbeat = (client: TestClient) =>
    client.post(`${API}/session/heartbeat`, { timestamp: clock.now() });
  /** A poll the web app sends while nobody uses the page. */
  const backgroundPoll = (client: TestClient) =>
    client.request({
      method: 'GET',
      url: `${API}/security/sessions/current`,
      headers: { 'x-perch-background': '1' },
    });
  /** A live stream as EventSource asks for it (it cannot add headers). */
  const streamRequest = (client: TestClient) =>
    client.request({
      method: 'GET',
      url: `${API}/security/sessions/current`,
      headers: { accept: 'text/event-stream' },
    });
  const authCheck = async (client: TestClient) =>
    dataOf(await client.get(`${API}/auth/check`), authCheckResponseSchema);
  const sessionToken = (client: TestClient) => client.cookies.get('perch_session') ?? '';

  describe('absolute lifetime', () => {
    it('ends a session 7 days after sign-in, however busy it is kept', async () => {
      const { client } = await signedIn('busy');
      // A request every 6 hours, day and night: the idle timeout never strikes.
      for (let at = 6 * HOUR; at < SESSION_MAX_AGE_MS; at += 6 * HOUR) {
        clock.advance(6 * HOUR);
        expect((await personsRequest(client)).statusCode, `after ${at / HOUR} h`).toBe(200);
      }
      clock.reset();
      clock.advance(SESSION_MAX_AGE_MS - MINUTE);
      expect((await personsRequest(client)).statusCode).toBe(200);
      clock.advance(2 * MINUTE);
      expectError(await personsRequest(client), 401, NOT_SIGNED_IN);
      expect(await authCheck(client)).toMatchObject({ authenticated: false });
      // Nor does it come back by any other request, a heartbeat included.
      expectError(await heartbeat(client), 401);
    });

    it('ends a remember-me session 30 days after sign-in, with no idle timeout before', async () => {
      const { client } = await signedIn('remembered', true);
      clock.advance(29 * DAY);
      expect((await personsRequest(client)).statusCode).toBe(200);
      clock.advance(REMEMBER_ME_MS - 29 * DAY + MINUTE);
      expectError(await personsRequest(client), 401, NOT_SIGNED_IN);
    });

    it('puts the end in the sign-in answer and the remember-me cookie', async () => {
      const { username } = await signedIn('answer');
      const client = new TestClient(suite.t.app);
      const before = Date.now();
      const login = await client.post(`${API}/auth/login`, {
        username,
        password: TEST_PASSWORD,
        rememberMe: true,
      });
      const expiresAt = Date.parse(dataOf(login, loginResponseSchema).session.expiresAt);
      expect(expiresAt - before).toBeGreaterThanOrEqual(REMEMBER_ME_MS - MINUTE);
      expect(expiresAt - before).toBeLessThanOrEqual(REMEMBER_ME_MS + MINUTE);
      const cookie = cookieAttributes(setCookieLine(login, 'perch_session') ?? '');
      expect(Date.parse(cookie.expires ?? '')).toBeCloseTo(expiresAt, -4);
    });
  });

  describe('idle timeout', () => {
    it('heartbeats, background polls and streams alone do not keep an idle session alive', async () => {
      const { client } = await signedIn('unattended');
      // A tab left open: it beats and polls every 15 minutes (sent more often for real; the
      // outcome is the same), and nobody touches it.
      for (let at = 15 * MINUTE; at < SESSION_IDLE_MS; at += 15 * MINUTE) {
        clock.advance(15 * MINUTE);
        expect((await heartbeat(client)).statusCode).toBe(200);
        expect((await backgroundPoll(client)).statusCode).toBe(200);
        expect((await streamRequest(client)).statusCode).toBe(200);
      }
      clock.reset();
      clock.advance(SESSION_IDLE_MS + MINUTE);
      expectError(await heartbeat(client), 401);
      expectError(await personsRequest(client), 401, NOT_SIGNED_IN);
    });

    it('the person’s own requests keep it alive, and it ends 12 h after the last one', async () => {
      const { client } = await signedIn('attended');
      clock.advance(11 * HOUR);
      expect((await personsRequest(client)).statusCode).toBe(200);
      clock.advance(11 * HOUR);
      expect((await personsRequest(client)).statusCode).toBe(200);
      // The heartbeat still says when the session was last seen.
      clock.advance(6 * HOUR);
      const beatAt = clock.now();
      expect((await heartbeat(client)).statusCode).toBe(200);
      const row = await suite.t.db.db
        .selectFrom('sessions')
        .select(['last_seen_at', 'expires_at'])
        .where('id', '=', sha256(sessionToken(client)))
        .executeTakeFirstOrThrow();
      expect(Date.parse(row.last_seen_at)).toBeGreaterThanOrEqual(beatAt);
      // ...but its end is still 12 h after the last request of the person, 6 h from now.
      expect(Date.parse(row.expires_at)).toBeLessThan(beatAt + 6 * HOUR + MINUTE);
      clock.advance(6 * HOUR + MINUTE);
      expectError(await personsRequest(client), 401, NOT_SIGNED_IN);
    });
  });

  describe('a new session id', () => {
    it('at sign-in: a session id planted before sign-in is not kept, and no longer works', async () => {
      // The attacker's own account and session, planted in the victim's browser.
      const attacker = await signedIn('attacker');
      const planted = sessionToken(attacker.client);
      const victimBrowser = new TestClient(suite.t.app);
      for (const [name, value] of attacker.client.cookies) victimBrowser.cookies.set(name, value);

      const { username } = await signedIn('victim');
      const login = await victimBrowser.post(`${API}/auth/login`, {
        username,
        password: TEST_PASSWORD,
      });
      expect(login.statusCode, login.body).toBe(200);
      const issued = cookieValue(setCookieLine(login, 'perch_session') ?? '');
      expect(issued).not.toBe('');
      expect(issued).not.toBe(planted);
      expect(await authCheck(victimBrowser)).toMatchObject({ authenticated: true, username });
      // The planted id is over: whoever kept it sees nothing of the victim, nor of themselves.
      expectError(await personsRequest(attacker.client), 401, NOT_SIGNED_IN);
    });

    it('at sign-in, for an id the server never issued too', async () => {
      const { username } = await signedIn('unknown_id');
      const browser = new TestClient(suite.t.app);
      browser.cookies.set('perch_session', 'chosen-by-someone-else-0123456789abcdef');
      const login = await browser.post(`${API}/auth/login`, { username, password: TEST_PASSWORD });
      expect(login.statusCode, login.body).toBe(200);
      expect(sessionToken(browser)).not.toBe('chosen-by-someone-else-0123456789abcdef');
      expect((await personsRequest(browser)).statusCode).toBe(200);
    });

    it('at the completion of a two-factor sign-in', async () => {
      const { client, username, userId } = await signedIn('second_step');
      const started = dataOf(
        await client.post(`${API}/security/2fa`, { enabled: true }),
        twoFactorResponseSchema,
      );
      const secret = started.totpSecret ?? '';
      const enabled = await client.post(`${API}/security/2fa`, {
        enabled: true,
        totpSecret: secret,
        code: await generate({ secret }),
      });
      expect(enabled.statusCode, enabled.body).toBe(200);
      // The same browser signs in again (its earlier session still live): password, then code.
      const earlier = sessionToken(client);
      const password = await client.post(`${API}/auth/login`, {
        username,
        password: TEST_PASSWORD,
      });
      expect(password.statusCode, password.body).toBe(200);
      expect(setCookieLine(password, 'perch_session')).toBeUndefined();
      await suite.t.db.db
        .updateTable('users')
        .set({ totp_last_step: null })
        .where('id', '=', userId)
        .execute();
      const code = await client.post(`${API}/auth/login/2fa`, { code: await generate({ secret }) });
      expect(code.statusCode, code.body).toBe(200);
      const issued = sessionToken(client);
      expect(issued).not.toBe(earlier);
      expect((await personsRequest(client)).statusCode).toBe(200);
      const old = new TestClient(suite.t.app);
      old.cookies.set('perch_session', earlier);
      expectError(await personsRequest(old), 401, NOT_SIGNED_IN);
    });

    it('at a privilege change: the user’s old ids are refused; the new role comes with a new one', async () => {
      const root = await signedIn('root_admin');
      await suite.t.db.db
        .updateTable('users')
        .set({ is_admin: true, is_super_admin: true })
        .where('id', '=', root.userId)
        .execute();
      const { client, username, userId } = await signedIn('promoted');
      const phone = new TestClient(suite.t.app);
      await phone.post(`${API}/auth/login`, { username, password: TEST_PASSWORD });
      expect((await personsRequest(phone)).statusCode).toBe(200);

      const granted = await root.client.request({
        method: 'PUT',
        url: `${API}/admin/users/${userId}/role`,
        payload: { role: 'admin' },
      });
      expect(granted.statusCode, granted.body).toBe(200);
      for (const browser of [client, phone]) {
        expectError(await personsRequest(browser), 401, NOT_SIGNED_IN);
        expectError(await browser.get(`${API}/admin/users`), 401);
      }
      await client.post(`${API}/auth/login`, { username, password: TEST_PASSWORD });
      expect(await authCheck(client)).toMatchObject({ authenticated: true, isAdmin: true });

      // Revoked again: the admin session ends as well.
      const adminSession = sessionToken(client);
      const revoked = await root.client.request({
        method: 'PUT',
        url: `${API}/admin/users/${userId}/role`,
        payload: { role: 'user' },
      });
      expect(revoked.statusCode, revoked.body).toBe(200);
      expect(sessionToken(client)).toBe(adminSession);
      expectError(await client.get(`${API}/admin/users`), 401);
    });

    it('at a change of one’s own role: this browser goes on under a new id, the old one is refused', async () => {
      const first = await signedIn('first_root');
      const second = await signedIn('second_root');
      await suite.t.db.db
        .updateTable('users')
        .set({ is_admin: true, is_super_admin: true })
        .where('id', 'in', [first.userId, second.userId])
        .execute();
      const before = sessionToken(first.client);
      const stepDown = await first.client.request({
        method: 'PUT',
        url: `${API}/admin/users/${first.userId}/role`,
        payload: { role: 'admin' },
      });
      expect(stepDown.statusCode, stepDown.body).toBe(200);
      const after = sessionToken(first.client);
      expect(after).not.toBe(before);
      expect(await authCheck(first.client)).toMatchObject({ isAdmin: true, isSuperAdmin: false });
      const old = new TestClient(suite.t.app);
      old.cookies.set('perch_session', before);
      expectError(await personsRequest(old), 401, NOT_SIGNED_IN);
    });
  });

  describe('the CSRF token belongs to its session', () => {
    const revokeOthers = (client: TestClient, token: string) =>
      client.request({
        method: 'POST',
        url: `${API}/security/sessions/revoke-others`,
        headers: { 'x-csrf-token': token },
        csrf: false,
      });

    it('refuses the token of another session, even with a cookie to match', async () => {
      const alice = await signedIn('alice_csrf');
      const mallory = await signedIn('mallory_csrf');
      const stolen = alice.client.csrf ?? '';
      expect(stolen).not.toBe(mallory.client.csrf);
      // Double submit alone would take a header that matches the cookie: not any more.
      mallory.client.cookies.set('perch_csrf', stolen);
      expectError(await revokeOthers(mallory.client, stolen), 403, CSRF);
      expect((await revokeOthers(alice.client, stolen)).statusCode).toBe(200);
    });

    it('refuses the token of an earlier session of the same browser', async () => {
      const { client, username } = await signedIn('rotating_csrf');
      const earlier = client.csrf ?? '';
      expect((await client.post(`${API}/auth/logout`)).statusCode).toBe(200);
      const afterLogout = client.csrf ?? '';
      expect(afterLogout).not.toBe(earlier);
      const login = await client.post(`${API}/auth/login`, { username, password: TEST_PASSWORD });
      const answered = dataOf(login, loginResponseSchema).csrfToken;
      expect(answered).toBe(client.csrf);
      expect(answered).not.toBe(earlier);
      expect(answered).not.toBe(afterLogout);
      expect(setCookieLines(login).filter((line) => line.startsWith('perch_csrf='))).toHaveLength(
        1,
      );
      expectError(await revokeOthers(client, earlier), 403, CSRF);
      expect((await revokeOthers(client, answered)).statusCode).toBe(200);
    });

    it('is what the session check answers, and is set again when the cookie was lost', async () => {
      const { client } = await signedIn('check_csrf');
      const token = client.csrf ?? '';
      client.cookies.delete('perch_csrf');
      const check = await client.get(`${API}/auth/check`);
      expect(dataOf(check, authCheckResponseSchema).csrfToken).toBe(token);
      expect(cookieValue(setCookieLine(check, 'perch_csrf') ?? '')).toBe(token);
      // Nothing about it gives the session id away.
      expect(token).not.toContain(sessionToken(client));
      expect(token).not.toBe(sha256(sessionToken(client)));
    });
  });
});

describe.each(DIALECTS)('session cookies with COOKIE_SECURE=true [%s]', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(dialect, { COOKIE_SECURE: 'true' });
    await t.collector.stop();
  });
  afterAll(() => t.close());

  it('are __Host- cookies: Secure, Path=/, no Domain', async () => {
    const client = new TestClient(t.app);
    const check = await client.get(`${API}/auth/check`);
    const username = uniqueName('host_prefix');
    await client.register(t.db, username, 'user', TEST_PASSWORD);
    const login = await client.post(`${API}/auth/login`, { username, password: TEST_PASSWORD });
    expect(login.statusCode, login.body).toBe(200);
    for (const [response, name] of [
      [check, '__Host-perch_csrf'],
      [login, '__Host-perch_csrf'],
      [login, '__Host-perch_session'],
    ] as const) {
      const line = setCookieLine(response, name);
      expect(line, name).toBeDefined();
      const attributes = cookieAttributes(line ?? '');
      expect(attributes).toHaveProperty('secure');
      expect(attributes.path).toBe('/');
      expect(attributes).not.toHaveProperty('domain');
    }
    expect(cookieAttributes(setCookieLine(login, '__Host-perch_session') ?? '')).toHaveProperty(
      'httponly',
    );
    expect(setCookieLine(login, 'perch_session')).toBeUndefined();
    expect(dataOf(login, loginResponseSchema).csrfToken).toBe(
      client.cookies.get('__Host-perch_csrf'),
    );
    // The session works with them, CSRF included.
    expect((await client.post(`${API}/security/sessions/revoke-others`)).statusCode).toBe(200);
  });

  it('ignores cookies without the prefix, which another host could have set', async () => {
    const client = new TestClient(t.app);
    const username = uniqueName('unprefixed');
    await client.register(t.db, username, 'user', TEST_PASSWORD);
    const planted = new TestClient(t.app);
    planted.cookies.set('perch_session', client.cookies.get('__Host-perch_session') ?? '');
    planted.cookies.set('perch_csrf', client.cookies.get('__Host-perch_csrf') ?? '');
    expect(dataOf(await planted.get(`${API}/auth/check`), authCheckResponseSchema)).toMatchObject({
      authenticated: false,
    });
    expectError(await planted.get(`${API}/security/sessions/current`), 401);
  });
});

describe.each(DIALECTS)('migration 0018 [%s]', (dialect) => {
  it('brings live sessions without remember-me to the end the absolute lifetime gives them', async () => {
    const db = await createTestDb(dialect);
    try {
      const migration = sessionLifetimes();
      await migration.down(db.db as unknown as Kysely<unknown>);
      const user = await insertUser(db.db, {
        username: 'before_0018',
        email: 'before_0018@example.com',
        passwordHash: 'x',
        isAdmin: false,
        isSuperAdmin: false,
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      const now = Date.now();
      const iso = (ms: number) => new Date(ms).toISOString();
      // [id, signed in, expires_at as the old rules left it, remember-me]
      const rows: [string, number, number, boolean][] = [
        ['old_busy', now - 10 * DAY, now + 6 * HOUR, false],
        ['young', now - DAY, now + 6 * HOUR, false],
        ['remembered', now - 10 * DAY, now + 20 * DAY, true],
      ];
      for (const [id, createdAt, expiresAt, rememberMe] of rows) {
        await db.db
          .insertInto('sessions')
          .values({
            id,
            user_id: user.id,
            created_at: iso(createdAt),
            last_seen_at: iso(createdAt),
            expires_at: iso(expiresAt),
            ip: null,
            user_agent: null,
            remember_me: rememberMe,
            revoked_at: null,
          })
          .execute();
      }
      await migration.up(db.db as unknown as Kysely<unknown>);
      const after = await db.db
        .selectFrom('sessions')
        .select(['id', 'expires_at', 'authenticated_at'])
        .orderBy('id')
        .execute();
      expect(after).toEqual([
        { id: 'old_busy', expires_at: iso(now - 3 * DAY), authenticated_at: null },
        { id: 'remembered', expires_at: iso(now + 20 * DAY), authenticated_at: null },
        { id: 'young', expires_at: iso(now + 6 * HOUR), authenticated_at: null },
      ]);
    } finally {
      await db.dispose();
    }
  });
});
