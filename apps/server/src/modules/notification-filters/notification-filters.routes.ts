import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  handleResponseSchema,
  idParamSchema,
  notificationFilterRequestSchema,
  notificationFilterSchema,
  successEnvelope,
} from '@perch/shared';
import type { Db } from '../../db/index.js';
import { errorResponses, ok } from '../../lib/reply.js';
import { currentAuth, requireAuth } from '../auth/auth.plugin.js';
import { getHandleFilter, setHandleFilter } from './notification-filters.service.js';

const errors = errorResponses(400, 401, 403, 404);
const tags = ['handles'];

/** Each user's notification filter of a handle they follow (words, phrases, media only). */
export const notificationFiltersRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  // Before validation: a signed-out caller gets 401 whatever the body holds.
  app.addHook('preValidation', requireAuth);

  app.get(
    '/handles/:id/notifications/filter',
    {
      schema: {
        tags,
        params: idParamSchema,
        response: {
          200: successEnvelope(z.object({ filter: notificationFilterSchema })),
          ...errors,
        },
      },
    },
    async (request) =>
      ok({ filter: await getHandleFilter(db, currentAuth(request).user, request.params.id) }),
  );

  app.put(
    '/handles/:id/notifications/filter',
    {
      // A 400 says what was wrong: too many words, one too long, one in both lists.
      config: { useIssueMessage: true },
      schema: {
        tags,
        description:
          'Replaces the filter: `include` (notify only when the tweet contains any of them), ' +
          '`exclude` (never when it contains one), `media_only`. Words and phrases match whole ' +
          'words, whatever their case; `{}` clears the filter.',
        params: idParamSchema,
        body: notificationFilterRequestSchema,
        response: { 200: successEnvelope(handleResponseSchema), ...errors },
      },
    },
    async (request) => {
      const { handle, message } = await setHandleFilter(
        db,
        currentAuth(request).user,
        request.params.id,
        request.body,
      );
      return ok({ handle }, message);
    },
  );
};
