import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_MESSAGES, MESSAGES } from '@perch/shared';
import { insertHandle, insertLink } from '../src/modules/handles/handles.repository.js';
import { createInvitation } from '../src/modules/invitations/invitations.service.js';
import { expectError } from './assertions.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';
import { registeredRoutes, routeKey } from './routes.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Rows one route's calls act on, made fresh for each route so no route depends on another. */
interface Fixtures {
  /** A plain user. */
  userId: number;
  /** A handle that user follows. */
  handleId: number;
  /** An active invitation for a plain user. */
  invitationId: number;
}

interface AdminRoute {
  method: Method;
  /** The route's path as registered (under /api/v1). */
  path: string;
  /** Who may call it besides a super admin: admins too, or super admins only. */
  access: 'admin' | 'superadmin';
  /** The URL to call, its ids taken from the fixtures (default: the path itself). */
  url?: (f: Fixtures) => string;
  /** A body the route accepts, so admin and super admin calls reach the handler. */
  body?: (f: Fixtures) => unknown;
}

/**
 * Every /admin route and who may call it (docs/spec-notes.md, Roles). The matrix below fails for a
 * route the app has and this list lacks, so a new admin route cannot ship without a decision.
 */
const ADMIN_ROUTES: AdminRoute[] = [
  { method: 'GET', path: '/admin/users', access: 'admin' },
  {
    method: 'GET',
    path: '/admin/users/:id/handles',
    access: 'admin',
    url: (f) => `/admin/users/${f.userId}/handles`,
  },
  {
    method: 'DELETE',
    path: '/admin/users/:id/handles/:handleId',
    access: 'admin',
    url: (f) => `/admin/users/${f.userId}/handles/${f.handleId}`,
  },
  {
    method: 'PUT',
    path: '/admin/users/:id/role',
    access: 'superadmin',
    url: (f) => `/admin/users/${f.userId}/role`,
    body: () => ({ role: 'user' }),
  },
  { method: 'GET', path: '/admin/handles', access: 'admin' },
  { method: 'GET', path: '/admin/all-handles', access: 'admin' },
  {
    method: 'DELETE',
    path: '/admin/handles/:id',
    access: 'admin',
    url: (f) => `/admin/handles/${f.handleId}`,
  },
  {
    method: 'DELETE',
    path: '/admin/handles/:id/data',
    access: 'superadmin',
    url: (f) => `/admin/handles/${f.handleId}/data`,
  },
  { method: 'GET', path: '/admin/processes', access: 'admin' },
  {
    method: 'POST',
    path: '/admin/processes/stop',
    access: 'superadmin',
    body: (f) => ({ handle_id: f.handleId }),
  },
  {
    method: 'POST',
    path: '/admin/processes/start',
    access: 'superadmin',
    body: (f) => ({ handle_id: f.handleId }),
  },
  { method: 'GET', path: '/admin/twitter-challenge-status', access: 'superadmin' },
  { method: 'GET', path: '/admin/x-usage', access: 'admin' },
  { method: 'GET', path: '/admin/x-web-accounts', access: 'admin' },
  {
    method: 'POST',
    path: '/admin/x-web-accounts',
    access: 'superadmin',
    body: (f) => ({
      method: 'cookies',
      username: `authz_x${f.userId}`,
      auth_token: 'a'.repeat(40),
      ct0: 'b'.repeat(40),
    }),
  },
  {
    method: 'DELETE',
    path: '/admin/x-web-accounts/:id',
    access: 'superadmin',
    url: () => '/admin/x-web-accounts/999999',
  },
  {
    method: 'POST',
    path: '/admin/x-web-accounts/:id/reset',
    access: 'superadmin',
    url: () => '/admin/x-web-accounts/999999/reset',
  },
  { method: 'GET', path: '/admin/x-web-operations', access: 'admin' },
  {
    method: 'PUT',
    path: '/admin/x-web-operations/:name',
    access: 'superadmin',
    url: () => '/admin/x-web-operations/UserTweets',
    body: () => ({ query_id: 'AuthzPinnedQuery01' }),
  },
  {
    method: 'DELETE',
    path: '/admin/x-web-operations/:name',
    access: 'superadmin',
    url: () => '/admin/x-web-operations/UserTweets',
  },
  { method: 'POST', path: '/admin/x-web-operations/refresh', access: 'superadmin' },
  {
    method: 'POST',
    path: '/admin/submit-twitter-challenge-code',
    access: 'superadmin',
    body: () => ({ verification_code: '123456' }),
  },
  { method: 'GET', path: '/admin/invitations', access: 'admin' },
  {
    method: 'POST',
    path: '/admin/invitations',
    access: 'admin',
    body: () => ({ role: 'user', max_uses: 1, expires_in_days: 7 }),
  },
  {
    method: 'DELETE',
    path: '/admin/invitations/:id',
    access: 'admin',
    url: (f) => `/admin/invitations/${f.invitationId}`,
  },
];

