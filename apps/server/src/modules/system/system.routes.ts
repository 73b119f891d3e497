import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import {
  errorEnvelopeSchema,
  healthResponseSchema,
  heartbeatRequestSchema,
  heartbeatResponseSchema,
  publicConfigSchema,
  successEnvelope,
} from '@perch/shared';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { requireAuth } from '../../plugins/auth.js';

const startedAt = Date.now();

/** Public config, health (also answers HEAD) and the client heartbeat (doc 2 §7.8). */
export const systemRoutes: FastifyPluginAsyncZod<{
  config: Config;
  db: Db;
  version: string;
}> = async (app, { config, db, version }) => {
  app.get(
    '/config',
    { schema: { tags: ['system'], response: { 200: successEnvelope(publicConfigSchema) } } },
    async () => ({
      success: true as const,
      data: { supportEmail: config.SUPPORT_EMAIL, tweetSource: config.TWEET_SOURCE, version },
    }),
  );

  app.get(
    '/health',
    {
      schema: {
        tags: ['system'],
        response: {
          200: successEnvelope(healthResponseSchema),
          503: successEnvelope(healthResponseSchema).or(errorEnvelopeSchema),
        },
      },
    },
    async (request, reply) => {
      let database: 'ok' | 'error' = 'ok';
      try {
        await sql`select 1`.execute(db.db);
      } catch (error) {
        request.log.error({ err: error }, 'health check: database unreachable');
        database = 'error';
      }
      reply.header('cache-control', 'no-store');
      const data = {
        status: database === 'ok' ? ('ok' as const) : ('degraded' as const),
        database,
        uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
        version,
        timestamp: new Date().toISOString(),
      };
      if (database !== 'ok') reply.code(503);
      return { success: true as const, data };
    },
  );

  app.post(
    '/session/heartbeat',
    {
      // Also sent with navigator.sendBeacon on unload, which cannot carry the CSRF header. It only
      // records that the session is alive, and SameSite=Lax keeps other sites' posts cookie-less.
      config: { csrfExempt: true },
      preHandler: requireAuth,
      schema: {
        tags: ['system'],
        // A POST without a body reaches the schema as null: the body is optional.
        body: heartbeatRequestSchema.nullable(),
        response: {
          200: successEnvelope(heartbeatResponseSchema),
          400: errorEnvelopeSchema,
          401: errorEnvelopeSchema,
        },
      },
    },
    async () => ({
      success: true as const,
      data: { received: true as const, serverTime: new Date().toISOString() },
    }),
  );
};
