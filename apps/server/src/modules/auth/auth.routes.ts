import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  MESSAGES,
  SECURITY_MESSAGES,
  TWO_FACTOR_COOKIE,
  TWO_FACTOR_LOGIN_TTL_MS,
  authCheckFromUser,
  authCheckResponseSchema,
  changePasswordRequestSchema,
  changePasswordResponseSchema,
  loginRequestSchema,
  loginResponseSchema,
  loginResultSchema,
  loginTwoFactorRequestSchema,
  logoutRequestSchema,
  registerRequestSchema,
  registerResponseSchema,
  successEnvelope,
  usernameSchema,
  verifyInviteRequestSchema,
  verifyInviteResponseSchema,
} from '@perch/shared';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { forbidden } from '../../lib/errors.js';
import { errorResponses, ok } from '../../lib/reply.js';
import { currentAuth, requireAuth } from './auth.plugin.js';
import { createTwoFactorCipher } from './two-factor.service.js';
import { toUser } from '../users/users.service.js';
import { clientOf } from './auth-events.js';
import { configureSignInLimits } from './login-throttle.js';
import { configurePasswordHashing } from './passwords.js';
import { openSession } from './sessions.service.js';
import { stepUpRoutes } from './step-up.routes.js';
import { accountDetailsRoutes } from './account-details.routes.js';
import {
  devLoginUser,
  changePassword,
  completeTwoFactorLogin,
  login,
  logout,
  register,
  verifyInvite,
  type SignedIn,
} from './auth.service.js';

const errors = errorResponses(400, 401, 403);

/** The pending second sign-in step is only ever sent to the sign-in routes. */
const TWO_FACTOR_COOKIE_PATH = '/api/v1/auth';

/** The answer of a finished sign-in (password alone, or password and code). */
function signedInData(request: FastifyRequest, { user, session }: SignedIn, message: string) {
  return {
    user,
    session: {
      authMethod: 'cookie' as const,
      rememberMe: session.rememberMe,
      expiresAt: session.expiresAt,
    },
    message,
    csrfToken: request.csrfToken,
  };
}

