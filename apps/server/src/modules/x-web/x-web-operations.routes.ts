import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  X_WEB_MESSAGES,
  pinXWebOperationRequestSchema,
  successEnvelope,
  xWebOperationNameParamSchema,
  xWebOperationsResponseSchema,
} from '@perch/shared';
import { currentAuth, requireAdmin, requireSuperAdmin } from '../auth/auth.plugin.js';
import { logAdminAction } from '../security/admin-events.js';
import type { Config } from '../../config.js';
import { errorResponses, ok } from '../../lib/reply.js';
import type { Db } from '../../db/index.js';
import {
  createOperationsRegistry,
  listOperations,
  pinOperation,
  refreshOperations,
  unpinOperation,
} from './x-web-operations.service.js';

const errors = errorResponses(400, 401, 403, 404, 409, 429, 502);
/** Changes need a super admin; a refused body answers with the schema's own message. */
const superAdminOnly = { config: { useIssueMessage: true }, preValidation: requireSuperAdmin };
const tags = ['admin'];
const answer = successEnvelope(xWebOperationsResponseSchema);

/** What the x-web admin routes need (mounted under /api/v1 beside the /admin routes). */
interface XWebRoutesDeps {
  config: Config;
  db: Db;
}

/**
 * The x-web source's GraphQL operations (inside `adminRoutes`: admins only). Admins see where
 * each operation's values come from; pinning, unpinning and reading x.com's client now need a
 * super admin. Every change is in the security log.
 */
export const xWebOperationsRoutes: FastifyPluginAsyncZod<XWebRoutesDeps> = async (app, deps) => {
  app.addHook('preValidation', requireAdmin);
  // One registry per app: forced reads from the Admin page share one fetch.
  const registry = createOperationsRegistry({
    config: deps.config,
    db: deps.db.db,
    log: app.log,
  });

  app.get(
    '/admin/x-web-operations',
    { schema: { tags, response: { 200: answer, ...errors } } },
    async () => ok(await listOperations(registry)),
  );

  app.put(
    '/admin/x-web-operations/:name',
    {
      ...superAdminOnly,
      schema: {
        tags,
        params: xWebOperationNameParamSchema,
        body: pinXWebOperationRequestSchema,
        response: { 200: answer, ...errors },
      },
    },
    async (request) => {
      const { name } = request.params;
      const by = currentAuth(request).user.username;
      const operations = await pinOperation(registry, name, request.body, by);
      await logAdminAction(deps.db, request, {
        type: 'x_web_operation_pinned',
        severity: 'high',
        description: `Pinned the X web operation ${name} to query id ${request.body.query_id}`,
        metadata: {
          operation: name,
          query_id: request.body.query_id,
          features: request.body.features ? Object.keys(request.body.features).length : null,
          field_toggles: request.body.field_toggles
            ? Object.keys(request.body.field_toggles).length
            : null,
        },
      });
      return ok(operations, X_WEB_MESSAGES.operationPinned(name));
    },
  );

  app.delete(
    '/admin/x-web-operations/:name',
    {
      ...superAdminOnly,
      schema: {
        tags,
        params: xWebOperationNameParamSchema,
        response: { 200: answer, ...errors },
      },
    },
    async (request) => {
      const { name } = request.params;
      const operations = await unpinOperation(registry, name);
      await logAdminAction(deps.db, request, {
        type: 'x_web_operation_unpinned',
        severity: 'medium',
        description: `Unpinned the X web operation ${name}: x.com's client decides again`,
        metadata: { operation: name },
      });
      return ok(operations, X_WEB_MESSAGES.operationUnpinned(name));
    },
  );

  app.post(
    '/admin/x-web-operations/refresh',
    {
      ...superAdminOnly,
      schema: { tags, response: { 200: answer, ...errors } },
    },
    async (request) => {
      const by = currentAuth(request).user.username;
      const { result, operations } = await refreshOperations(
        deps.config,
        registry,
        `asked by ${by} on the Admin page`,
      );
      await logAdminAction(deps.db, request, {
        type: 'x_web_operations_refreshed',
        severity: 'low',
        description:
          result.changed.length === 0
            ? "Read x.com's client for the X web operations: none changed"
            : `Read x.com's client for the X web operations: ${result.changed.join(', ')} changed`,
        metadata: { changed: result.changed, missing: result.missing },
      });
      return ok(operations, X_WEB_MESSAGES.operationsRefreshed(result.changed.length));
    },
  );
};
