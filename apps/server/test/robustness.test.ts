import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorEnvelopeSchema } from '@perch/shared';
import { looksLikeStackTrace } from './assertions.js';
import { DIALECTS, TestClient, buildTestApp, inviteCode, type TestApp } from './helpers.js';

/** Values a hostile or broken client may put in any field. */
function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

const HOSTILE_VALUES: [string, unknown][] = [
  ['null', null],
  ['zero', 0],
  ['negative number', -1],
  ['float', 1.5],
  ['huge number', 1e308],
  ['true', true],
  ['empty array', []],
  ['array of strings', ['a', 'b']],
  ['empty object', {}],
  ['operator object', { $ne: null, $gt: '' }],
  ['deeply nested object', nested(500)],
  ['huge string', 'x'.repeat(200_000)],
  ['empty string', ''],
  ['blank string', '   '],
  ['NUL byte', '\u0000'],
  ['string with NUL', 'user\u0000name'],
  ['CJK text', '用户名用户名'],
  ['emoji', '👩‍💻🔥✨'],
  ['right-to-left override', '\u202Eevil.exe'],
  ['zero-width characters', 'a\u200B\u200Cb\uFEFF'],
  ['lone surrogate', 'ab\uD800cd'],
  ['SQL injection', "' OR '1'='1' --"],
  ['markup', '<script>alert(1)</script>'],
  ['path traversal', '../../../../etc/passwd'],
  ['format string', '%s%s%s%n'],
];

/** Whole bodies, sent as raw JSON text. */
const HOSTILE_BODIES: [string, string][] = [
  ['null', 'null'],
  ['number', '42'],
  ['string', '"hello"'],
  ['boolean', 'true'],
  ['empty array', '[]'],
  ['array of objects', '[{"username":"a","password":"b"}]'],
  ['empty object', '{}'],
  ['deep array', `${'['.repeat(5000)}${']'.repeat(5000)}`],
  ['__proto__ key', '{"__proto__":{"isAdmin":true,"polluted":true},"username":"x","code":"x"}'],
  ['constructor.prototype', '{"constructor":{"prototype":{"isAdmin":true,"polluted":true}}}'],
  ['nested __proto__', '{"deviceInfo":{"__proto__":{"polluted":true}},"username":"a"}'],
  ['duplicate keys', '{"username":"a","username":{"x":1},"password":"b","password":[]}'],
  ['unicode escapes', '{"username":"\\u0000\\ud800","password":"\\u202e"}'],
];

interface RouteCase {
  url: string;
  /** POST unless said otherwise. */
  method?: 'POST' | 'PUT';
  /** A body the route accepts, whose fields are replaced one by one. */
  valid: () => Promise<Record<string, unknown>> | Record<string, unknown>;
}

/** What is wrong with a response, or null when it is a proper answer to bad input. */
function problemWith(response: LightMyRequestResponse): string | null {
  if (response.statusCode >= 500) return `status ${response.statusCode}: ${response.body}`;
  if (looksLikeStackTrace(response.body)) return `stack trace in ${response.body}`;
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return `not JSON: ${response.body.slice(0, 200)}`;
  }
  if (response.statusCode >= 400) {
    const parsed = errorEnvelopeSchema.strict().safeParse(body);
    return parsed.success ? null : `not a failure envelope: ${response.body.slice(0, 300)}`;
  }
  const success = (body as { success?: unknown } | null)?.success;
  return success === true ? null : `2xx without success: true: ${response.body.slice(0, 300)}`;
}

/** A request of the hostile-path tests, built from one hostile value. */
interface HostileRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  payload?: Record<string, unknown>;
}

const encodeHostile = (text: string) =>
  encodeURIComponent(text.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));

/**
 * Sends the requests `requestsFor` builds from each hostile value, given as a path segment and
 * as a percent-encoded query value, and lists the answers that are not a proper 4xx.
 */
