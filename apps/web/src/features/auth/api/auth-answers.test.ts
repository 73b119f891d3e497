import { authCheckResponseSchema, loginResultSchema } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { authCheckAnswer, loginAnswer } from './auth-answers';

const user = {
  id: 7,
  username: 'ada',
  email: 'ada@example.com',
  isAdmin: false,
  isSuperAdmin: false,
  profile: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  lastLoginAt: null,
};
const signedIn = {
  user,
  session: { authMethod: 'cookie', rememberMe: true, expiresAt: '2026-02-01T00:00:00.000Z' },
  message: 'Login successful',
  csrfToken: 'token',
};
const challenge = { requires2fa: true, message: 'Enter the code from your app.' };
const check = {
  authenticated: true,
  userId: 7,
  username: 'ada',
  email: 'ada@example.com',
  isAdmin: true,
  isSuperAdmin: false,
  profile: { theme: 'dark' },
  csrfToken: 'token',
};

const checks: [string, unknown][] = [
  ['a signed-in check', check],
  ['a signed-out check', { authenticated: false, csrfToken: '' }],
  ['a check with a message and extra fields', { ...check, message: 'ok', extra: 1 }],
  ['a check without its CSRF token', { authenticated: false }],
  ['a check whose user id is not an integer', { ...check, userId: 7.5 }],
  ['a check whose user id is a text', { ...check, userId: '7' }],
  ['a check whose profile is a list', { ...check, profile: [] }],
  ['a check whose profile is null', { ...check, profile: null }],
  ['a check whose admin flag is a text', { ...check, isAdmin: 'yes' }],
  ['a check whose username is null', { ...check, username: null }],
  ['a list', [check]],
  ['null', null],
  ['nothing', undefined],
];

const logins: [string, unknown][] = [
  ['a signed-in session', signedIn],
  ['the ask for a two-factor code', challenge],
  [
    'a session of a user who signed in before',
    { ...signedIn, user: { ...user, lastLoginAt: 'x' } },
  ],
  ['a session with a profile', { ...signedIn, user: { ...user, profile: { a: 1 } } }],
  [
    'a session of a bearer token',
    { ...signedIn, session: { ...signedIn.session, authMethod: 'bearer' } },
  ],
  [
    'a session without its expiry',
    { ...signedIn, session: { authMethod: 'cookie', rememberMe: true } },
  ],
  ['a session without its CSRF token', { ...signedIn, csrfToken: undefined }],
  ['a session whose user has no id', { ...signedIn, user: { ...user, id: undefined } }],
  [
    'a session whose user has no creation time',
    { ...signedIn, user: { ...user, createdAt: null } },
  ],
  [
    'a session whose user profile is missing',
    { ...signedIn, user: { ...user, profile: undefined } },
  ],
  ['a two-factor ask that is false', { ...challenge, requires2fa: false }],
  ['a two-factor ask without its message', { requires2fa: true }],
  ['an empty object', {}],
  ['a text', 'ok'],
];

describe('the sign-in answers checked without zod', () => {
  it.each(checks)('GET /auth/check: judges %s as the shared schema does', (_name, data) => {
    expect(authCheckAnswer.safeParse(data).success).toBe(
      authCheckResponseSchema.safeParse(data).success,
    );
  });

  it.each(logins)('POST /auth/login: judges %s as the shared schema does', (_name, data) => {
    expect(loginAnswer.safeParse(data).success).toBe(loginResultSchema.safeParse(data).success);
  });

  it('passes accepted answers on as they came', () => {
    expect(authCheckAnswer.safeParse(check)).toEqual({ success: true, data: check });
    expect(loginAnswer.safeParse(challenge)).toEqual({ success: true, data: challenge });
  });
});
