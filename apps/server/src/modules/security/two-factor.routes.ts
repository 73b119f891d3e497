import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { successEnvelope, twoFactorRequestSchema, twoFactorResponseSchema } from '@perch/shared';
import { errorResponses, ok } from '../../lib/reply.js';
import { currentAuth, requireAuth } from '../auth/auth.plugin.js';
import { clientOf } from '../auth/auth-events.js';
import { requireRecentAuthentication } from '../auth/step-up.js';
import type { SecurityDeps } from './security.routes.js';
import { changeTwoFactor, createTwoFactorCipher } from '../auth/two-factor.service.js';

/**
 * POST /security/2fa: two-factor sign-in set-up and switch-off, each step behind the step-up (the
 * password or a code given within 5 minutes; auth/step-up.ts).
 */
export const twoFactorRoutes: FastifyPluginAsyncZod<SecurityDeps> = async (app, { config, db }) => {
  const cipher = createTwoFactorCipher(config);

  app.post(
    '/security/2fa',
    {
      preHandler: [requireAuth, requireRecentAuthentication],
      config: { useIssueMessage: true },
      schema: {
        tags: ['security'],
        description:
          '`{enabled: true}` starts the set-up (secret, otpauth URL, QR code); ' +
          '`{enabled: true, totpSecret, code}` finishes it (recovery codes, shown once); ' +
          '`{enabled: false, code}` turns it off with a current code or a recovery code. ' +
          'Without the password or a code given within 5 minutes: 403 REAUTH_REQUIRED ' +
          '(POST /auth/reauthenticate).',
        body: twoFactorRequestSchema,
        response: {
          200: successEnvelope(twoFactorResponseSchema),
          ...errorResponses(400, 401, 403, 409, 429),
        },
      },
    },
    async (request) => {
      const { user } = currentAuth(request);
      const { data, message } = await changeTwoFactor(
        db,
        cipher,
        user,
        request.body,
        clientOf(request),
        app.sessionCache,
      );
      return ok(data, message);
    },
  );
};
