import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ADMIN_MESSAGES,
  adminClearDataParamSchema,
  adminHandleIdParamSchema,
  adminProcessResponseSchema,
  adminProcessesResponseSchema,
  challengeStatusResponseSchema,
  processStartRequestSchema,
  processStopRequestSchema,
  submitChallengeCodeRequestSchema,
  successEnvelope,
} from '@perch/shared';
import { errorResponses, ok } from '../../lib/reply.js';
import { requireSuperAdmin } from '../auth/auth.plugin.js';
import { logAdminAction } from '../security/admin-events.js';
import {
  challengeStatus,
  clearHandleData,
  deleteHandleEverywhere,
  listProcesses,
  startProcess,
  stopProcess,
  submitCode,
} from './admin-collector.service.js';
import type { AdminDeps } from './admin-deps.js';

const errors = errorResponses(400, 401, 403, 404, 409, 422);
/** A 400 from validation says what was missing: the spec's "... is required ..." texts. */
const config = { useIssueMessage: true };
const tags = ['admin'];
const processAnswer = successEnvelope(adminProcessResponseSchema);
const deletedHandleSchema = z.object({ id: z.number().int(), handle: z.string() });

/**
 * The collector side of /admin: processes with stop/start, global delete, data clean-up and the
 * collector account's verification challenge. Registered inside `adminRoutes`
 * (admins only); stop/start, clean-up and the challenge need a super admin
 * (docs/spec-notes.md, Roles). Every change is recorded in the security log.
 */
export const adminCollectorRoutes: FastifyPluginAsyncZod<AdminDeps> = async (app, deps) => {
  app.get(
    '/admin/processes',
    {
      schema: {
        tags,
        response: { 200: successEnvelope(adminProcessesResponseSchema), ...errors },
      },
    },
    async () => ok(await listProcesses(deps)),
  );

  app.post(
    '/admin/processes/stop',
    {
      config,
      preValidation: requireSuperAdmin,
      schema: { tags, body: processStopRequestSchema, response: { 200: processAnswer, ...errors } },
    },
    async (request) => {
      const stopped = await stopProcess(deps, request.body.handle_id);
      await logAdminAction(deps.db, request, {
        type: 'collector_stopped',
        severity: 'medium',
        description: `Stopped collection of @${stopped.handle}`,
        metadata: { handle_id: stopped.handle_id, handle: stopped.handle },
      });
      return ok({ process: stopped }, ADMIN_MESSAGES.processStopped(stopped.handle));
    },
  );

  app.post(
    '/admin/processes/start',
    {
      config,
      preValidation: requireSuperAdmin,
      schema: {
        tags,
        body: processStartRequestSchema,
        response: { 200: processAnswer, ...errors },
      },
    },
    async (request) => {
      const resumed = await startProcess(deps, request.body.handle_id);
      await logAdminAction(deps.db, request, {
        type: 'collector_started',
        severity: 'medium',
        description: `Resumed collection of @${resumed.handle}`,
        metadata: { handle_id: resumed.handle_id, handle: resumed.handle },
      });
      return ok({ process: resumed }, ADMIN_MESSAGES.processStarted(resumed.handle));
    },
  );

  app.delete(
    '/admin/handles/:id',
    {
      config,
      schema: {
        tags,
        params: adminHandleIdParamSchema,
        response: { 200: successEnvelope(deletedHandleSchema), ...errors },
      },
    },
    async (request) => {
      const handle = await deleteHandleEverywhere(deps, request.params.id);
      await logAdminAction(deps.db, request, {
        type: 'admin_handle_deleted',
        severity: 'high',
        description: `Deleted @${handle.username} for every user, with its data`,
        metadata: { handle_id: handle.id, handle: handle.username },
      });
      return ok(
        { id: handle.id, handle: handle.username },
        ADMIN_MESSAGES.handleDeleted(handle.username),
      );
    },
  );

  app.delete(
    '/admin/handles/:id/data',
    {
      config,
      preValidation: requireSuperAdmin,
      schema: {
        tags,
        params: adminClearDataParamSchema,
        response: { 200: processAnswer, ...errors },
      },
    },
    async (request) => {
      const cleared = await clearHandleData(deps, request.params.id);
      await logAdminAction(deps.db, request, {
        type: 'admin_handle_data_cleared',
        severity: 'high',
        description: `Cleared the collected data of @${cleared.handle}`,
        metadata: { handle_id: cleared.handle_id, handle: cleared.handle },
      });
      return ok({ process: cleared }, ADMIN_MESSAGES.handleDataCleared(cleared.handle));
    },
  );

  app.get(
    '/admin/twitter-challenge-status',
    {
      preValidation: requireSuperAdmin,
      schema: {
        tags,
        response: { 200: successEnvelope(challengeStatusResponseSchema), ...errors },
      },
    },
    async () => ok(await challengeStatus(deps)),
  );

  app.post(
    '/admin/submit-twitter-challenge-code',
    {
      config,
      preValidation: requireSuperAdmin,
      schema: {
        tags,
        body: submitChallengeCodeRequestSchema,
        response: { 200: successEnvelope(challengeStatusResponseSchema), ...errors },
      },
    },
    async (request) => {
      const { status, message } = await submitCode(
        deps,
        request.body.verification_code,
        request.body.account_id,
      );
      // The code itself is never logged.
      await logAdminAction(deps.db, request, {
        type: 'challenge_code_submitted',
        severity: 'medium',
        description: 'Submitted a verification code for the collector account',
      });
      return ok(status, message);
    },
  );
};
