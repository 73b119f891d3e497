import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  addHandleRequestSchema,
  backfillProgressSchema,
  errorEnvelopeSchema,
  handleListResponseSchema,
  handleInputSchema,
  handleResponseSchema,
  idParamSchema,
  successEnvelope,
  tweetPageQuerySchema,
  tweetPageResponseSchema,
} from '@perch/shared';
import type { Db } from '../../db/index.js';
import { badRequest } from '../../lib/errors.js';
import { currentAuth, requireAuth } from '../auth/auth.plugin.js';
import {
  addHandle,
  listHandles,
  readProgress,
  readableHandle,
  removeHandle,
  retryHandle,
  INVALID_HANDLE,
  type BackfillRequester,
} from './handles.service.js';
import { tweetPage } from '../tweets/tweets.service.js';

const errors = {
  400: errorEnvelopeSchema,
  401: errorEnvelopeSchema,
  403: errorEnvelopeSchema,
  404: errorEnvelopeSchema,
};
const handleParamSchema = z.object({ handle: z.string().max(64) });

/** Followed handles, their tweets and backfill progress. */
export const handlesRoutes: FastifyPluginAsyncZod<{
  db: Db;
  collector: BackfillRequester | undefined;
}> = async (app, { db, collector }) => {
  app.addHook('preHandler', requireAuth);

  app.post(
    '/handles',
    {
      // The handle gets the spec's own message; any other bad field the generic one.
      preValidation: async (request) => {
        const body: unknown = request.body;
        const username = typeof body === 'object' && body !== null && 'username' in body;
        if (!username || !handleInputSchema.safeParse(body.username).success) {
          throw badRequest(INVALID_HANDLE);
        }
      },
      schema: {
        tags: ['handles'],
        body: addHandleRequestSchema,
        response: {
          201: successEnvelope(handleResponseSchema),
          ...errors,
          409: errorEnvelopeSchema,
        },
      },
    },
    async (request, reply) => {
      const { user } = currentAuth(request);
      const handle = await addHandle(db, collector, user, {
        username: request.body.username,
        backfillDays: request.body.backfill_days,
      });
      reply.code(201);
      return {
        success: true as const,
        message: `@${handle.handle} added successfully!`,
        data: { handle },
      };
    },
  );

  app.get(
    '/handles',
    {
      schema: {
        tags: ['handles'],
        response: { 200: successEnvelope(handleListResponseSchema), ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      data: { handles: await listHandles(db, currentAuth(request).user) },
    }),
  );

  app.delete(
    '/handles/:id',
    {
      schema: {
        tags: ['handles'],
        params: idParamSchema,
        response: { 200: successEnvelope(z.object({ id: z.number().int() })), ...errors },
      },
    },
    async (request) => {
      await removeHandle(db, currentAuth(request).user, request.params.id);
      return {
        success: true as const,
        message: 'Handle removed',
        data: { id: request.params.id },
      };
    },
  );

  app.post(
    '/handles/:id/retry',
    {
      schema: {
        tags: ['handles'],
        params: idParamSchema,
        response: {
          200: successEnvelope(backfillProgressSchema),
          ...errors,
          409: errorEnvelopeSchema,
        },
      },
    },
    async (request) => {
      const handle = await retryHandle(db, collector, currentAuth(request).user, request.params.id);
      return {
        success: true as const,
        message: `Collection of @${handle.username} will be tried again`,
        data: await readProgress(db, handle),
      };
    },
  );

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
      const handle = await readableHandle(db, currentAuth(request).user, request.params.handle);
      return { success: true as const, data: await tweetPage(db, handle, request.query) };
    },
  );

  app.get(
    '/handles/:handle/backfill-progress',
    {
      schema: {
        tags: ['handles'],
        params: handleParamSchema,
        response: { 200: successEnvelope(backfillProgressSchema), ...errors },
      },
    },
    async (request) => {
      const handle = await readableHandle(db, currentAuth(request).user, request.params.handle);
      return { success: true as const, data: await readProgress(db, handle) };
    },
  );
};
