import { describe, expect, it } from 'vitest';
import {
  MESSAGES,
  SECURITY_MESSAGES,
  authCheckResponseSchema,
  type ErrorEnvelope,
} from '@perch/shared';
import { dataOf, expectError, representedEvents } from './assertions.js';
import { DIALECTS, TEST_PASSWORD, TestClient, inviteCode } from './helpers.js';
import { appForSuite, signedInUser, uniqueName } from './seed.js';

const NEW_PASSWORD = 'An0ther-secret!';
const API = '/api/v1';
const AGENT = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Safari/605.1.15';

describe.each(DIALECTS)('auth security events and password change [%s]', (dialect) => {
  const suite = appForSuite(dialect);

  /** POST with the test's browser user agent. */
  const post = (client: TestClient, url: string, payload?: unknown) =>
    client.request({
      method: 'POST',
      url: `${API}${url}`,
      headers: { 'user-agent': AGENT },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  const login = (client: TestClient, username: string, password = TEST_PASSWORD) =>
    post(client, '/auth/login', { username, password });

  const signedIn = (prefix: string, ip: string) => signedInUser(suite.t, prefix, { ip });

  const eventsOf = (userId: number | null, type: string) => {
    let query = suite.t.db.db
      .selectFrom('security_events')
      .selectAll()
      .where('event_type', '=', type);
    query =
      userId === null ? query.where('user_id', 'is', null) : query.where('user_id', '=', userId);
    return query.orderBy('id').execute();
  };
  const authenticated = async (client: TestClient) =>
    dataOf(await client.get(`${API}/auth/check`), authCheckResponseSchema).authenticated;

  it('records a registration (low) with its IP and browser', async () => {
    const username = uniqueName('reg');
    const client = new TestClient(suite.t.app, '10.50.0.1');
    const code = await inviteCode(suite.t.db);
    const response = await post(client, '/auth/register', {
      username,
      email: `${username}@example.com`,
      password: TEST_PASSWORD,
      confirmPassword: TEST_PASSWORD,
      invitationCode: code,
      acceptTerms: true,
      acceptPrivacy: true,
    });
    expect(response.statusCode, response.body).toBe(201);
    const userId = (response.json() as { data: { user: { id: number } } }).data.user.id;
    const [event, ...more] = await eventsOf(userId, 'registration');
    expect(more).toHaveLength(0);
    expect(event).toMatchObject({
      severity: 'low',
      ip: '10.50.0.1',
      user_agent: AGENT,
      actor_id: null,
    });
    expect(event?.description).toBeTruthy();
  });

  it('records a sign-in (low) and a sign-out (low)', async () => {
    const { username, userId } = await signedIn('inout', '10.50.1.1');
    const client = new TestClient(suite.t.app, '10.50.1.2');
    expect((await login(client, username)).statusCode).toBe(200);
    const [success] = await eventsOf(userId, 'login_success');
    expect(success).toMatchObject({ severity: 'low', ip: '10.50.1.2', user_agent: AGENT });

    expect((await post(client, '/auth/logout')).statusCode).toBe(200);
    const [logout, ...more] = await eventsOf(userId, 'logout');
    expect(more).toHaveLength(0);
    expect(logout).toMatchObject({ severity: 'low', ip: '10.50.1.2', user_agent: AGENT });

    // Signing out without a session records nothing.
    expect((await post(client, '/auth/logout')).statusCode).toBe(200);
    expect(await eventsOf(userId, 'logout')).toHaveLength(1);
  });

  it('records failed sign-ins (medium), with the account when the name matches one', async () => {
    const { username, userId } = await signedIn('failed', '10.50.2.1');
    const client = new TestClient(suite.t.app, '10.50.2.2');
    const wrongPassword = 'Wr0ng-password-here';
    expectError(await login(client, username.toUpperCase(), wrongPassword), 401, {
      message: MESSAGES.loginWrongCredentials,
    });
    const [known] = await eventsOf(userId, 'login_failed');
    expect(known).toMatchObject({ severity: 'medium', ip: '10.50.2.2', user_agent: AGENT });

    const ghost = uniqueName('ghost');
    expectError(await login(client, ghost, wrongPassword), 401);
    const unknown = (await eventsOf(null, 'login_failed')).filter((e) =>
      e.metadata.includes(ghost),
    );
    expect(unknown).toHaveLength(1);
    expect(unknown[0]).toMatchObject({ severity: 'medium', user_id: null, ip: '10.50.2.2' });

    const everything = JSON.stringify(
      await suite.t.db.db.selectFrom('security_events').selectAll().execute(),
    );
    expect(everything).not.toContain(wrongPassword);
    expect(everything).not.toContain(TEST_PASSWORD);
  });

  it('records the lock (high) each time throttling refuses a sign-in', async () => {
    const { username, userId } = await signedIn('locked', '10.50.3.1');
    const attacker = new TestClient(suite.t.app, '10.50.3.2');
    for (let i = 0; i < 5; i++) await login(attacker, username, `wrong-${i}-password`);
    expect(await eventsOf(userId, 'login_locked')).toHaveLength(0);
    expectError(await login(attacker, username), 429, { message: MESSAGES.loginTooManyAttempts });
    expectError(await login(attacker, username), 429);
    const locks = await eventsOf(userId, 'login_locked');
    expect(locks).toHaveLength(2);
    expect(locks[0]).toMatchObject({ severity: 'high', ip: '10.50.3.2', user_agent: AGENT });
    // The first three have rows of their own, the rest count in one aggregate.
    expect(representedEvents(await eventsOf(userId, 'login_failed'))).toBe(5);
  });

  describe('password change', () => {
    it('changes the password and signs out every other session of the user', async () => {
      const { client, username, userId } = await signedIn('change', '10.50.4.1');
      const laptop = new TestClient(suite.t.app, '10.50.4.2');
      const phone = new TestClient(suite.t.app, '10.50.4.3');
      expect((await login(laptop, username)).statusCode).toBe(200);
      expect((await login(phone, username)).statusCode).toBe(200);
      const bystander = await signedIn('bystander', '10.50.4.9');

      const response = await post(client, '/auth/change-password', {
        currentPassword: TEST_PASSWORD,
        newPassword: NEW_PASSWORD,
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        success: true,
        message: SECURITY_MESSAGES.passwordChanged,
        data: { revokedSessions: 2 },
      });

      // The other sessions are over: their next call is refused.
      for (const other of [laptop, phone]) {
        expectError(await other.get(`${API}/handles`), 401, {
          message: MESSAGES.notAuthenticated,
        });
        expect(await authenticated(other)).toBe(false);
      }
      expect((await client.get(`${API}/handles`)).statusCode).toBe(200);
      expect(await authenticated(bystander.client)).toBe(true);

      expectError(await login(new TestClient(suite.t.app, '10.50.4.4'), username), 401);
      expect(
        (await login(new TestClient(suite.t.app, '10.50.4.5'), username, NEW_PASSWORD)).statusCode,
      ).toBe(200);

      const [event, ...more] = await eventsOf(userId, 'password_changed');
      expect(more).toHaveLength(0);
      expect(event).toMatchObject({ severity: 'high', ip: '10.50.4.1', user_agent: AGENT });
      const stored = JSON.stringify(await eventsOf(userId, 'password_changed'));
      expect(stored).not.toContain(NEW_PASSWORD);
      expect(stored).not.toContain(TEST_PASSWORD);
    });

    it('refuses a wrong current password and a new one registration would refuse', async () => {
      const { client, username } = await signedIn('refused', '10.50.5.1');
      const refused: [
        currentPassword: string,
        newPassword: string,
        error: Partial<ErrorEnvelope>,
      ][] = [
        [
          'not-my-password',
          NEW_PASSWORD,
          { message: SECURITY_MESSAGES.currentPasswordWrong, code: 'CURRENT_PASSWORD_WRONG' },
        ],
        [TEST_PASSWORD, 'short', { message: 'Password must be at least 8 characters long.' }],
        [
          TEST_PASSWORD,
          'x'.repeat(300),
          { message: 'Password must be at most 256 characters long.' },
        ],
        [
          '',
          NEW_PASSWORD,
          { message: SECURITY_MESSAGES.currentPasswordWrong, code: 'VALIDATION_ERROR' },
        ],
      ];
      for (const [currentPassword, newPassword, error] of refused) {
        expectError(
          await post(client, '/auth/change-password', { currentPassword, newPassword }),
          400,
          error,
        );
      }
      // Nothing changed.
      expect((await login(new TestClient(suite.t.app, '10.50.5.2'), username)).statusCode).toBe(
        200,
      );
      expect(await authenticated(client)).toBe(true);
    });

    it('stops checking current passwords after 5 wrong ones', async () => {
      const { client } = await signedIn('guess', '10.50.6.1');
      for (let i = 0; i < 5; i++) {
        expectError(
          await post(client, '/auth/change-password', {
            currentPassword: `guess-${i}-password`,
            newPassword: NEW_PASSWORD,
          }),
          400,
          { message: SECURITY_MESSAGES.currentPasswordWrong },
        );
      }
      expectError(
        await post(client, '/auth/change-password', {
          currentPassword: TEST_PASSWORD,
          newPassword: NEW_PASSWORD,
        }),
        429,
        { message: SECURITY_MESSAGES.tooManyAttempts, code: 'RATE_LIMITED' },
      );
    });

    it('needs a signed-in user and a CSRF token', async () => {
      const body = { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD };
      expectError(
        await post(new TestClient(suite.t.app, '10.50.7.1'), '/auth/change-password', body),
        401,
        {
          message: MESSAGES.notAuthenticated,
        },
      );
      const { client } = await signedIn('csrf', '10.50.7.2');
      const forged = await client.request({
        method: 'POST',
        url: `${API}/auth/change-password`,
        payload: body,
        csrf: false,
      });
      expectError(forged, 403, { code: 'CSRF_INVALID' });
    });
  });
});