const API = '/api/v1';

describe.each(DIALECTS)('admin authorization matrix [%s]', (dialect) => {
  let t: TestApp;
  const anonymous = () => new TestClient(t.app);
  let user: TestClient;
  let admin: TestClient;
  let superAdmin: TestClient;
  let userId: number;
  let fixtureCount = 0;

  beforeAll(async () => {
    t = await buildTestApp(dialect);
    superAdmin = new TestClient(t.app);
    await superAdmin.register(t.db, 'authz_root', 'superadmin');
    admin = new TestClient(t.app);
    await admin.register(t.db, 'authz_admin', 'admin');
    user = new TestClient(t.app);
    userId = (await user.register(t.db, 'authz_user')).data.user.id;
  });
  afterAll(() => t.close());

  async function freshFixtures(): Promise<Fixtures> {
    const now = new Date().toISOString();
    const handle = await insertHandle(t.db.db, {
      username: `authz_${++fixtureCount}`,
      backfillDays: 7,
      now,
    });
    await insertLink(t.db.db, { userId, handleId: handle.id, backfillDays: 7, now });
    const invitation = await createInvitation(t.db, {
      role: 'user',
      maxUses: 1,
      expiresInDays: 7,
      createdBy: null,
    });
    return { userId, handleId: handle.id, invitationId: invitation.id };
  }

  function call(client: TestClient, route: AdminRoute, f: Fixtures) {
    const body = route.body?.(f);
    return client.request({
      method: route.method,
      url: API + (route.url?.(f) ?? route.path),
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
  }

  it('knows every admin route the app has, and the app has every route listed', () => {
    const registered = registeredRoutes(t.app, `${API}/admin`).map((route) =>
      routeKey(route.method, route.path),
    );
    const expected = ADMIN_ROUTES.map((route) => routeKey(route.method, API + route.path)).sort();
    const unlisted = registered.filter((key) => !expected.includes(key));
    const missing = expected.filter((key) => !registered.includes(key));
    expect({ unlisted, missing }).toEqual({ unlisted: [], missing: [] });
  });

  it.each(
    ADMIN_ROUTES.map((route) => [`${route.method} ${route.path}`, route.access, route] as const),
  )(
    '%s (%s): 401 signed out, 403 for a user, and by role after that',
    async (_name, _access, route) => {
      const f = await freshFixtures();

      expectError(await call(anonymous(), route, f), 401, { message: MESSAGES.notAuthenticated });
      expectError(await call(user, route, f), 403, { message: ADMIN_MESSAGES.adminRequired });

      const byAdmin = await call(admin, route, f);
      if (route.access === 'superadmin') {
        expectError(byAdmin, 403, { message: ADMIN_MESSAGES.superAdminRequired });
      } else {
        expect([400, 401, 403], byAdmin.body).not.toContain(byAdmin.statusCode);
        expect(byAdmin.statusCode, byAdmin.body).toBeLessThan(500);
      }

      const bySuperAdmin = await call(superAdmin, route, await freshFixtures());
      expect([400, 401, 403], bySuperAdmin.body).not.toContain(bySuperAdmin.statusCode);
      expect(bySuperAdmin.statusCode, bySuperAdmin.body).toBeLessThan(500);
    },
  );

  it('checks the role before the input: a bad body or id still gets 401 or 403 first', async () => {
    const badCalls = [
      { method: 'PUT', url: `${API}/admin/users/abc/role`, payload: { role: 'god' } },
      { method: 'POST', url: `${API}/admin/invitations`, payload: { role: 42 } },
      { method: 'GET', url: `${API}/admin/users/abc/handles` },
      { method: 'DELETE', url: `${API}/admin/invitations/-1` },
    ] as const;
    for (const request of badCalls) {
      expectError(await anonymous().request(request), 401);
      expectError(await user.request(request), 403, { message: ADMIN_MESSAGES.adminRequired });
    }
    expectError(await admin.request(badCalls[0]), 403, {
      message: ADMIN_MESSAGES.superAdminRequired,
    });
  });
});