/** Sign-in, registration and session routes, with the two-factor step. */
export const authRoutes: FastifyPluginAsyncZod<{ config: Config; db: Db }> = async (
  app,
  { config, db },
) => {
  const cipher = createTwoFactorCipher(config);
  // Both guard this process as a whole (its cores, its attempts), whatever app it serves.
  configureSignInLimits({ accountDelayMaxMs: config.SIGN_IN_DELAY_MAX_SECONDS * 1000 });
  configurePasswordHashing(config);
  const twoFactorCookie = {
    path: TWO_FACTOR_COOKIE_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure: config.COOKIE_SECURE,
  } as const;
  const clearTwoFactorCookie = (reply: FastifyReply) =>
    reply.clearCookie(TWO_FACTOR_COOKIE, twoFactorCookie);

  // POST /auth/reauthenticate (step-up.ts).
  await app.register(stepUpRoutes, { config, db });
  // POST /auth/change-email (account-details.routes.ts).
  await app.register(accountDetailsRoutes, { db });

  app.post(
    '/auth/verify-invite',
    {
      config: { invalidMessage: MESSAGES.invalidInvitation },
      schema: {
        tags: ['auth'],
        body: verifyInviteRequestSchema,
        response: { 200: successEnvelope(verifyInviteResponseSchema), ...errors },
      },
    },
    async (request) => ok(await verifyInvite(db, request.body.code)),
  );

  app.post(
    '/auth/register',
    {
      config: { invalidMessage: MESSAGES.registerInvalidData },
      schema: {
        tags: ['auth'],
        body: registerRequestSchema,
        response: {
          201: successEnvelope(registerResponseSchema),
          ...errors,
          ...errorResponses(404, 409, 503),
        },
      },
    },
    async (request, reply) => {
      const { user, session } = await register(db, request.body, clientOf(request));
      reply.setSessionCookie(session).code(201);
      const message = 'Registration successful. Welcome to Perch!';
      return ok({ user, message, csrfToken: request.csrfToken }, message);
    },
  );

  app.post(
    '/auth/login',
    {
      config: { invalidMessage: MESSAGES.loginInvalidData },
      schema: {
        tags: ['auth'],
        description:
          'Signs in. For an account with two-factor sign-in, answers `requires2fa` and sets the ' +
          'perch_2fa cookie instead of a session: POST /auth/login/2fa finishes it.',
        body: loginRequestSchema,
        response: {
          200: successEnvelope(loginResultSchema),
          ...errors,
          ...errorResponses(429, 503),
        },
      },
    },
    async (request, reply) => {
      const { username, password, rememberMe, deviceInfo } = request.body;
      const outcome = await login(
        db,
        { username, password, rememberMe },
        clientOf(request, deviceInfo?.userAgent),
        app.sessionCache,
      );
      if (outcome.status === 'two-factor') {
        reply.setCookie(TWO_FACTOR_COOKIE, outcome.pendingToken, {
          ...twoFactorCookie,
          maxAge: TWO_FACTOR_LOGIN_TTL_MS / 1000,
        });
        const message = SECURITY_MESSAGES.twoFactorRequired;
        return ok({ requires2fa: true as const, message }, message);
      }
      reply.setSessionCookie(outcome.session);
      const message = 'Login successful';
      return ok(signedInData(request, outcome, message), message);
    },
  );

  app.post(
    '/auth/login/2fa',
    {
      config: { useIssueMessage: true },
      schema: {
        tags: ['auth'],
        description:
          'The second sign-in step: a code from the authenticator app or a recovery code, for ' +
          'the sign-in the perch_2fa cookie holds.',
        body: loginTwoFactorRequestSchema,
        response: {
          200: successEnvelope(loginResponseSchema),
          ...errors,
          ...errorResponses(429),
        },
      },
    },
    async (request, reply) => {
      const outcome = await completeTwoFactorLogin(
        db,
        cipher,
        request.cookies[TWO_FACTOR_COOKIE],
        request.body.code,
        clientOf(request),
        app.sessionCache,
      );
      if (outcome.status === 'failed') {
        if (outcome.pendingGone) clearTwoFactorCookie(reply);
        throw outcome.error;
      }
      clearTwoFactorCookie(reply);
      reply.setSessionCookie(outcome.session);
      const message = 'Login successful';
      return ok(signedInData(request, outcome, message), message);
    },
  );

  app.post(
    '/auth/change-password',
    {
      preHandler: requireAuth,
      config: { useIssueMessage: true },
      schema: {
        tags: ['auth'],
        description:
          "Changes the signed-in user's password; every other session of the user is signed out.",
        body: changePasswordRequestSchema,
        response: {
          200: successEnvelope(changePasswordResponseSchema),
          ...errors,
          ...errorResponses(429, 503),
        },
      },
    },
    async (request) => {
      const data = await changePassword(
        db,
        currentAuth(request),
        request.body,
        clientOf(request),
        app.sessionCache,
      );
      return ok(data, SECURITY_MESSAGES.passwordChanged);
    },
  );

  app.get(
    '/auth/check',
    { schema: { tags: ['auth'], response: { 200: successEnvelope(authCheckResponseSchema) } } },
    async (request) => {
      const csrfToken = request.csrfToken;
      if (!request.auth) {
        return ok({ authenticated: false, csrfToken, message: 'Not signed in' });
      }
      return ok(authCheckFromUser(toUser(request.auth.user), csrfToken));
    },
  );

  app.post(
    '/auth/logout',
    {
      schema: {
        tags: ['auth'],
        // A POST without a body reaches the schema as null: the body is optional.
        body: logoutRequestSchema.nullable(),
        response: { 200: successEnvelope(z.object({ loggedOut: z.literal(true) })), ...errors },
      },
    },
    async (request, reply) => {
      if (request.auth) await logout(db, request.auth, clientOf(request), app.sessionCache);
      reply.clearSessionCookie();
      return ok({ loggedOut: true as const }, 'Logged out');
    },
  );

  // Development shortcut: signs in as an existing user without a password. Off unless DEV_LOGIN=true.
  if (config.DEV_LOGIN) {
    app.post(
      '/auth/dev-login',
      {
        config: { invalidMessage: MESSAGES.loginInvalidData },
        schema: {
          tags: ['auth'],
          body: z.object({ username: usernameSchema }),
          response: { 200: successEnvelope(loginResponseSchema), ...errors },
        },
      },
      async (request, reply) => {
        const row = await devLoginUser(db, request.body.username);
        if (!row)
          throw forbidden('No such user for development sign-in.', 'DEV_LOGIN_UNKNOWN_USER');
        const session = await openSession(db, row.id, false, clientOf(request));
        reply.setSessionCookie(session);
        const message = 'Development login successful';
        return ok(
          {
            user: toUser(row),
            session: {
              authMethod: 'cookie' as const,
              rememberMe: false,
              expiresAt: session.expiresAt,
            },
            message,
            csrfToken: request.csrfToken,
          },
          message,
        );
      },
    );
  }
};
