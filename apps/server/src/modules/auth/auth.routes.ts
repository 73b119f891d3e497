import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  DEVICE_INFO_MAX_LENGTH,
  MESSAGES,
  authCheckFromUser,
  authCheckResponseSchema,
  errorEnvelopeSchema,
  loginRequestSchema,
  loginResponseSchema,
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
import { findUserByLogin } from '../users/users.repository.js';
import { toUser } from '../users/users.service.js';
import {
  closeSession,
  login,
  openSession,
  register,
  verifyInvite,
  type ClientInfo,
} from './auth.service.js';

const errors = { 400: errorEnvelopeSchema, 401: errorEnvelopeSchema, 403: errorEnvelopeSchema };

function clientInfo(request: FastifyRequest, deviceUserAgent?: string): ClientInfo {
  const agent = deviceUserAgent ?? request.headers['user-agent'] ?? null;
  return { ip: request.ip, userAgent: agent ? agent.slice(0, DEVICE_INFO_MAX_LENGTH) : null };
}

/** Sign-in, registration and session routes (doc 2 §7.2). */
export const authRoutes: FastifyPluginAsyncZod<{ config: Config; db: Db }> = async (
  app,
  { config, db },
) => {
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
    async (request) => ({
      success: true as const,
      data: await verifyInvite(db, request.body.code),
    }),
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
          404: errorEnvelopeSchema,
          409: errorEnvelopeSchema,
        },
      },
    },
    async (request, reply) => {
      const { user, session } = await register(db, request.body, clientInfo(request));
      reply.setSessionCookie(session).code(201);
      const message = 'Registration successful. Welcome to Perch!';
      return {
        success: true as const,
        message,
        data: { user, message, csrfToken: request.csrfToken },
      };
    },
  );

  app.post(
    '/auth/login',
    {
      config: { invalidMessage: MESSAGES.loginInvalidData },
      schema: {
        tags: ['auth'],
        body: loginRequestSchema,
        response: {
          200: successEnvelope(loginResponseSchema),
          ...errors,
          429: errorEnvelopeSchema,
        },
      },
    },
    async (request, reply) => {
      const { username, password, rememberMe, deviceInfo } = request.body;
      const { user, session } = await login(
        db,
        { username, password, rememberMe },
        clientInfo(request, deviceInfo?.userAgent),
      );
      reply.setSessionCookie(session);
      const message = 'Login successful';
      return {
        success: true as const,
        message,
        data: {
          user,
          session: { authMethod: 'cookie' as const, rememberMe, expiresAt: session.expiresAt },
          message,
          csrfToken: request.csrfToken,
        },
      };
    },
  );

  app.get(
    '/auth/check',
    { schema: { tags: ['auth'], response: { 200: successEnvelope(authCheckResponseSchema) } } },
    async (request) => {
      const csrfToken = request.csrfToken;
      if (!request.auth) {
        return {
          success: true as const,
          data: { authenticated: false, csrfToken, message: 'Not signed in' },
        };
      }
      return {
        success: true as const,
        data: authCheckFromUser(toUser(request.auth.user), csrfToken),
      };
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
      if (request.auth) await closeSession(db, request.auth.sessionIdHash);
      reply.clearSessionCookie();
      return { success: true as const, message: 'Logged out', data: { loggedOut: true as const } };
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
        const row = await findUserByLogin(db.db, request.body.username);
        if (!row)
          throw forbidden('No such user for development sign-in.', 'DEV_LOGIN_UNKNOWN_USER');
        const session = await openSession(db, row.id, false, clientInfo(request));
        reply.setSessionCookie(session);
        const message = 'Development login successful';
        return {
          success: true as const,
          message,
          data: {
            user: toUser(row),
            session: {
              authMethod: 'cookie' as const,
              rememberMe: false,
              expiresAt: session.expiresAt,
            },
            message,
            csrfToken: request.csrfToken,
          },
        };
      },
    );
  }
};
