import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  STEP_UP_MESSAGES,
  reauthenticateRequestSchema,
  reauthenticateResponseSchema,
  successEnvelope,
} from '@perch/shared';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { errorResponses, ok } from '../../lib/reply.js';
import { currentAuth, requireAuth } from './auth.plugin.js';
import { createTwoFactorCipher } from './two-factor.service.js';
import { clientOf } from './auth-events.js';
import { reauthenticate } from './step-up.js';

/** POST /auth/reauthenticate: the proof that sensitive changes want (step-up.ts). */
export const stepUpRoutes: FastifyPluginAsyncZod<{ config: Config; db: Db }> = async (
  app,
  { config, db },
) => {
  const cipher = createTwoFactorCipher(config);

  app.post(
    '/auth/reauthenticate',
    {
      preHandler: requireAuth,
      config: { useIssueMessage: true },
      schema: {
        tags: ['auth'],
        description:
          '`{password}` or `{code}` (two-factor or recovery code): sensitive changes (two-factor ' +
          'sign-in, notification channels) go through for the next 5 minutes. A wrong one counts ' +
          'as a failed sign-in.',
        body: reauthenticateRequestSchema,
        response: {
          200: successEnvelope(reauthenticateResponseSchema),
          ...errorResponses(400, 401, 403, 429, 503),
        },
      },
    },
    async (request) => {
      const data = await reauthenticate(
        db,
        cipher,
        currentAuth(request),
        request.body,
        clientOf(request),
        app.sessionCache,
        request.now,
      );
      return ok(data, STEP_UP_MESSAGES.confirmed);
    },
  );
};
