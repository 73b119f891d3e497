import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { successEnvelope, tweetPageQuerySchema, tweetPageResponseSchema } from '@perch/shared';
import type { Db } from '../../db/index.js';
import { errorResponses, ok } from '../../lib/reply.js';
import { currentAuth, requireAuth } from '../auth/auth.plugin.js';
import { readableHandle } from '../handles/handles.service.js';
import { tweetPage } from './tweets.service.js';

const errors = errorResponses(400, 401, 403, 404);
const handleParamSchema = z.object({ handle: z.string().max(64) });

/** A followed handle's collected tweets, a page at a time, searched, filtered and sorted. */
export const tweetsRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  app.addHook('preHandler', requireAuth);

  app.get(
    '/handles/:handle/tweets',
    {
      schema: {
        tags: ['handles'],
        params: handleParamSchema,
        querystring: tweetPageQuerySchema,
        response: { 200: successEnvelope(tweetPageResponseSchema), ...errors },
      },
      // A bad page, limit, q, type or sort says which and what is allowed.
      config: { useIssueMessage: true },
    },
    async (request) => {
      const { user } = currentAuth(request);
      const handle = await readableHandle(db, user, request.params.handle);
      return ok(await tweetPage(db, handle, request.query, user.id));
    },
  );
};
