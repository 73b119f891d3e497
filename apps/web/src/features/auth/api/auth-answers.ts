import type {
  AuthCheckResponse,
  LoginResponse,
  LoginResult,
  LoginTwoFactorChallenge,
  User,
} from '@perch/shared';
import { checkedBy } from '@/lib/api-client';
import { isRecord } from '@/lib/api-envelope';

// The answers of GET /auth/check and POST /auth/login, checked without zod: the sign-in page
// loads these two calls, and zod would add about 26 kB gzipped to it. They accept what
// authCheckResponseSchema and loginResultSchema of @perch/shared accept (auth-answers.test.ts
// holds them side by side); the other calls use those zod schemas.

type Check = (value: unknown) => boolean;

const isString: Check = (value) => typeof value === 'string';
const isBoolean: Check = (value) => typeof value === 'boolean';
const isInteger: Check = (value) => Number.isInteger(value);
/** A profile: an object of anything, or null. */
const isProfile: Check = (value) => value === null || isRecord(value);
const optional =
  (check: Check): Check =>
  (value) =>
    value === undefined || check(value);

/** An object whose fields pass their checks (a missing field is undefined). */
function hasFields(
  value: unknown,
  fields: Record<string, Check>,
): value is Record<string, unknown> {
  return isRecord(value) && Object.entries(fields).every(([key, check]) => check(value[key]));
}

function isUser(value: unknown): value is User {
  return hasFields(value, {
    id: isInteger,
    username: isString,
    email: isString,
    isAdmin: isBoolean,
    isSuperAdmin: isBoolean,
    profile: isProfile,
    createdAt: isString,
    lastLoginAt: (lastLogin) => lastLogin === null || isString(lastLogin),
  });
}

function isAuthCheck(value: unknown): value is AuthCheckResponse {
  return hasFields(value, {
    authenticated: isBoolean,
    userId: optional(isInteger),
    username: optional(isString),
    email: optional(isString),
    isAdmin: optional(isBoolean),
    isSuperAdmin: optional(isBoolean),
    profile: optional(isProfile),
    csrfToken: isString,
    message: optional(isString),
  });
}

function isSignedIn(value: unknown): value is LoginResponse {
  return hasFields(value, {
    user: isUser,
    session: (session) =>
      hasFields(session, {
        authMethod: (method) => method === 'cookie',
        rememberMe: isBoolean,
        expiresAt: isString,
      }),
    message: isString,
    csrfToken: isString,
  });
}

function isTwoFactorChallenge(value: unknown): value is LoginTwoFactorChallenge {
  return hasFields(value, { requires2fa: (flag) => flag === true, message: isString });
}

/** GET /auth/check: who is signed in, and the CSRF token. */
export const authCheckAnswer = checkedBy(isAuthCheck);

/** POST /auth/login: a signed-in session, or the ask for the two-factor code. */
export const loginAnswer = checkedBy(
  (value): value is LoginResult => isSignedIn(value) || isTwoFactorChallenge(value),
);
