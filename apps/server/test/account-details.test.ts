/**
 * Account details from the account menu: a new email address (POST /auth/change-email) and a new
 * password (POST /auth/change-password), each with the current password, registration's texts
 * for a bad address or password, and a security event for each change.
 */
import { describe, expect, it } from 'vitest';
import {
  MESSAGES,
  SECURITY_MESSAGES,
  authCheckResponseSchema,
  changeEmailResponseSchema,
  type ErrorEnvelope,
} from '@perch/shared';
import { dataOf, expectError } from './assertions.js';
import { DIALECTS, TEST_PASSWORD, TestClient } from './helpers.js';
import { appForSuite, signedInAs, signedInUser, uniqueName } from './seed.js';

const API = '/api/v1';
const NEW_PASSWORD = 'Heron-lantern-57!';

describe.each(DIALECTS)('account details [%s]', (dialect) => {
  const suite = appForSuite(dialect);

  const signedIn = (prefix: string, ip: string) => signedInUser(suite.t, prefix, { ip });
  const changeEmail = (client: TestClient, email: string, currentPassword = TEST_PASSWORD) =>
    client.post(`${API}/auth/change-email`, { currentPassword, email });
  const changePassword = (client: TestClient, body: Record<string, string>) =>
    client.post(`${API}/auth/change-password`, { currentPassword: TEST_PASSWORD, ...body });
  const login = (ip: string, username: string, password = TEST_PASSWORD) =>
    new TestClient(suite.t.app, ip).post(`${API}/auth/login`, { username, password });
  const checkOf = async (client: TestClient) =>
    dataOf(await client.get(`${API}/auth/check`), authCheckResponseSchema);
  const eventsOf = (userId: number, type: string) =>
    suite.t.db.db
      .selectFrom('security_events')
      .selectAll()
      .where('user_id', '=', userId)
      .where('event_type', '=', type)
      .execute();

  describe('email', () => {
    it('changes the address, records it, and signs in with the new one only', async () => {
      const { client, email, userId } = await signedIn('mover', '10.91.0.1');
      const other = await signedInAs(new TestClient(suite.t.app, '10.91.0.2'), email);
      const fresh = `${uniqueName('moved')}@example.org`;

      const response = await changeEmail(client, `  ${fresh.toUpperCase()} `);
      expect(dataOf(response, changeEmailResponseSchema)).toEqual({ email: fresh.toUpperCase() });
      expect(response.json()).toMatchObject({ message: SECURITY_MESSAGES.emailChanged });

      // Every session reads the new address at once (the session cache dropped the old row),
      // and the other session stays: the password has not changed.
      expect((await checkOf(client)).email).toBe(fresh.toUpperCase());
      expect(await checkOf(other)).toMatchObject({
        authenticated: true,
        email: fresh.toUpperCase(),
      });

      const [event, ...more] = await eventsOf(userId, 'email_changed');
      expect(more).toHaveLength(0);
      expect(event).toMatchObject({ severity: 'high', ip: '10.91.0.1' });
      expect(JSON.stringify(event)).not.toContain(TEST_PASSWORD);

      expect((await login('10.91.0.3', fresh)).statusCode).toBe(200);
      expectError(await login('10.91.0.4', email), 401, {
        message: MESSAGES.loginWrongCredentials,
      });
    });

    it("refuses a bad address with registration's text, and a wrong or missing password", async () => {
      const { client, email, userId } = await signedIn('badmail', '10.91.1.1');
      const refused: [address: string, currentPassword: string, error: Partial<ErrorEnvelope>][] = [
        ['not-an-address', TEST_PASSWORD, { message: 'Please enter a valid email address.' }],
        ['', TEST_PASSWORD, { message: 'Please enter a valid email address.' }],
        [
          'fine@example.org',
          'not-my-password',
          { message: SECURITY_MESSAGES.currentPasswordWrong, code: 'CURRENT_PASSWORD_WRONG' },
        ],
        [
          'fine@example.org',
          '',
          { message: SECURITY_MESSAGES.currentPasswordWrong, code: 'VALIDATION_ERROR' },
        ],
        [
          email.toUpperCase(),
          TEST_PASSWORD,
          { message: SECURITY_MESSAGES.emailUnchanged, code: 'EMAIL_UNCHANGED' },
        ],
      ];
      for (const [address, currentPassword, error] of refused) {
        expectError(await changeEmail(client, address, currentPassword), 400, error);
      }
      expect((await checkOf(client)).email).toBe(email);
      expect(await eventsOf(userId, 'email_changed')).toHaveLength(0);
    });

    it("refuses an address another account has, in any case, with registration's text", async () => {
      const taken = await signedIn('holder', '10.91.2.1');
      const { client, email } = await signedIn('taker', '10.91.2.2');
      expectError(await changeEmail(client, taken.email.toUpperCase()), 409, {
        message: MESSAGES.registerEmailTaken,
        code: 'EMAIL_TAKEN',
      });
      expect((await checkOf(client)).email).toBe(email);
    });

    it('counts wrong current passwords as failed sign-ins: 429 after 5', async () => {
      const { client } = await signedIn('prober', '10.91.3.1');
      for (let i = 0; i < 5; i++) {
        expectError(await changeEmail(client, 'probe@example.org', `guess-${i}-password`), 400, {
          message: SECURITY_MESSAGES.currentPasswordWrong,
        });
      }
      expectError(await changeEmail(client, 'probe@example.org'), 429, {
        message: SECURITY_MESSAGES.tooManyAttempts,
        code: 'RATE_LIMITED',
      });
    });
  });

  describe('password', () => {
    it('changes it, ends the other sessions only, and signs in with the new one only', async () => {
      const { client, username, userId } = await signedIn('rekey', '10.91.4.1');
      const other = await signedInAs(new TestClient(suite.t.app, '10.91.4.2'), username);

      const response = await changePassword(client, {
        newPassword: NEW_PASSWORD,
        confirmPassword: NEW_PASSWORD,
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        message: SECURITY_MESSAGES.passwordChanged,
        data: { revokedSessions: 1 },
      });
      expect((await checkOf(client)).authenticated).toBe(true);
      expect((await checkOf(other)).authenticated).toBe(false);

      const [event, ...more] = await eventsOf(userId, 'password_changed');
      expect(more).toHaveLength(0);
      expect(event).toMatchObject({ severity: 'high', ip: '10.91.4.1' });
      expect(JSON.stringify(event)).not.toContain(NEW_PASSWORD);

      expect((await login('10.91.4.3', username, NEW_PASSWORD)).statusCode).toBe(200);
      expectError(await login('10.91.4.4', username), 401, {
        message: MESSAGES.loginWrongCredentials,
      });
    });

    it("refuses a short, common or unconfirmed password with registration's texts", async () => {
      const { client, username, userId } = await signedIn('weak', '10.91.5.1');
      const refused: [body: Record<string, string>, error: Partial<ErrorEnvelope>][] = [
        [
          { newPassword: 'short', confirmPassword: 'short' },
          { message: 'Password must be at least 8 characters long.' },
        ],
        [
          { newPassword: 'password123', confirmPassword: 'password123' },
          { message: MESSAGES.passwordTooCommon, code: 'PASSWORD_TOO_COMMON' },
        ],
        [
          { newPassword: NEW_PASSWORD, confirmPassword: `${NEW_PASSWORD}x` },
          { message: MESSAGES.passwordsDoNotMatch, code: 'VALIDATION_ERROR' },
        ],
        [
          { currentPassword: 'not-my-password', newPassword: NEW_PASSWORD },
          { message: SECURITY_MESSAGES.currentPasswordWrong, code: 'CURRENT_PASSWORD_WRONG' },
        ],
      ];
      for (const [body, error] of refused) {
        expectError(await changePassword(client, body), 400, error);
      }
      expect((await login('10.91.5.2', username)).statusCode).toBe(200);
      expect(await eventsOf(userId, 'password_changed')).toHaveLength(0);
    });
  });

  it('takes neither change without the CSRF token', async () => {
    const { client, email, username } = await signedIn('forged', '10.91.6.1');
    const forged = [
      {
        url: `${API}/auth/change-email`,
        payload: { currentPassword: TEST_PASSWORD, email: 'x@example.org' },
      },
      {
        url: `${API}/auth/change-password`,
        payload: { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD },
      },
    ];
    for (const { url, payload } of forged) {
      expectError(await client.request({ method: 'POST', url, payload, csrf: false }), 403, {
        code: 'CSRF_INVALID',
        message: MESSAGES.csrfInvalid,
      });
    }
    expect((await checkOf(client)).email).toBe(email);
    expect((await login('10.91.6.2', username)).statusCode).toBe(200);
  });
});
