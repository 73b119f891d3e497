/**
 * New passwords on the list of common and breached passwords are refused wherever a password is
 * set through the API (registration, password change), with the text the forms show under the
 * field; one that is not on it is taken.
 */
import { describe, expect, it } from 'vitest';
import { MESSAGES } from '@perch/shared';
import { expectError } from './assertions.js';
import { DIALECTS, TEST_PASSWORD, TestClient, inviteCode } from './helpers.js';
import { appForSuite, uniqueName } from './seed.js';

const COMMON = ['password123', 'Password1', 'QWERTY123456', 'iloveyou1', 'letmein123'];
const STRONG = 'Heron-lantern-57!';

describe.each(DIALECTS)('common passwords [%s]', (dialect) => {
  const suite = appForSuite(dialect);

  async function register(username: string, password: string, invitationCode?: string) {
    return new TestClient(suite.t.app, '10.90.0.1').post('/api/v1/auth/register', {
      username,
      email: `${username}@example.com`,
      password,
      confirmPassword: password,
      invitationCode: invitationCode ?? (await inviteCode(suite.t.db)),
      acceptTerms: true,
      acceptPrivacy: true,
    });
  }

  it.each(COMMON)('refuses to register with %s, and keeps the invitation', async (password) => {
    const username = uniqueName('common');
    const code = await inviteCode(suite.t.db);
    const response = await register(username, password, code);
    expectError(response, 400, {
      message: MESSAGES.passwordTooCommon,
      code: 'PASSWORD_TOO_COMMON',
    });
    // The invitation (one use) is still there for a better password.
    const retried = await register(username, STRONG, code);
    expect(retried.statusCode, retried.body).toBe(201);
  });

  it('registers with a password that is not on the list', async () => {
    const response = await register(uniqueName('strong'), STRONG);
    expect(response.statusCode, response.body).toBe(201);
  });

  it.each(COMMON)('refuses %s as a new password, leaving the old one', async (password) => {
    const username = uniqueName('changer');
    const client = new TestClient(suite.t.app, '10.90.1.1');
    await client.register(suite.t.db, username, 'user', TEST_PASSWORD);
    const response = await client.post('/api/v1/auth/change-password', {
      currentPassword: TEST_PASSWORD,
      newPassword: password,
    });
    expectError(response, 400, {
      message: MESSAGES.passwordTooCommon,
      code: 'PASSWORD_TOO_COMMON',
    });
    const again = await new TestClient(suite.t.app, '10.90.1.2').post('/api/v1/auth/login', {
      username,
      password: TEST_PASSWORD,
    });
    expect(again.statusCode, again.body).toBe(200);
  });

  it('changes to a password that is not on the list', async () => {
    const client = new TestClient(suite.t.app, '10.90.2.1');
    await client.register(suite.t.db, uniqueName('changer'), 'user', TEST_PASSWORD);
    const response = await client.post('/api/v1/auth/change-password', {
      currentPassword: TEST_PASSWORD,
      newPassword: STRONG,
    });
    expect(response.statusCode, response.body).toBe(200);
  });
});
