import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  MESSAGES,
  errorEnvelopeSchema,
  healthResponseSchema,
  heartbeatRequestSchema,
  heartbeatResponseSchema,
  publicConfigSchema,
  successEnvelope,
} from '@perch/shared';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { AppError } from '../../lib/errors.js';
import { errorResponses, ok } from '../../lib/reply.js';
import { currentAuth, requireAuth } from '../auth/auth.plugin.js';
import { recordHeartbeat } from '../auth/sessions.service.js';
import { checkDatabase } from './system.service.js';

const startedAt = Date.now();

/**
 * Public config, health (also answers HEAD) and the client heartbeat. A worker process
 * (`healthOnly`) serves health alone.
 */
export const systemRoutes: FastifyPluginAsyncZod<{
  config: Config;
  db: Db;
  version: string;
  healthOnly?: boolean;
}> = async (app, { config, db, version, healthOnly = false }) => {
  if (!healthOnly) registerConfigRoute(app, config, version);
  registerHealthRoute(app, db, version);
  if (!healthOnly) registerHeartbeatRoute(app, db);
};

type SystemApp = Parameters<FastifyPluginAsyncZod>[0];

function registerConfigRoute(app: SystemApp, config: Config, version: string): void {
  app.get(
    '/config',
    { schema: { tags: ['system'], response: { 200: successEnvelope(publicConfigSchema) } } },
    async () =>
      ok({ supportEmail: config.SUPPORT_EMAIL, tweetSource: config.TWEET_SOURCE, version }),
  );
}

function registerHealthRoute(app: SystemApp, db: Db, version: string): void {
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
        await checkDatabase(db);
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
      return ok(data);
    },
  );
}

function registerHeartbeatRoute(app: SystemApp, db: Db): void {
  // navigator.sendBeacon with a string body sends text/plain (a CORS-safelisted type); read it
  // as JSON like application/json. Encapsulated: only the routes of this plugin see this parser.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body.trim() : body.toString('utf8').trim();
    if (text === '') {
      done(null, null);
      return;
    }
    try {
      done(null, JSON.parse(text) as unknown);
    } catch {
      done(new AppError(400, 'INVALID_JSON', MESSAGES.malformedJson), undefined);
    }
  });

  app.post(
    '/session/heartbeat',
    {
      // Also sent with navigator.sendBeacon on unload, which cannot carry the CSRF header. It only
      // records that the session is alive, and SameSite=Lax keeps other sites' posts cookie-less.
      // An open tab beats whether or not anybody uses it: never the person's activity.
      config: { csrfExempt: true, background: true },
      preHandler: requireAuth,
      schema: {
        tags: ['system'],
        // A POST without a body reaches the schema as null: the body is optional.
        body: heartbeatRequestSchema.nullable(),
        response: {
          200: successEnvelope(heartbeatResponseSchema),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      // The session was seen now (admin users list); its idle timeout stays where it is.
      await recordHeartbeat(db, currentAuth(request), request.now);
      return ok({ received: true as const, serverTime: new Date().toISOString() });
    },
  );
}
