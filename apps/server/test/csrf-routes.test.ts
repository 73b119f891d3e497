import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '@perch/shared';
import { errorOf } from './assertions.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';
import { registeredRoutes, type RegisteredRoute } from './routes.js';

/**
 * The CSRF check keys on the route the router matched, never on the raw URL: every way of
 * writing a state-changing API path that the router still resolves meets the check, and every
 * other way reaches no handler at all. The routes are read from the app itself, so a new route
 * is covered without being listed here.
 */

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The only routes that take no CSRF token, and why:
 * - the session heartbeat is also sent with navigator.sendBeacon when a tab closes, which cannot
 *   carry the header; it only records that the session is alive, and SameSite=Lax keeps other
 *   sites' posts cookie-less (system.routes.ts).
 */
const EXEMPT = ['POST /api/v1/session/heartbeat'];

/** A path of the route with every parameter filled in. */
const concrete = (route: RegisteredRoute) => route.path.replace(/:[^/]+/g, '1');

/** `%XX` of a character. */
const encoded = (char: string) => `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`;

/** The same path written the ways a router or a check on the URL may read differently. */
function variants(path: string): Record<string, string> {
  const rest = path.slice('/api'.length);
  const segments = path.split('/');
  // The last segment that is no parameter value, its first letter percent-encoded.
  const index = segments.findLastIndex((segment) => /^[a-z]/i.test(segment));
  const laterEncoded = segments
    .map((segment, i) =>
      i === index ? `${encoded(segment[0] ?? '')}${segment.slice(1)}` : segment,
    )
    .join('/');
  return {
    'encoded first letter': `/${encoded('a')}pi${rest}`,
    'encoded whole prefix': `/${encoded('a')}${encoded('p')}${encoded('i')}${rest}`,
    'encoded letter in a later segment': laterEncoded,
    'encoded version': path.replace('/v1/', `/${encoded('v')}1/`),
    'double slash first': `/${path}`,
    'double slash inside': path.replace('/api/', '/api//'),
    'double slash last': path.replace(/\/([^/]+)$/, '//$1'),
    'upper case prefix': `/API${rest}`,
    'upper case segment': path.replace('/v1/', '/V1/'),
    'trailing slash': `${path}/`,
    'encoded and trailing slash': `/${encoded('a')}pi${rest}/`,
    'encoded slash': path.replace('/api/', `/api${encoded('/')}`),
    'query string': `${path}?x=/api/`,
  };
}

/** The CSRF check's refusal. */
function refusedByCsrf(response: LightMyRequestResponse): boolean {
  if (response.statusCode !== 403) return false;
  const body = errorOf(response);
  return body.code === 'CSRF_INVALID' && body.message === MESSAGES.csrfInvalid;
}

/** The router's 404 for a path no route serves (a handler's own 404 says something else). */
function unrouted(response: LightMyRequestResponse): boolean {
  if (response.statusCode !== 404) return false;
  const body = errorOf(response);
  return body.code === 'NOT_FOUND' && body.message.startsWith('Not found: ');
}

describe.each(DIALECTS)('CSRF by the matched route [%s]', (dialect) => {
  let t: TestApp;
  /** A signed-in super admin: no route refuses it for want of a session or a role. */
  let admin: TestClient;
  let unsafeRoutes: RegisteredRoute[];

  beforeAll(async () => {
    // Every optional route on: the development sign-in and the X connection.
    t = await buildTestApp(dialect, { DEV_LOGIN: 'true', X_CLIENT_ID: 'perch-test-client' });
    admin = new TestClient(t.app, '10.77.0.1');
    await admin.register(t.db, 'csrf_routes_admin', 'superadmin');
    unsafeRoutes = registeredRoutes(t.app, '/api/').filter((route) => UNSAFE.has(route.method));
  });
  afterAll(() => t.close());

  /** A request of the signed-in admin with its CSRF cookie but without the header. */
  const withoutToken = (method: string, url: string) =>
    admin.request({
      method: method as 'POST',
      url,
      csrf: false,
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });

  it('finds the state-changing routes in the app', () => {
    expect(admin.csrf).toBeDefined();
    expect(unsafeRoutes.length).toBeGreaterThan(30);
    expect(unsafeRoutes.map((route) => `${route.method} ${route.path}`)).toEqual(
      expect.arrayContaining([
        'POST /api/v1/auth/login',
        'POST /api/v1/auth/dev-login',
        'POST /api/v1/auth/twitter/connect',
        'POST /api/v1/settings/feeds/regenerate',
        ...EXEMPT,
      ]),
    );
  });

  it('refuses every one of them without the token, but for the listed exemptions', async () => {
    const notRefused: string[] = [];
    for (const route of unsafeRoutes) {
      const response = await withoutToken(route.method, concrete(route));
      if (!refusedByCsrf(response)) notRefused.push(`${route.method} ${route.path}`);
    }
    expect(notRefused).toEqual(EXEMPT);
  });

  it('refuses every other way of writing their paths, or serves none of them', async () => {
    const reached: string[] = [];
    let checked = 0;
    for (const route of unsafeRoutes) {
      if (EXEMPT.includes(`${route.method} ${route.path}`)) continue;
      for (const [name, url] of Object.entries(variants(concrete(route)))) {
        const response = await withoutToken(route.method, url);
        if (refusedByCsrf(response)) checked += 1;
        else if (!unrouted(response)) {
          reached.push(`${route.method} ${url} (${name}): ${response.statusCode} ${response.body}`);
        }
      }
    }
    expect(reached).toEqual([]);
    // The router resolves the encoded and trailing-slash forms: those met the check itself.
    expect(checked).toBeGreaterThanOrEqual((unsafeRoutes.length - EXEMPT.length) * 4);
    // And the admin's session went through all of it untouched.
    expect((await admin.get('/api/v1/auth/check')).json()).toMatchObject({
      data: { authenticated: true },
    });
  });

  it('still lets the same requests through with the token', async () => {
    const response = await admin.request({
      method: 'POST',
      url: `/${encoded('a')}pi/v1/settings/feeds/regenerate/`,
    });
    expect(response.statusCode, response.body).toBe(200);
  });
});
