import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  SECURITY_MESSAGES,
  currentSessionResponseSchema,
  incidentRequestSchema,
  incidentResponseSchema,
  loginHistoryQuerySchema,
  loginHistoryResponseSchema,
  revokeOthersResponseSchema,
  securityEventsQuerySchema,
  securityEventsResponseSchema,
  securityExportQuerySchema,
  securityExportSchema,
  securitySessionsResponseSchema,
  securitySettingsSchema,
  securityStatsQuerySchema,
  securityStatsSchema,
  sessionIdParamSchema,
  successEnvelope,
  suspiciousActivityResponseSchema,
  updateSecuritySettingsSchema,
} from '@perch/shared';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { errorResponses, ok } from '../../lib/reply.js';
import { currentAuth, requireAuth } from '../auth/auth.plugin.js';
import { securityEventsCsv, securityExportFileName } from './security-export.js';
import {
  currentSession,
  listSessions,
  revokeOtherSessions,
  revokeSessionById,
} from './security-sessions.service.js';
import {
  exportEvents,
  getSecuritySettings,
  listEvents,
  loginHistory,
  recordOwnerId,
  reportIncident,
  securityStats,
  updateSecuritySettings,
  type Client,
  type Transport,
} from './security.service.js';
import { suspiciousActivity } from './suspicious-activity.js';

export interface SecurityDeps {
  config: Config;
  db: Db;
}

const errors = errorResponses(400, 401, 403, 404);
/** A 400 from validation says what was wrong: the contract's text for the field. */
const config = { useIssueMessage: true };
const tags = ['security'];
/** The export's body: the JSON object, or CSV text (sent as is, past the serializer). */
const exportFile = z.union([securityExportSchema, z.string().describe('CSV, format=csv')]);

/** Host names that reach this machine only, where plain HTTP is not exposed to a network. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** HTTPS as Fastify sees it (X-Forwarded-Proto counts when TRUST_PROXY is on), and loopback. */
function transportOf(request: FastifyRequest): Transport {
  return {
    secureTransport: request.protocol === 'https',
    loopback: LOOPBACK_HOSTS.has(request.hostname.toLowerCase()),
  };
}

function clientOf(request: FastifyRequest): Client {
  return { ip: request.ip, userAgent: request.headers['user-agent'] ?? null };
}

/**
 * /security/*: the signed-in user's security record. Everyone reads their own;
 * a super admin may read another account's events, stats, login history and export with
 * `userId`. Two-factor sign-in lives in two-factor.routes.ts.
 */
