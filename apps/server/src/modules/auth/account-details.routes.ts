import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  SECURITY_MESSAGES,
  changeEmailRequestSchema,
  changeEmailResponseSchema,
  successEnvelope,
} from '@perch/shared';
import type { Db } from '../../db/index.js';
import { errorResponses, ok } from '../../lib/reply.js';
import { currentAuth, requireAuth } from './auth.plugin.js';
import { changeEmail } from './account-details.service.js';
import { clientOf } from './auth-events.js';

/**
 * POST /auth/change-email, beside POST /auth/change-password (auth.routes.ts): the account
 * details a person changes from the account menu, each with the current password.
 */
export const accountDetailsRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  app.post(
    '/auth/change-email',
    {
      preHandler: requireAuth,
      config: { useIssueMessage: true },
      schema: {
        tags: ['auth'],
        description:
          "Changes the signed-in user's email address; needs the current password. A wrong one " +
          'counts as a failed sign-in.',
        body: changeEmailRequestSchema,
        response: {
          200: successEnvelope(changeEmailResponseSchema),
          ...errorResponses(400, 401, 403, 409, 429, 503),
        },
      },
    },
    async (request) => {
      const data = await changeEmail(
        db,
        currentAuth(request),
        request.body,
        clientOf(request),
        app.sessionCache,
      );
      return ok(data, SECURITY_MESSAGES.emailChanged);
    },
  );
};
