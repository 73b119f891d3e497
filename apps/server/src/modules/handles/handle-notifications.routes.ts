import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  handleNotificationsRequestSchema,
  handleNotificationsResponseSchema,
  idParamSchema,
  successEnvelope,
} from '@perch/shared';
import type { Db } from '../../db/index.js';
import { errorResponses, ok } from '../../lib/reply.js';
import { currentAuth, requireAuth } from '../auth/auth.plugin.js';
import { setHandleNotifications } from './handle-notifications.service.js';

const errors = errorResponses(400, 401, 403, 404);

/** A handle's Telegram and Discord switches. */
export const handleNotificationsRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  // Before validation: a signed-out caller gets 401 whatever the body holds.
  app.addHook('preValidation', requireAuth);

  app.put(
    '/handles/:id/notifications',
    {
      // A 400 from validation says what was wrong: the spec's text of the field.
      config: { useIssueMessage: true },
      schema: {
        tags: ['handles'],
        params: idParamSchema,
        body: handleNotificationsRequestSchema,
        response: { 200: successEnvelope(handleNotificationsResponseSchema), ...errors },
      },
    },
    async (request) => {
      const { handle, message } = await setHandleNotifications(
        { db },
        currentAuth(request).user,
        request.params.id,
        request.body,
      );
      return ok({ handle }, message);
    },
  );
};
