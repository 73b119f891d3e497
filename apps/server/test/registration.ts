/**
 * How tests sign up through the API: the password of the accounts they register and the body of
 * POST /api/v1/auth/register. Free of server modules, so the benchmarks register with it too.
 */

/** The password of the accounts tests register (TestClient.register's default). */
export const TEST_PASSWORD = 'Sup3r-secret!';

/** The body of POST /api/v1/auth/register for `username` with invitation `code`. */
export function registration(
  username: string,
  code: string,
  overrides: Record<string, unknown> = {},
  password = TEST_PASSWORD,
) {
  return {
    username,
    email: `${username}@example.com`,
    password,
    confirmPassword: password,
    invitationCode: code,
    acceptTerms: true,
    acceptPrivacy: true,
    ...overrides,
  };
}