async function hostilePathProblems(
  client: TestClient,
  requestsFor: (segment: string, value: string) => readonly HostileRequest[],
): Promise<string[]> {
  const problems: string[] = [];
  for (const [label, raw] of HOSTILE_VALUES) {
    const text = String(raw);
    if (text.length >= 5_000) continue;
    // Lone surrogates cannot be percent-encoded; a broken escape is sent raw instead.
    const segment = label === 'lone surrogate' ? 'ab%E0%A4%Acd' : encodeHostile(text) || '%20';
    for (const request of requestsFor(segment, encodeHostile(text))) {
      const problem = problemWith(await client.request(request));
      if (problem) problems.push(`${request.method} ${request.url} (${label}): ${problem}`);
    }
  }
  return problems;
}

/**
 * Sends `route` every hostile whole body, then its valid body with each field replaced by each
 * hostile value, then with extra keys; returns what was wrong with the answers.
 */
async function hostileBodyProblems(client: TestClient, route: RouteCase): Promise<string[]> {
  const problems: string[] = [];
  const send = async (label: string, payload: string) => {
    const response = await client.request({
      method: route.method ?? 'POST',
      url: route.url,
      payload,
      headers: { 'content-type': 'application/json' },
    });
    const problem = problemWith(response);
    if (problem) problems.push(`${label}: ${problem}`);
  };

  for (const [label, raw] of HOSTILE_BODIES) await send(`body ${label}`, raw);
  const fields = Object.keys(await route.valid());
  for (const field of fields) {
    for (const [label, value] of HOSTILE_VALUES) {
      const body = { ...(await route.valid()), [field]: value };
      await send(`${field} = ${label}`, JSON.stringify(body));
    }
  }
  // Extra keys, including ones that would pollute prototypes if merged naively.
  const extra = JSON.stringify({
    ...(await route.valid()),
    isAdmin: true,
    role: 'superadmin',
  });
  await send('extra keys', extra.replace(/^\{/, '{"__proto__":{"polluted":true},'));

  return problems;
}

describe.each(DIALECTS)(
  'hostile input to the auth, handle, analytics, settings, notification and security routes [%s]',
  (dialect) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect, { DEV_LOGIN: 'true' });
      await new TestClient(t.app).register(t.db, 'robust_user', 'user', 'Sup3r-secret!');
    });
    afterAll(() => t.close());

    /** A client signed in as robust_user, so routes behind a session run their handlers too. */
    async function signedInRobustUser(ip: string): Promise<TestClient> {
      const client = new TestClient(t.app, ip);
      await client.request({
        method: 'POST',
        url: '/api/v1/auth/dev-login',
        payload: { username: 'robust_user' },
      });
      return client;
    }

    const routes: RouteCase[] = [
      { url: '/api/v1/auth/verify-invite', valid: () => ({ code: 'PERCH-AAAA-BBBB-CCCC' }) },
      {
        url: '/api/v1/auth/register',
        valid: async () => ({
          username: `robust_${Math.random().toString(36).slice(2, 10)}`,
          email: `robust_${Math.random().toString(36).slice(2, 10)}@example.com`,
          password: 'Sup3r-secret!',
          confirmPassword: 'Sup3r-secret!',
          invitationCode: await inviteCode(t.db),
          acceptTerms: true,
          acceptPrivacy: true,
        }),
      },
      {
        url: '/api/v1/auth/login',
        valid: () => ({
          username: 'robust_user',
          password: 'Wrong-password-1',
          rememberMe: false,
          deviceInfo: { userAgent: 'vitest', platform: 'linux', language: 'en' },
        }),
      },
      { url: '/api/v1/auth/logout', valid: () => ({ user_id: 1, action: 'manual_logout' }) },
      { url: '/api/v1/auth/dev-login', valid: () => ({ username: 'robust_user' }) },
      {
        url: '/api/v1/handles',
        valid: () => ({ username: 'typical_rb', backfill_days: 7, async: true }),
      },
      { url: '/api/v1/settings', valid: () => ({ telegram_chat_id: '12345678' }) },
      { url: '/api/v1/settings', valid: () => ({ discord_user_id: '80351110224678912' }) },
      { url: '/api/v1/settings', valid: () => ({ twitter_username: 'robust_x' }) },
      {
        url: '/api/v1/settings/notifications',
        method: 'PUT',
        valid: () => ({ include_replies: true, include_retweets: false, include_quotes: true }),
      },
      { url: '/api/v1/settings/telegram/test', valid: () => ({ chat_id: '12345678' }) },
      { url: '/api/v1/test-telegram', valid: () => ({ telegram_chat_id: '12345678' }) },
      {
        url: '/api/v1/settings/discord/test',
        valid: () => ({ discord_user_id: '80351110224678912' }),
      },
      { url: '/api/v1/test-discord', valid: () => ({ discord_user_id: '80351110224678912' }) },
      { url: '/api/v1/notifications/telegram', valid: () => ({ username: 'robust_tg' }) },
      {
        url: '/api/v1/notifications/discord',
        valid: () => ({ discord_user_id: '80351110224678912' }),
      },
      { url: '/api/v1/settings/telegram/link', valid: () => ({}) },
      { url: '/api/v1/bot/start', valid: () => ({}) },
      { url: '/api/v1/auth/twitter/connect', valid: () => ({}) },
      { url: '/api/v1/auth/twitter/disconnect', valid: () => ({}) },
      {
        url: '/api/v1/handles/1/notifications',
        method: 'PUT',
        valid: () => ({ telegramEnabled: true, discordEnabled: false }),
      },
      {
        url: '/api/v1/security/incidents',
        valid: () => ({ type: 'phishing', description: 'A robust report', severity: 'low' }),
      },
      {
        url: '/api/v1/security/settings',
        method: 'PUT',
        valid: () => ({ alertOnNewDevice: true, alertOnFailedLogins: true }),
      },
      { url: '/api/v1/security/sessions/revoke-others', valid: () => ({}) },
      {
        url: '/api/v1/session/heartbeat',
        valid: () => ({
          user_id: 1,
          client_id: 'tab',
          timestamp: Date.now(),
          userAgent: 'vitest',
          url: 'http://localhost/dashboard/',
          event: 'unload',
        }),
      },
    ];

    it.each(routes.map((route) => [route.url, route] as const))(
      '%s answers every hostile body with a 4xx envelope, never a 500',
      async (_url, route) => {
        const client = await signedInRobustUser('10.77.0.1');
        const problems = await hostileBodyProblems(client, route);
        expect(problems).toEqual([]);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
      },
    );

    it('answers hostile path and query values of the handle routes with a 4xx envelope', async () => {
      const client = await signedInRobustUser('10.77.0.2');
      const problems = await hostilePathProblems(client, (segment, value) => [
        { method: 'GET', url: `/api/v1/handles/${segment}/tweets` },
        { method: 'GET', url: `/api/v1/handles/typical_rb/tweets?page=${value}&limit=${value}` },
        { method: 'GET', url: `/api/v1/handles/${segment}/backfill-progress` },
        { method: 'DELETE', url: `/api/v1/handles/${segment}` },
      ]);
      expect(problems).toEqual([]);
    });

    it('answers hostile path and query values of every analytics route with a 4xx envelope', async () => {
      const client = await signedInRobustUser('10.77.0.3');
      await client.post('/api/v1/handles', { username: 'typical_rba', backfill_days: 7 });
      const blocks = [
        'summary',
        'top_tweets',
        'timeseries',
        'content_breakdown',
        'engagement',
        'viral',
        'enhanced-content',
        'engagement-distribution',
        'interaction-breakdown',
        'velocity',
        'thread-performance',
        'languages',
        'hashtags',
        'posting-patterns',
        'media-stats',
        'growth',
        'words',
        'complete',
        'availability',
      ];
      const problems = await hostilePathProblems(client, (segment, value) => {
        const query = `period=${value}&timezone=${value}&sortBy=${value}&limit=${value}&metric=${value}`;
        return [
          ...blocks.flatMap((block): HostileRequest[] => [
            { method: 'GET', url: `/api/v1/analytics/${block}/${segment}` },
            { method: 'GET', url: `/api/v1/analytics/${block}/typical_rba?${query}` },
          ]),
          { method: 'POST', url: `/api/v1/analytics/refresh/${segment}` },
          { method: 'POST', url: `/api/v1/analytics/refresh/typical_rba?${query}` },
        ];
      });
      expect(problems).toEqual([]);
    });

    it('answers hostile path and query values of the security routes with a 4xx envelope', async () => {
      const client = await signedInRobustUser('10.77.0.4');
      const problems = await hostilePathProblems(client, (segment, value) => [
        {
          method: 'GET',
          url: `/api/v1/security/events?eventType=${value}&severity=${value}&startDate=${value}&endDate=${value}&limit=${value}&offset=${value}&userId=${value}`,
        },
        { method: 'GET', url: `/api/v1/security/events?startDate=${value}` },
        { method: 'GET', url: `/api/v1/security/events?eventType=${value}` },
        { method: 'GET', url: `/api/v1/security/stats?timeRange=${value}&userId=${value}` },
        { method: 'GET', url: `/api/v1/security/login-history?limit=${value}&userId=${value}` },
        { method: 'GET', url: `/api/v1/security/export?format=${value}&userId=${value}` },
        { method: 'DELETE', url: `/api/v1/security/sessions/${segment}` },
      ]);
      expect(problems).toEqual([]);
    });

    it('lets nobody become an admin through extra keys', async () => {
      const admins = await t.db.db
        .selectFrom('users')
        .select('username')
        .where((eb) => eb.or([eb('is_admin', '=', true), eb('is_super_admin', '=', true)]))
        .execute();
      expect(admins).toEqual([]);
    });
  },
);

