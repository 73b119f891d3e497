import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  X_CONNECT_RESULT_PARAM,
  successEnvelope,
  xAccountStatusSchema,
  xConnectResponseSchema,
  type XConnectErrorReason,
} from '@perch/shared';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { errorResponses, ok } from '../../lib/reply.js';
import { requestOrigin } from '../../lib/request-origin.js';
import { currentAuth, requireAuth } from '../auth/auth.plugin.js';
import { XConnectError, completeConnect, startConnect } from './x-account-connect.service.js';
import { accountStatus, createXOAuth, disconnect, type XOAuth } from './x-account.service.js';

const errors = errorResponses(400, 401, 403);
const SETTINGS_PAGE = '/dashboard/settings';

// Lenient on purpose: whatever arrives, the browser is sent back to Settings, never shown JSON.
const callbackQuerySchema = z.object({
  code: z.string().max(2048).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
});

/**
 * The user's X account: OAuth 2.0 with PKCE when X_CLIENT_ID is set. The callback is
 * the browser's way back from X, so it answers with a redirect to the Settings page.
 */
export const xAccountRoutes: FastifyPluginAsyncZod<{
  config: Config;
  db: Db;
  /** Overrides the X connection built from config (tests). */
  oauth?: XOAuth;
}> = async (app, { config, db, oauth = createXOAuth(config) }) => {
  const settingsPage = `${oauth.publicUrl ?? ''}${SETTINGS_PAGE}`;

  app.post(
    '/auth/twitter/connect',
    {
      preHandler: requireAuth,
      schema: {
        tags: ['x-account'],
        summary: "Starts connecting the user's X account; answers X's authorize URL",
        response: { 200: successEnvelope(xConnectResponseSchema), ...errors },
      },
    },
    async (request) => {
      // PUBLIC_URL, or the request's own origin when its host is allowed (400 otherwise).
      const origin = requestOrigin(request, config);
      const authorizeUrl = await startConnect(db, oauth, currentAuth(request).user.id, origin);
      return ok({ authorizeUrl });
    },
  );

  app.get(
    '/auth/twitter/callback',
    {
      attachValidation: true,
      schema: {
        tags: ['x-account'],
        summary: 'Where X sends the browser back to; redirects to the Settings page',
        querystring: callbackQuerySchema,
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const back = (query: string) => reply.redirect(`${settingsPage}?${query}`, 302);
      if (request.validationError) return back(errorQuery('invalid_request'));
      try {
        const { code, state, error } = request.query;
        await completeConnect(db, oauth, {
          userId: request.auth?.user.id ?? null,
          code,
          state,
          error,
        });
        return back(`${X_CONNECT_RESULT_PARAM}=connected`);
      } catch (error) {
        if (error instanceof XConnectError) {
          request.log.warn({ reason: error.reason }, `X account not connected: ${error.message}`);
          return back(errorQuery(error.reason));
        }
        request.log.error({ err: error }, 'X account connection failed');
        return back(errorQuery('internal_error'));
      }
    },
  );

  app.get(
    '/auth/twitter/status',
    {
      preHandler: requireAuth,
      schema: {
        tags: ['x-account'],
        summary: "The user's X account: connected through OAuth, typed in Settings, or none",
        response: { 200: successEnvelope(xAccountStatusSchema), ...errors },
      },
    },
    async (request) => ok(await accountStatus(db, oauth, currentAuth(request).user.id)),
  );

  app.post(
    '/auth/twitter/disconnect',
    {
      preHandler: requireAuth,
      schema: {
        tags: ['x-account'],
        summary: "Forgets the user's X account and asks X to revoke its tokens",
        response: { 200: successEnvelope(xAccountStatusSchema), ...errors },
      },
    },
    async (request) => {
      const { status, revoked } = await disconnect(db, oauth, currentAuth(request).user.id);
      if (!revoked) request.log.warn('X did not confirm the revocation of a disconnected account');
      return ok(status, 'X account disconnected');
    },
  );
};

function errorQuery(reason: XConnectErrorReason): string {
  return new URLSearchParams({ [X_CONNECT_RESULT_PARAM]: 'error', reason }).toString();
}
