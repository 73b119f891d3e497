import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  addHandleRequestSchema,
  backfillProgressSchema,
  handleListResponseSchema,
  handleInputSchema,
  handleResponseSchema,
  idParamSchema,
  successEnvelope,
} from '@perch/shared';
import type { Db } from '../../db/index.js';
import { badRequest } from '../../lib/errors.js';
import { errorResponses, ok } from '../../lib/reply.js';
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

const errors = errorResponses(400, 401, 403, 404);
const handleParamSchema = z.object({ handle: z.string().max(64) });

/** Followed handles and their backfill progress (their tweets: tweets.routes.ts). */
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
          ...errorResponses(409),
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
      return ok({ handle }, `@${handle.handle} added successfully!`);
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
    async (request) => ok({ handles: await listHandles(db, currentAuth(request).user) }),
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
      return ok({ id: request.params.id }, 'Handle removed');
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
          ...errorResponses(409),
        },
      },
    },
    async (request) => {
      const handle = await retryHandle(db, collector, currentAuth(request).user, request.params.id);
      return ok(
        await readProgress(db, handle),
        `Collection of @${handle.username} will be tried again`,
      );
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
      return ok(await readProgress(db, handle));
    },
  );
};
