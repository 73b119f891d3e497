/** Adding collector accounts to the x-web pool through the admin API, as the tests need. */
import { expect } from 'vitest';
import { xWebAccountResponseSchema, type XWebAccount } from '@perch/shared';
import { dataOf } from './assertions.js';
import type { FakeXWebServer } from './fakes/fake-x-web-server.js';
import type { TestClient } from './helpers.js';

/** An account of the fake X, added by the cookies of a signed-in session (as a super admin). */
export async function addXWebAccountByCookies(
  fake: FakeXWebServer,
  superAdmin: TestClient,
  username: string,
): Promise<XWebAccount> {
  fake.addAccount({ username, password: 'pw', email: `${username}@example.com` });
  const session = fake.issueSession(username);
  const response = await superAdmin.post('/api/v1/admin/x-web-accounts', {
    method: 'cookies',
    username,
    auth_token: session.authToken,
    ct0: session.ct0,
  });
  expect(response.statusCode, response.body).toBe(201);
  return dataOf(response, xWebAccountResponseSchema).account;
}