describe.each(DIALECTS)('hostile input to the admin routes [%s]', (dialect) => {
  let t: TestApp;
  let superAdmin: TestClient;
  beforeAll(async () => {
    t = await buildTestApp(dialect);
    // Signed in as a super admin, so every admin route runs its validation and handler.
    superAdmin = new TestClient(t.app, '10.77.1.1');
    await superAdmin.register(t.db, 'robust_root', 'superadmin');
    const follower = new TestClient(t.app, '10.77.1.2');
    await follower.register(t.db, 'robust_follower');
    await follower.post('/api/v1/handles', { username: 'typical_rad', backfill_days: 7 });
  });
  afterAll(() => t.close());

  const routes: RouteCase[] = [
    {
      url: '/api/v1/admin/invitations',
      valid: () => ({ role: 'user', max_uses: 2, expires_in_days: 7 }),
    },
    // User 1 is the super admin itself: the valid body keeps its role.
    { url: '/api/v1/admin/users/1/role', method: 'PUT', valid: () => ({ role: 'superadmin' }) },
  ];

  it.each(routes.map((route) => [route.url, route] as const))(
    '%s answers every hostile body with a 4xx envelope, never a 500',
    async (_url, route) => {
      expect(await hostileBodyProblems(superAdmin, route)).toEqual([]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  it('answers hostile ids in the admin paths with a 4xx envelope', async () => {
    const problems = await hostilePathProblems(superAdmin, (segment) => [
      { method: 'GET', url: `/api/v1/admin/users/${segment}/handles` },
      { method: 'DELETE', url: `/api/v1/admin/users/${segment}/handles/1` },
      { method: 'DELETE', url: `/api/v1/admin/users/2/handles/${segment}` },
      { method: 'PUT', url: `/api/v1/admin/users/${segment}/role`, payload: { role: 'user' } },
      { method: 'DELETE', url: `/api/v1/admin/invitations/${segment}` },
    ]);
    expect(problems).toEqual([]);
    const superAdmins = await t.db.db
      .selectFrom('users')
      .select('username')
      .where('is_super_admin', '=', true)
      .execute();
    expect(superAdmins).toEqual([{ username: 'robust_root' }]);
  });
});
