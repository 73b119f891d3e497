import type { AuthCheckResponse, LoginResult, LoginTwoFactorChallenge, User } from './auth.js';

// The auth answers' functions and codes, apart from their zod schemas: the web's sign-in page
// uses them and loads no zod.

/** True when a sign-in answer asks for the two-factor code. */
export function requiresTwoFactor(result: LoginResult): result is LoginTwoFactorChallenge {
  return 'requires2fa' in result && result.requires2fa;
}

/** The session check answer for a signed-in user (the server sends it, the web caches it). */
export function authCheckFromUser(user: User, csrfToken: string): AuthCheckResponse {
  return {
    authenticated: true,
    userId: user.id,
    username: user.username,
    email: user.email,
    isAdmin: user.isAdmin,
    isSuperAdmin: user.isSuperAdmin,
    profile: user.profile,
    csrfToken,
  };
}

/** The code of the 403 a sensitive change answers when the last proof is over 5 minutes old. */
export const REAUTH_REQUIRED_CODE = 'REAUTH_REQUIRED';
