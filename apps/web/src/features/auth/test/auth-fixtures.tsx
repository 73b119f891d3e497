import type { ReactElement } from 'react';
import { ok, signedOutCheckHandler, stubFetch, type StubHandler } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';

/** The user a successful sign-in or registration answers with. */
export function makeAuthUser(overrides: { id: number; isAdmin?: boolean; lastLoginAt?: string }) {
  const isAdmin = overrides.isAdmin ?? false;
  return {
    username: 'ada',
    email: 'ada@example.com',
    isAdmin,
    isSuperAdmin: isAdmin,
    profile: null,
    createdAt: '2025-01-01T00:00:00.000Z',
    lastLoginAt: '2025-01-02T00:00:00.000Z',
    ...overrides,
  };
}

/** The answer of a sign-in (either step) that opened a cookie session for `user`. */
export function signedInAnswer(user: ReturnType<typeof makeAuthUser>, csrfToken: string): Response {
  return ok({
    user,
    session: { authMethod: 'cookie', rememberMe: false, expiresAt: '2025-02-01T00:00:00.000Z' },
    message: 'Login successful',
    csrfToken,
  });
}

/** Stubs the API of a signed-out browser: the session check names nobody, plus `handlers`. */
export function stubSignedOut(handlers: Record<string, StubHandler> = {}) {
  return stubFetch({ 'GET /api/v1/auth/check': signedOutCheckHandler, ...handlers });
}

/** Renders a sign-in or create-account page at `path`, with the home page it leads to. */
export function renderAuthPage(path: string, element: ReactElement) {
  return renderRoute(path, element, {
    routes: [{ path: '/', element: <p>Home page</p> }],
  });
}
