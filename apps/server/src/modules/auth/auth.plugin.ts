import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
} from 'fastify';
import fp from 'fastify-plugin';
import {
  ADMIN_MESSAGES,
  BACKGROUND_REQUEST_HEADER,
  CSRF_HEADER,
  MESSAGES,
  authCookieNames,
} from '@perch/shared';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { forbidden, unauthorized } from '../../lib/errors.js';
import { sha256Hex } from '../../lib/tokens.js';
import {
  anonymousCsrfToken,
  csrfHeaderMatches,
  plausibleCsrfToken,
  SessionCsrfTokens,
  sessionCsrfToken,
} from './csrf-token.js';
import type { SessionCache } from './session-cache.js';
import {
  cachedSession,
  closeSession,
  resolveSession,
  type AuthContext,
  type NewSessionResult,
} from './sessions.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The session cache of this node, or null without one. Routes whose services revoke sessions
     * or change a user's row pass it on, so that every node drops what it had cached.
     */
    sessionCache: SessionCache | null;
    /** The session and CSRF cookie names: `__Host-` prefixed when COOKIE_SECURE is on. */
    authCookies: { session: string; csrf: string };
  }
  interface FastifyRequest {
    /** The signed-in user and session, when the session cookie is live. */
    auth: AuthContext | null;
    /**
     * The CSRF token this client must send (csrf-token.ts): its session's, or before sign-in the
     * one of its cookie; set on the response when the cookie holds another.
     */
    csrfToken: string;
    /** When the request arrived by the auth clock (ms): session lifetimes and step-up read it. */
    now: number;
    /** The session this request came with, once the response has handed out another. */
    replacedSessionIdHash: string | null;
  }
  interface FastifyReply {
    /**
     * Sets the session cookie and the CSRF token that goes with it. The session the request came
     * with, if any, ends when the response is sent: a browser holds one session, and an id
     * planted before sign-in (fixation) does not outlive it.
     */
    setSessionCookie(session: NewSessionResult): FastifyReply;
    /** Clears the session cookie; the CSRF token becomes a new one without a session. */
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
    /**
     * Requests to this route are never the person's own activity (the heartbeat): they do not
     * move the session's idle timeout (session-lifetime.ts, rule 3).
     */
    background?: boolean;
  }
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What app.ts registers the auth plugin with. */
export interface AuthPluginOptions {
  config: Config;
  db: Db;
  sessionCache?: SessionCache | null;
  now?: () => number;
}

/** The two cookies: their names, their common attributes, and how the CSRF one is set. */
interface AuthCookies {
  names: { session: string; csrf: string };
  base: { path: '/'; sameSite: 'lax'; secure: boolean };
  /** Sets the CSRF cookie and the token this request's answer hands out. */
  setCsrf(reply: FastifyReply, token: string): void;
}

function authCookiesOf(config: Config): AuthCookies {
  const base = { path: '/', sameSite: 'lax', secure: config.COOKIE_SECURE } as const;
  const names = authCookieNames(config.COOKIE_SECURE);
  return {
    names,
    base,
    setCsrf(reply, token) {
      reply.request.csrfToken = token;
      reply.setCookie(names.csrf, token, { ...base, httpOnly: false });
    },
  };
}

/**
 * Cookie sessions and CSRF (docs/spec-notes.md, API conventions; docs/decisions.md): resolves the
 * session cookie to a user on every API request under the lifetimes of session-lifetime.ts, hands
 * out the CSRF token that goes with the session (csrf-token.ts), and refuses any state-changing
 * API request whose X-CSRF-Token header is not that token. With COOKIE_SECURE both cookies are
 * `__Host-` cookies. With a `sessionCache` (session-cache.ts), resolved sessions are kept for a
 * few seconds and dropped on every node when revoked; without one, every request reads the
 * database. `now` is the clock of session lifetimes and step-up (tests move it).
 */
export const authPlugin = fp(
  async (app: FastifyInstance, options: AuthPluginOptions) => {
    const { db, sessionCache = null } = options;
    const cookies = authCookiesOf(options.config);

    app.decorate('sessionCache', sessionCache);
    app.decorate('authCookies', cookies.names);
    app.decorateRequest('auth', null);
    app.decorateRequest('csrfToken', '');
    app.decorateRequest('now', 0);
    app.decorateRequest('replacedSessionIdHash', null);
    decorateSessionCookies(app, cookies);

    // Callback style: most answers replace no session and pass straight through.
    app.addHook('onSend', (request, _reply, payload, done) => {
      const replaced = request.replacedSessionIdHash;
      if (replaced === null) return done(null, payload);
      request.replacedSessionIdHash = null;
      closeSession(db, replaced, sessionCache).then(() => done(null, payload), done);
    });
    app.addHook('onRequest', authenticate(options, cookies));
  },
  { name: 'perch-auth', dependencies: ['@fastify/cookie'] },
);

