import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ADMIN_MESSAGES, CSRF_COOKIE, CSRF_HEADER, MESSAGES, SESSION_COOKIE } from '@perch/shared';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { forbidden, unauthorized } from '../lib/errors.js';
import { randomToken, safeEqual } from '../lib/tokens.js';
import {
  resolveSession,
  type AuthContext,
  type NewSessionResult,
} from '../modules/auth/auth.service.js';
import type { SessionCache } from '../modules/auth/session-cache.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The session cache of this node, or null without one. Routes whose services revoke sessions
     * or change a user's row pass it on, so that every node drops what it had cached.
     */
    sessionCache: SessionCache | null;
  }
  interface FastifyRequest {
    /** The signed-in user and session, when the session cookie is live. */
    auth: AuthContext | null;
    /** The CSRF token this client holds (set on the response when it had none). */
    csrfToken: string;
  }
  interface FastifyReply {
    setSessionCookie(session: NewSessionResult): FastifyReply;
    clearSessionCookie(): FastifyReply;
  }
  interface FastifyContextConfig {
    /** Skip the CSRF check (only for requests browsers send without custom headers). */
    csrfExempt?: boolean;
    /**
     * Neither a session nor a CSRF cookie: a GET whose credential is a secret in its path (the
     * feeds, read by feed readers). The route answers the same whoever asks.
     */
    sessionless?: boolean;
  }
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Cookie sessions and double-submit CSRF (docs/spec-notes.md, API conventions): resolves
 * `perch_session` to a user on every API request, hands out `perch_csrf` to clients that lack
 * it, and refuses any state-changing API request whose X-CSRF-Token header does not match that
 * cookie. With a `sessionCache` (session-cache.ts), resolved sessions are kept for a few seconds
 * and dropped on every node when revoked; without one, every request reads the database.
 */
export const authPlugin = fp(
  async (
    app: FastifyInstance,
    {
      config,
      db,
      sessionCache = null,
    }: { config: Config; db: Db; sessionCache?: SessionCache | null },
  ) => {
    const cookieBase = { path: '/', sameSite: 'lax', secure: config.COOKIE_SECURE } as const;

    app.decorate('sessionCache', sessionCache);
    app.decorateRequest('auth', null);
    app.decorateRequest('csrfToken', '');

    app.decorateReply('setSessionCookie', function (this: FastifyReply, session: NewSessionResult) {
      return this.setCookie(SESSION_COOKIE, session.token, {
        ...cookieBase,
        httpOnly: true,
        // Without remember-me the cookie lives as long as the browser session.
        ...(session.rememberMe ? { expires: new Date(session.expiresAt) } : {}),
      });
    });
    app.decorateReply('clearSessionCookie', function (this: FastifyReply) {
      return this.clearCookie(SESSION_COOKIE, { ...cookieBase, httpOnly: true });
    });

    app.addHook('onRequest', async (request, reply) => {
      if (!request.url.startsWith('/api/')) return;
      // Only the route's own flag counts (never the URL), so no other path is let through.
      if (request.routeOptions.config?.sessionless && !UNSAFE_METHODS.has(request.method)) return;
      const presented = request.cookies[CSRF_COOKIE];
      if (presented && presented.length >= 32 && presented.length <= 128) {
        request.csrfToken = presented;
      } else {
        request.csrfToken = randomToken();
        reply.setCookie(CSRF_COOKIE, request.csrfToken, { ...cookieBase, httpOnly: false });
      }
      if (UNSAFE_METHODS.has(request.method) && !request.routeOptions.config?.csrfExempt) {
        const header = request.headers[CSRF_HEADER];
        if (!presented || typeof header !== 'string' || !safeEqual(header, presented)) {
          throw forbidden(MESSAGES.csrfInvalid, 'CSRF_INVALID');
        }
      }
      const token = request.cookies[SESSION_COOKIE];
      if (token && token.length <= 128)
        request.auth = await resolveSession(db, token, sessionCache);
    });
  },
  { name: 'perch-auth', dependencies: ['@fastify/cookie'] },
);

/** preHandler for routes that need a signed-in user. */
export async function requireAuth(request: FastifyRequest): Promise<void> {
  if (!request.auth) throw unauthorized(MESSAGES.notAuthenticated);
}

/** The signed-in user of a route behind requireAuth. */
export function currentAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw unauthorized(MESSAGES.notAuthenticated);
  return request.auth;
}

/** preValidation for admin routes: 401 when signed out, 403 for a plain user. */
export async function requireAdmin(request: FastifyRequest): Promise<void> {
  const { user } = currentAuth(request);
  if (!user.is_admin && !user.is_super_admin) throw forbidden(ADMIN_MESSAGES.adminRequired);
}

/** preValidation for super-admin routes: 401 when signed out, 403 for anyone else. */
export async function requireSuperAdmin(request: FastifyRequest): Promise<void> {
  const { user } = currentAuth(request);
  if (!user.is_super_admin) throw forbidden(ADMIN_MESSAGES.superAdminRequired);
}
