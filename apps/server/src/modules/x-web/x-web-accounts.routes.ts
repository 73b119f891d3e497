import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  X_WEB_MESSAGES,
  addXWebAccountRequestSchema,
  successEnvelope,
  xWebAccountIdParamSchema,
  xWebAccountResponseSchema,
  xWebAccountsResponseSchema,
} from '@perch/shared';
import { requireAdmin, requireSuperAdmin } from '../auth/auth.plugin.js';
import { logAdminAction } from '../security/admin-events.js';
import type { Config } from '../../config.js';
import { errorResponses, ok } from '../../lib/reply.js';
import type { Db } from '../../db/index.js';
import { addAccount, listAccounts, removeAccount, resetAccount } from './x-web-accounts.service.js';

const errors = errorResponses(400, 401, 403, 404, 409);
/** Changes need a super admin; a refused body answers with the schema's own message. */
const superAdminOnly = { config: { useIssueMessage: true }, preValidation: requireSuperAdmin };
const tags = ['admin'];
const removedSchema = z.object({ id: z.number().int(), username: z.string() });

/** What the x-web admin routes need (mounted under /api/v1 beside the /admin routes). */
interface XWebRoutesDeps {
  config: Config;
  db: Db;
}

/**
 * The x-web source's collector accounts (inside `adminRoutes`: admins only). Admins see the
 * pool; adding, removing and resetting accounts (their secrets) needs a super admin, like the
 * verification challenge. Every change is in the security log; secrets never are.
 */
export const xWebAccountsRoutes: FastifyPluginAsyncZod<XWebRoutesDeps> = async (app, deps) => {
  app.addHook('preValidation', requireAdmin);
  const service = { config: deps.config, db: deps.db.db };

  app.get(
    '/admin/x-web-accounts',
    { schema: { tags, response: { 200: successEnvelope(xWebAccountsResponseSchema), ...errors } } },
    async () => ok(await listAccounts(service)),
  );

  app.post(
    '/admin/x-web-accounts',
    {
      ...superAdminOnly,
      schema: {
        tags,
        body: addXWebAccountRequestSchema,
        response: { 201: successEnvelope(xWebAccountResponseSchema), ...errors },
      },
    },
    async (request, reply) => {
      const account = await addAccount(service, request.body);
      await logAdminAction(deps.db, request, {
        type: 'x_web_account_added',
        severity: 'high',
        description: `Added @${account.username} to the X web collector pool (${account.auth_method})`,
        metadata: { account_id: account.id, username: account.username },
      });
      reply.code(201);
      return ok({ account }, X_WEB_MESSAGES.accountAdded(account.username));
    },
  );

  app.delete(
    '/admin/x-web-accounts/:id',
    {
      ...superAdminOnly,
      schema: {
        tags,
        params: xWebAccountIdParamSchema,
        response: { 200: successEnvelope(removedSchema), ...errors },
      },
    },
    async (request) => {
      const row = await removeAccount(service, request.params.id);
      await logAdminAction(deps.db, request, {
        type: 'x_web_account_removed',
        severity: 'high',
        description: `Removed @${row.username} from the X web collector pool`,
        metadata: { account_id: row.id, username: row.username },
      });
      return ok(
        { id: row.id, username: row.username },
        X_WEB_MESSAGES.accountRemoved(row.username),
      );
    },
  );

  app.post(
    '/admin/x-web-accounts/:id/reset',
    {
      ...superAdminOnly,
      schema: {
        tags,
        params: xWebAccountIdParamSchema,
        response: { 200: successEnvelope(xWebAccountResponseSchema), ...errors },
      },
    },
    async (request) => {
      const account = await resetAccount(service, request.params.id);
      await logAdminAction(deps.db, request, {
        type: 'x_web_account_reset',
        severity: 'medium',
        description: `Put @${account.username} back in the X web collector pool`,
        metadata: { account_id: account.id, username: account.username },
      });
      return ok({ account }, X_WEB_MESSAGES.accountReset(account.username));
    },
  );
};
