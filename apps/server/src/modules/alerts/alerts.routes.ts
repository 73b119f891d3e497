import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  SECURITY_MESSAGES,
  alertFiringListSchema,
  alertFiringsQuerySchema,
  alertRuleListSchema,
  alertRuleResponseSchema,
  alertsExportSchema,
  deletedResponseSchema,
  createAlertRuleRequestSchema,
  idParamSchema,
  successEnvelope,
  updateAlertRuleRequestSchema,
} from '@perch/shared';
import type { Db } from '../../db/index.js';
import { errorResponses, ok } from '../../lib/reply.js';
import { currentAuth, requireAuth } from '../auth/auth.plugin.js';
import { ALERT_EXPORT_FORMATS, alertFiringsCsv, alertsExportFileName } from './alerts-export.js';
import {
  createAlertRule,
  deleteAlertRule,
  exportAlerts,
  getAlertFirings,
  getAlertRules,
  updateAlertRule,
} from './alerts.service.js';

const errors = errorResponses(400, 401, 403, 404);
const tags = ['alerts'];
/** A 400 from validation says what was wrong: the contract's text for the field. */
const config = { useIssueMessage: true };
const exportQuerySchema = z.object({
  format: z.enum(ALERT_EXPORT_FORMATS, { error: SECURITY_MESSAGES.invalidFormat }).default('json'),
});
/** The export's body: the JSON object, or CSV text (sent as is, past the serializer). */
const exportFile = z.union([alertsExportSchema, z.string().describe('CSV, format=csv')]);

/**
 * /alerts: the signed-in user's alert rules, what fired, and the export of both. Another user's
 * rule is not found, never forbidden, so ids tell nothing about who has what.
 */
export const alertsRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  // Before validation: a signed-out caller gets 401 whatever the body holds.
  app.addHook('preValidation', requireAuth);

  app.get(
    '/alerts',
    {
      schema: {
        tags,
        description: 'The rules, oldest first, with the most a user may keep.',
        response: { 200: successEnvelope(alertRuleListSchema), ...errors },
      },
    },
    async (request) => ok(await getAlertRules(db, currentAuth(request).user)),
  );

  app.post(
    '/alerts',
    {
      config,
      schema: {
        tags,
        description: 'A new rule of a followed handle (404 when the handle is not followed).',
        body: createAlertRuleRequestSchema,
        response: {
          201: successEnvelope(alertRuleResponseSchema),
          ...errors,
          ...errorResponses(409),
        },
      },
    },
    async (request, reply) => {
      const rule = await createAlertRule(db, currentAuth(request).user, request.body);
      reply.code(201);
      return ok({ rule });
    },
  );

  app.patch(
    '/alerts/:id',
    {
      config,
      schema: {
        tags,
        description:
          'Changes the name, the switch or what the rule watches (a new kind starts afresh).',
        params: idParamSchema,
        body: updateAlertRuleRequestSchema,
        response: { 200: successEnvelope(alertRuleResponseSchema), ...errors },
      },
    },
    async (request) =>
      ok({
        rule: await updateAlertRule(db, currentAuth(request).user, request.params.id, request.body),
      }),
  );

  app.delete(
    '/alerts/:id',
    {
      schema: {
        tags,
        description: 'Deletes a rule with its firings; what was still to be sent is cancelled.',
        params: idParamSchema,
        response: { 200: successEnvelope(deletedResponseSchema), ...errors },
      },
    },
    async (request) => {
      await deleteAlertRule(db, currentAuth(request).user, request.params.id);
      return ok({ deleted: true as const });
    },
  );

  app.get(
    '/alerts/firings',
    {
      config,
      schema: {
        tags,
        description:
          'What fired, newest first, of one handle or rule when asked; pass `next_before` as ' +
          '`before` for the next page.',
        querystring: alertFiringsQuerySchema,
        response: { 200: successEnvelope(alertFiringListSchema), ...errors },
      },
    },
    async (request) => ok(await getAlertFirings(db, currentAuth(request).user, request.query)),
  );

  /**
   * A file, not an envelope: JSON is the export object itself (alertsExportSchema), CSV one row
   * per firing. Errors still answer with the failure envelope.
   */
  app.get(
    '/alerts/export',
    {
      config,
      schema: {
        tags,
        querystring: exportQuerySchema,
        response: { 200: exportFile, ...errors },
      },
    },
    async (request, reply) => {
      const exported = await exportAlerts(db, currentAuth(request).user);
      const { format } = request.query;
      const fileName = alertsExportFileName(exported.exported_at, format);
      reply
        .header('content-disposition', `attachment; filename="${fileName}"`)
        .header('cache-control', 'no-store');
      if (format === 'json') return exported;
      // A string with its own content type is sent as is, past the JSON serializer.
      reply.type('text/csv; charset=utf-8');
      return alertFiringsCsv(exported.firings);
    },
  );
};