/** `reply.setSessionCookie` and `reply.clearSessionCookie`, each with its CSRF token. */
function decorateSessionCookies(app: FastifyInstance, cookies: AuthCookies): void {
  app.decorateReply('setSessionCookie', function (this: FastifyReply, session: NewSessionResult) {
    if (this.request.auth) this.request.replacedSessionIdHash = this.request.auth.sessionIdHash;
    cookies.setCsrf(this, sessionCsrfToken(session.token));
    return this.setCookie(cookies.names.session, session.token, {
      ...cookies.base,
      httpOnly: true,
      // Without remember-me the cookie lives as long as the browser session.
      ...(session.rememberMe ? { expires: new Date(session.expiresAt) } : {}),
    });
  });
  app.decorateReply('clearSessionCookie', function (this: FastifyReply) {
    cookies.setCsrf(this, anonymousCsrfToken());
    return this.clearCookie(cookies.names.session, { ...cookies.base, httpOnly: true });
  });
}

/**
 * The onRequest hook: the CSRF check, then the session behind the cookie. Callback style: a
 * session the cache answers for is set without waiting; only a database read waits.
 */
function authenticate(options: AuthPluginOptions, cookies: AuthCookies) {
  const { db, sessionCache = null, now = Date.now } = options;
  const csrfTokens = new SessionCsrfTokens();
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    // By the route the router matched, never the raw URL: /%61pi/..., /api/v1/x/ and /api/v1/x
    // reach the same handler, so they meet the same checks. A path no route serves reaches no
    // handler and needs none of this.
    if (!isApiRoute(request)) return done();
    // Only the route's own flag counts (never the URL), so no other path is let through.
    if (request.routeOptions.config?.sessionless && !UNSAFE_METHODS.has(request.method)) {
      return done();
    }
    request.now = now();
    const cookie = request.cookies[cookies.names.session];
    const sessionToken = cookie && cookie.length <= 128 ? cookie : undefined;
    const idHash = sessionToken && sha256Hex(sessionToken);
    const presented = request.cookies[cookies.names.csrf];
    // With a session cookie, that session's token (whether or not the session is still live);
    // without one, the token of the CSRF cookie (double submit).
    const expected = idHash
      ? csrfTokens.of(sessionToken, idHash)
      : plausibleCsrfToken(presented)
        ? presented
        : undefined;
    if (expected !== undefined && presented === expected) request.csrfToken = expected;
    else cookies.setCsrf(reply, expected ?? anonymousCsrfToken());
    if (UNSAFE_METHODS.has(request.method) && !request.routeOptions.config?.csrfExempt) {
      if (expected === undefined || !csrfHeaderMatches(expected, request.headers[CSRF_HEADER])) {
        return done(forbidden(MESSAGES.csrfInvalid, 'CSRF_INVALID'));
      }
    }
    if (!idHash) return done();
    const lookup = { idHash, now: request.now, activity: isPersonsOwnRequest(request) };
    const cached = cachedSession(sessionCache, idHash, lookup);
    if (cached) {
      request.auth = cached;
      return done();
    }
    resolveSession(db, sessionToken, sessionCache, lookup).then((auth) => {
      request.auth = auth;
      done();
    }, done);
  };
}

/**
 * Whether a request is the person's own, which moves the session's idle timeout
 * (session-lifetime.ts, rule 3): not one to a background route (the heartbeat), not one the web
 * app marks as background, not the live stream a browser reopens by itself.
 */
function isPersonsOwnRequest(request: FastifyRequest): boolean {
  if (request.routeOptions.config?.background) return false;
  if (request.headers[BACKGROUND_REQUEST_HEADER] !== undefined) return false;
  return !(request.headers.accept ?? '').includes('text/event-stream');
}

/** Whether the request was routed to an API route (under /api/, the documentation included). */
export function isApiRoute(request: FastifyRequest): boolean {
  return request.routeOptions.url?.startsWith('/api/') ?? false;
}

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
