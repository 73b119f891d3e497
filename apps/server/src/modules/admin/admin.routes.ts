import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ADMIN_MESSAGES,
  adminCreatedInvitationResponseSchema,
  adminHandlesResponseSchema,
  adminInvitationIdParamSchema,
  adminInvitationResponseSchema,
  adminInvitationsResponseSchema,
  adminRoleParamSchema,
  adminUserHandleParamSchema,
  adminUserHandlesResponseSchema,
  adminUserIdParamSchema,
  adminUserResponseSchema,
  adminUsersResponseSchema,
  changeRoleRequestSchema,
  createInvitationRequestSchema,
  roleLabel,
  successEnvelope,
} from '@perch/shared';
import { errorResponses, ok } from '../../lib/reply.js';
import { currentAuth, requireAdmin, requireSuperAdmin } from '../auth/auth.plugin.js';
import { clientOf } from '../auth/auth-events.js';
import { rotateSession } from '../auth/sessions.service.js';
import { xUsageRoutes } from '../x-usage/x-usage.routes.js';
import { adminCollectorRoutes } from './admin-collector.routes.js';
import type { AdminDeps } from './admin-deps.js';
import { logAdminAction } from '../security/admin-events.js';
import {
  changeRole,
  createInvitationAs,
  listInvitationsFor,
  listSystemHandles,
  listUsersForAdmin,
  removeHandleFromUser,
  revokeInvitationAs,
  userHandlesForAdmin,
} from './admin.service.js';

const errors = errorResponses(400, 401, 403, 404);
/** A 400 from validation says what was wrong: the spec's text for a missing id. */
const config = { useIssueMessage: true };
const tags = ['admin'];

/**
 * /admin/*: every route needs an admin (401 signed out, 403 for a plain user, before
 * any validation); super-admin routes add `requireSuperAdmin` (docs/spec-notes.md, Roles).
 * Here: users, their handles, the handles of the system, roles and invitations; the collector
 * side lives in `adminCollectorRoutes`, the X API's cost in `xUsageRoutes`.
 */
export const adminRoutes: FastifyPluginAsyncZod<AdminDeps> = async (app, deps) => {
  const { db } = deps;
  app.addHook('preValidation', requireAdmin);

  app.get(
    '/admin/users',
    { schema: { tags, response: { 200: successEnvelope(adminUsersResponseSchema), ...errors } } },
    async () => ok({ users: await listUsersForAdmin(db) }),
  );

  app.get(
    '/admin/users/:id/handles',
    {
      config,
      schema: {
        tags,
        params: adminUserIdParamSchema,
        response: { 200: successEnvelope(adminUserHandlesResponseSchema), ...errors },
      },
    },
    async (request) =>
      ok({
        user_id: request.params.id,
        handles: await userHandlesForAdmin(db, request.params.id),
      }),
  );

  app.delete(
    '/admin/users/:id/handles/:handleId',
    {
      config,
      schema: {
        tags,
        params: adminUserHandleParamSchema,
        response: { 200: successEnvelope(adminUserHandlesResponseSchema), ...errors },
      },
    },
    async (request) => {
      const { id: userId, handleId } = request.params;
      const removed = await removeHandleFromUser(db, userId, handleId);
      await logAdminAction(db, request, {
        type: 'admin_handle_removed_from_user',
        severity: 'medium',
        description: `Removed @${removed.username} from user ${userId}`,
        userId,
        metadata: { handle_id: handleId, handle: removed.username },
      });
      return ok(
        { user_id: userId, handles: await userHandlesForAdmin(db, userId) },
        ADMIN_MESSAGES.handleRemovedFromUser(removed.username),
      );
    },
  );

  // The spec names both paths; they answer the same.
  for (const path of ['/admin/handles', '/admin/all-handles']) {
    app.get(
      path,
      {
        schema: { tags, response: { 200: successEnvelope(adminHandlesResponseSchema), ...errors } },
      },
      async () => ok({ handles: await listSystemHandles(db) }),
    );
  }

  app.put(
    '/admin/users/:id/role',
    {
      config,
      preValidation: requireSuperAdmin,
      schema: {
        tags,
        params: adminRoleParamSchema,
        body: changeRoleRequestSchema,
        response: {
          200: successEnvelope(adminUserResponseSchema),
          ...errors,
          ...errorResponses(409),
        },
      },
    },
    async (request, reply) => {
      const { role } = request.body;
      const actor = currentAuth(request);
      const ownRole = request.params.id === actor.user.id;
      const { user, previous } = await changeRole(
        db,
        request.params.id,
        role,
        app.sessionCache,
        ownRole ? actor.sessionIdHash : undefined,
      );
      if (previous !== role && ownRole) {
        // The other sessions of this account ended; this browser goes on under a new id.
        const rotated = await rotateSession(db, actor, clientOf(request), request.now);
        if (rotated) reply.setSessionCookie(rotated);
      }
      if (previous !== role) {
        await logAdminAction(db, request, {
          type: 'role_changed',
          severity: 'high',
          description: `Changed ${user.username} from ${roleLabel(previous)} to ${roleLabel(role)}`,
          userId: user.id,
          metadata: { from: previous, to: role },
        });
      }
      return ok({ user }, ADMIN_MESSAGES.roleChanged(user.username, role));
    },
  );

  app.get(
    '/admin/invitations',
    {
      schema: {
        tags,
        response: { 200: successEnvelope(adminInvitationsResponseSchema), ...errors },
      },
    },
    async (request) => ok({ invitations: await listInvitationsFor(db, currentAuth(request).user) }),
  );

  app.post(
    '/admin/invitations',
    {
      config,
      schema: {
        tags,
        body: createInvitationRequestSchema,
        response: { 201: successEnvelope(adminCreatedInvitationResponseSchema), ...errors },
      },
    },
    async (request, reply) => {
      const invitation = await createInvitationAs(db, currentAuth(request).user, request.body);
      await logAdminAction(db, request, {
        type: 'invitation_created',
        severity: invitation.role === 'user' ? 'medium' : 'high',
        description: `Created an invitation for ${roleLabel(invitation.role)}`,
        // The code itself stays out of the log: it is a credential while it is active.
        metadata: {
          invitation_id: invitation.id,
          role: invitation.role,
          max_uses: invitation.max_uses,
          expires_at: invitation.expires_at,
        },
      });
      reply.code(201);
      return ok({ invitation }, ADMIN_MESSAGES.invitationCreated);
    },
  );

  app.delete(
    '/admin/invitations/:id',
    {
      config,
      schema: {
        tags,
        params: adminInvitationIdParamSchema,
        response: { 200: successEnvelope(adminInvitationResponseSchema), ...errors },
      },
    },
    async (request) => {
      const { invitation, revokedNow } = await revokeInvitationAs(
        db,
        currentAuth(request).user,
        request.params.id,
      );
      if (revokedNow) {
        await logAdminAction(db, request, {
          type: 'invitation_revoked',
          severity: invitation.role === 'user' ? 'medium' : 'high',
          description: `Revoked an invitation for ${roleLabel(invitation.role)}`,
          metadata: { invitation_id: invitation.id, role: invitation.role },
        });
      }
      return ok({ invitation }, ADMIN_MESSAGES.invitationRevoked);
    },
  );

  await app.register(adminCollectorRoutes, deps);
  await app.register(xUsageRoutes, deps);
};