export const securityRoutes: FastifyPluginAsyncZod<SecurityDeps> = async (app, { db }) => {
  // Before validation: a signed-out caller gets 401 whatever the query holds.
  app.addHook('preValidation', requireAuth);

  app.get(
    '/security/events',
    {
      config,
      schema: {
        tags,
        querystring: securityEventsQuerySchema,
        response: { 200: successEnvelope(securityEventsResponseSchema), ...errors },
      },
    },
    async (request) => {
      const { userId, ...query } = request.query;
      const ownerId = recordOwnerId(currentAuth(request).user, userId);
      return ok(await listEvents(db, ownerId, query));
    },
  );

  app.get(
    '/security/stats',
    {
      config,
      schema: {
        tags,
        querystring: securityStatsQuerySchema,
        response: { 200: successEnvelope(securityStatsSchema), ...errors },
      },
    },
    async (request) => {
      const ownerId = recordOwnerId(currentAuth(request).user, request.query.userId);
      return ok(await securityStats(db, ownerId, request.query.timeRange, transportOf(request)));
    },
  );

  app.get(
    '/security/sessions',
    {
      schema: {
        tags,
        response: { 200: successEnvelope(securitySessionsResponseSchema), ...errors },
      },
    },
    async (request) => ok({ sessions: await listSessions(db, currentAuth(request)) }),
  );

  app.get(
    '/security/sessions/current',
    {
      schema: {
        tags,
        response: { 200: successEnvelope(currentSessionResponseSchema), ...errors },
      },
    },
    async (request) => ok({ session: await currentSession(db, currentAuth(request)) }),
  );

  app.delete(
    '/security/sessions/:id',
    {
      config,
      schema: {
        tags,
        params: sessionIdParamSchema,
        response: { 200: successEnvelope(revokeOthersResponseSchema), ...errors },
      },
    },
    async (request, reply) => {
      const { current } = await revokeSessionById(
        db,
        currentAuth(request),
        request.params.id,
        clientOf(request),
        app.sessionCache,
      );
      // Ending the session this request came with signs this browser out.
      if (current) reply.clearSessionCookie();
      return ok({ revoked: 1 }, SECURITY_MESSAGES.sessionRevoked);
    },
  );

  app.post(
    '/security/sessions/revoke-others',
    {
      schema: {
        tags,
        response: { 200: successEnvelope(revokeOthersResponseSchema), ...errors },
      },
    },
    async (request) => {
      const revoked = await revokeOtherSessions(
        db,
        currentAuth(request),
        clientOf(request),
        app.sessionCache,
      );
      return ok({ revoked }, SECURITY_MESSAGES.otherSessionsRevoked(revoked));
    },
  );

  app.get(
    '/security/settings',
    { schema: { tags, response: { 200: successEnvelope(securitySettingsSchema), ...errors } } },
    async (request) => ok(await getSecuritySettings(db, currentAuth(request).user.id)),
  );

  app.put(
    '/security/settings',
    {
      config,
      schema: {
        tags,
        body: updateSecuritySettingsSchema,
        response: { 200: successEnvelope(securitySettingsSchema), ...errors },
      },
    },
    async (request) => {
      const userId = currentAuth(request).user.id;
      const settings = await updateSecuritySettings(db, userId, request.body, clientOf(request));
      return ok(settings, SECURITY_MESSAGES.settingsSaved);
    },
  );

  app.post(
    '/security/incidents',
    {
      config,
      schema: {
        tags,
        body: incidentRequestSchema,
        response: { 201: successEnvelope(incidentResponseSchema), ...errors },
      },
    },
    async (request, reply) => {
      const id = await reportIncident(
        db,
        currentAuth(request).user.id,
        request.body,
        clientOf(request),
      );
      reply.code(201);
      return ok({ id }, SECURITY_MESSAGES.incidentReported);
    },
  );

  app.get(
    '/security/login-history',
    {
      config,
      schema: {
        tags,
        querystring: loginHistoryQuerySchema,
        response: { 200: successEnvelope(loginHistoryResponseSchema), ...errors },
      },
    },
    async (request) => {
      const ownerId = recordOwnerId(currentAuth(request).user, request.query.userId);
      return ok({ entries: await loginHistory(db, ownerId, request.query.limit) });
    },
  );

  app.get(
    '/security/suspicious-activity',
    {
      schema: {
        tags,
        response: { 200: successEnvelope(suspiciousActivityResponseSchema), ...errors },
      },
    },
    async (request) =>
      ok(await suspiciousActivity(db, currentAuth(request).user.id, transportOf(request))),
  );

  /**
   * A file, not an envelope: JSON is the export object itself (securityExportSchema), CSV one
   * row per event. Errors still answer with the failure envelope.
   */
  app.get(
    '/security/export',
    {
      config,
      schema: {
        tags,
        querystring: securityExportQuerySchema,
        response: { 200: exportFile, ...errors },
      },
    },
    async (request, reply) => {
      const ownerId = recordOwnerId(currentAuth(request).user, request.query.userId);
      const exported = await exportEvents(db, ownerId);
      const { format } = request.query;
      const fileName = securityExportFileName(exported.exportedAt, format);
      reply
        .header('content-disposition', `attachment; filename="${fileName}"`)
        .header('cache-control', 'no-store');
      if (format === 'json') return exported;
      // A string with its own content type is sent as is, past the JSON serializer.
      reply.type('text/csv; charset=utf-8');
      return securityEventsCsv(exported.events);
    },
  );
};
