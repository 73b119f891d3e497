import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SECURITY_EXPORT_COLUMNS,
  SECURITY_MESSAGES,
  SUSPICIOUS_DISTINCT_IPS,
  SUSPICIOUS_FAILED_LOGINS,
  currentSessionResponseSchema,
  incidentResponseSchema,
  loginHistoryResponseSchema,
  revokeOthersResponseSchema,
  securityEventsResponseSchema,
  securityExportSchema,
  securitySessionsResponseSchema,
  securitySettingsSchema,
  securityStatsSchema,
  suspiciousActivityResponseSchema,
  type SecurityEvent,
} from '@perch/shared';
import { REFUSAL_EVENTS_PER_MINUTE } from '../src/modules/security/refusal-events.js';
import { dataOf, expectError, setCookieLine } from './assertions.js';
import { DIALECTS, TEST_PASSWORD, TestClient, buildTestApp, type TestApp } from './helpers.js';
import { signedInAs, signedInUser } from './seed.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const CHROME_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const FIREFOX_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Safari/604.1';

let ipCounter = 0;
/** A fresh IP per call, so sign-in lockouts and refusal caps of one test never reach another. */
const freshIp = () => `10.${60 + Math.floor(++ipCounter / 250)}.${ipCounter % 250}.7`;

describe.each(DIALECTS)('security API [%s]', (dialect) => {
  let t: TestApp;
  /** Same app with TRUST_PROXY on, for X-Forwarded-Proto. */
  let proxied: TestApp;
  let root: { client: TestClient; userId: number; username: string };

  beforeAll(async () => {
    t = await buildTestApp(dialect);
    proxied = await buildTestApp(dialect, { TRUST_PROXY: 'true' });
    root = await signedUp('root', 'superadmin');
  });
  afterAll(async () => {
    await t.close();
    await proxied.close();
  });

  /** A fresh account, registered (and so signed in) on a new client. */
  async function signedUp(prefix: string, role: 'user' | 'superadmin' = 'user', app = t) {
    return signedInUser(app, prefix, { ip: freshIp(), role });
  }

  /** Signs `username` in on a new client from `ip` with `userAgent`. */
  const signIn = (username: string, ip = freshIp(), userAgent = CHROME_LINUX, app = t) =>
    signedInAs(new TestClient(app.app, ip), username, { 'user-agent': userAgent });

  /** `count` wrong passwords for `username`, each from its own IP (no lockout). */
  async function failSignIns(username: string, count: number, app = t) {
    for (let i = 0; i < count; i++) {
      const response = await new TestClient(app.app, freshIp()).post('/api/v1/auth/login', {
        username,
        password: 'Wrong-password-1',
      });
      expect(response.statusCode, response.body).toBe(401);
    }
  }

  async function report(client: TestClient, incident: Record<string, unknown>) {
    const response = await client.post('/api/v1/security/incidents', incident);
    expect(response.statusCode, response.body).toBe(201);
    return dataOf(response, incidentResponseSchema).id;
  }

  const events = async (client: TestClient, query = '') =>
    dataOf(await client.get(`/api/v1/security/events${query}`), securityEventsResponseSchema);
  const stats = async (client: TestClient, query = '') =>
    dataOf(await client.get(`/api/v1/security/stats${query}`), securityStatsSchema);
  const sessions = async (client: TestClient) =>
    dataOf(await client.get('/api/v1/security/sessions'), securitySessionsResponseSchema).sessions;
  const alerts = async (client: TestClient, headers: Record<string, string> = {}) =>
    dataOf(
      await client.request({ method: 'GET', url: '/api/v1/security/suspicious-activity', headers }),
      suspiciousActivityResponseSchema,
    );
  /** Forgets the events an account has so far (its registration), so a test sees only its own. */
  const clearRecord = (userId: number) =>
    t.db.db.deleteFrom('security_events').where('user_id', '=', userId).execute();
  const eventRows = (type: string) =>
    t.db.db.selectFrom('security_events').selectAll().where('event_type', '=', type).execute();

  it('answers every route with 401 when signed out', async () => {
    const anonymous = new TestClient(t.app, freshIp());
    for (const [method, url] of [
      ['GET', '/api/v1/security/events'],
      ['GET', '/api/v1/security/stats'],
      ['GET', '/api/v1/security/sessions'],
      ['GET', '/api/v1/security/sessions/current'],
      ['DELETE', '/api/v1/security/sessions/abc'],
      ['POST', '/api/v1/security/sessions/revoke-others'],
      ['GET', '/api/v1/security/settings'],
      ['PUT', '/api/v1/security/settings'],
      ['POST', '/api/v1/security/incidents'],
      ['GET', '/api/v1/security/login-history'],
      ['GET', '/api/v1/security/suspicious-activity'],
      ['GET', '/api/v1/security/export'],
    ] as const) {
      expectError(await anonymous.request({ method, url }), 401, { code: 'UNAUTHORIZED' });
    }
  });

  describe('GET /security/events', () => {
    it('filters by type, severity and dates, pages with a total, newest first', async () => {
      const { client, userId } = await signedUp('events');
      await clearRecord(userId);
      const ids: number[] = [];
      for (const severity of ['low', 'medium', 'high', 'critical', 'low'] as const) {
        ids.push(
          await report(client, { type: 'phishing', description: `A ${severity}`, severity }),
        );
      }
      await client.request({
        method: 'PUT',
        url: '/api/v1/security/settings',
        payload: { alertOnNewDevice: false },
      });

      const all = await events(client);
      expect(all.total).toBe(6);
      expect(all.limit).toBe(50);
      expect(all.offset).toBe(0);
      expect(all.events.map((e) => e.eventType)).toEqual([
        'security_settings_changed',
        ...Array<string>(5).fill('incident_reported'),
      ]);
      expect(all.events.slice(1).map((e) => e.id)).toEqual([...ids].reverse());
      expect(all.events[1]).toMatchObject({
        id: ids[4],
        severity: 'low',
        description: 'A low',
        userId,
        ip: client.ip,
        actor: null,
      });
      const times = all.events.map((e) => e.timestamp);
      expect([...times].sort().reverse()).toEqual(times);

      const low = await events(client, '?severity=low');
      expect(low.total).toBe(3);
      expect(low.events.map((e) => e.id)).toEqual([all.events[0]?.id, ids[4], ids[0]]);
      expect((await events(client, '?severity=critical')).events.map((e) => e.id)).toEqual([
        ids[3],
      ]);
      const incidents = await events(client, '?eventType=incident_reported');
      expect(incidents.total).toBe(5);

      const page = await events(client, '?eventType=incident_reported&limit=2&offset=1');
      expect(page).toMatchObject({ total: 5, limit: 2, offset: 1 });
      expect(page.events.map((e) => e.id)).toEqual([ids[3], ids[2]]);
      expect((await events(client, '?offset=6')).events).toEqual([]);

      const today = new Date().toISOString().slice(0, 10);
      const yesterday = new Date(Date.now() - DAY_MS).toISOString().slice(0, 10);
      const tomorrow = new Date(Date.now() + DAY_MS).toISOString().slice(0, 10);
      // A date-only endDate takes in that whole day.
      expect((await events(client, `?startDate=${today}&endDate=${today}`)).total).toBe(6);
      expect((await events(client, `?endDate=${yesterday}`)).total).toBe(0);
      expect((await events(client, `?startDate=${tomorrow}`)).total).toBe(0);
      const second = all.events[4] as SecurityEvent;
      // Both bounds take in the instant itself, and events written within the same millisecond.
      const idsOf = (list: SecurityEvent[]) => list.map((e) => e.id);
      const upTo = await events(client, `?endDate=${encodeURIComponent(second.timestamp)}`);
      expect(idsOf(upTo.events)).toEqual(
        idsOf(all.events.filter((e) => e.timestamp <= second.timestamp)),
      );
      expect(idsOf(upTo.events)).toEqual(expect.arrayContaining(idsOf(all.events.slice(4))));
      const from = await events(client, `?startDate=${encodeURIComponent(second.timestamp)}`);
      expect(idsOf(from.events)).toEqual(
        idsOf(all.events.filter((e) => e.timestamp >= second.timestamp)),
      );
      expect(idsOf(from.events)).toEqual(expect.arrayContaining(idsOf(all.events.slice(0, 5))));
    });

    it('shows a user only their own record; a super admin may ask for another one', async () => {
      const alice = await signedUp('alice');
      const bob = await signedUp('bob');
      await report(alice.client, { description: 'Alice saw something' });
      const bobs = (await events(bob.client)).events;
      expect(bobs.length).toBeGreaterThan(0);
      expect(bobs.every((event) => event.userId === bob.userId)).toBe(true);

      expectError(await bob.client.get(`/api/v1/security/events?userId=${alice.userId}`), 403, {
        message: SECURITY_MESSAGES.otherUsersForbidden,
      });
      // Asking for one's own id is fine.
      const own = await events(alice.client, `?userId=${alice.userId}`);
      expect(own).toEqual(await events(alice.client));
      expect(own.events[0]?.description).toBe('Alice saw something');

      expect(await events(root.client, `?userId=${alice.userId}`)).toEqual(own);
      expect((await events(root.client)).events.map((e) => e.userId)).not.toContain(alice.userId);
    });

    it("names the admin who acted on the account as the event's actor", async () => {
      const target = await signedUp('target');
      const response = await root.client.request({
        method: 'PUT',
        url: `/api/v1/admin/users/${target.userId}/role`,
        payload: { role: 'admin' },
      });
      expect(response.statusCode, response.body).toBe(200);
      // The role change ended the target's sessions: they read their record after signing in.
      const again = await signIn(target.username);
      const [changed] = (await events(again, '?eventType=role_changed')).events;
      expect(changed).toMatchObject({ userId: target.userId, actor: root.username });
      // The admin's own record has what they did to no account in particular.
      const invited = await root.client.post('/api/v1/admin/invitations', {
        role: 'user',
        max_uses: 1,
        expires_in_days: 7,
      });
      expect(invited.statusCode, invited.body).toBe(201);
      const [created] = (await events(root.client, '?eventType=invitation_created')).events;
      expect(created).toMatchObject({ userId: null, actor: root.username });
      expect((await events(again, '?eventType=invitation_created')).total).toBe(0);
    });

    it('answers bad filters with the field message', async () => {
      const { client } = await signedUp('badfilter');
      const cases: [string, string][] = [
        ['severity=urgent', SECURITY_MESSAGES.invalidSeverity],
        ['limit=0', SECURITY_MESSAGES.invalidLimit],
        ['limit=201', SECURITY_MESSAGES.invalidLimit],
        ['limit=abc', SECURITY_MESSAGES.invalidLimit],
        ['offset=-1', SECURITY_MESSAGES.invalidOffset],
        ['startDate=yesterday-ish', SECURITY_MESSAGES.invalidDate],
        ['endDate=2026-13-45', SECURITY_MESSAGES.invalidDate],
      ];
      for (const [query, message] of cases) {
        expectError(await client.get(`/api/v1/security/events?${query}`), 400, {
          message,
          code: 'VALIDATION_ERROR',
        });
      }
      // Dates at the ends of what JavaScript can hold are valid, and match what they should.
      for (const query of ['endDate=%2B275760-09-13', 'startDate=-271821-04-20T00:00:00Z']) {
        const response = await client.get(`/api/v1/security/events?${query}`);
        expect(response.statusCode, response.body).toBe(200);
        expect(dataOf(response, securityEventsResponseSchema).total).toBeGreaterThan(0);
      }
    });
  });

  describe('GET /security/stats', () => {
    it('counts sign-ins, live sessions and the risk of failed sign-ins', async () => {
      const { client, username, userId } = await signedUp('stats');
      expect(await stats(client)).toEqual({
        timeRange: '24h',
        failedLogins: 0,
        successfulLogins: 0,
        activeSessions: 1,
        blockedRequests: 0,
        riskLevel: 'low',
        // inject addresses localhost over plain HTTP: a local install.
        riskReasons: [SECURITY_MESSAGES.riskLocalHttp],
        secureTransport: false,
      });

      await signIn(username);
      await failSignIns(username, 6);
      expect(await stats(client)).toMatchObject({
        failedLogins: 6,
        successfulLogins: 1,
        activeSessions: 2,
        riskLevel: 'medium',
        riskReasons: [SECURITY_MESSAGES.riskLocalHttp, SECURITY_MESSAGES.riskFailedLoginsMedium(6)],
      });

      await failSignIns(username, 5);
      expect(await stats(client, '?timeRange=24h')).toMatchObject({
        failedLogins: 11,
        riskLevel: 'high',
        riskReasons: [
          SECURITY_MESSAGES.riskLocalHttp,
          SECURITY_MESSAGES.riskFailedLoginsThreat(11),
        ],
      });

      // An attempt three days ago counts in the week and the month, not the day.
      await t.db.db
        .insertInto('login_attempts')
        .values({
          login: username,
          user_id: userId,
          ip: '10.1.1.1',
          user_agent: null,
          success: false,
          created_at: new Date(Date.now() - 3 * DAY_MS).toISOString(),
        })
        .execute();
      expect((await stats(client)).failedLogins).toBe(11);
      expect(await stats(client, '?timeRange=7d')).toMatchObject({
        timeRange: '7d',
        failedLogins: 12,
      });
      expect((await stats(client, '?timeRange=30d')).failedLogins).toBe(12);

      expectError(await client.get('/api/v1/security/stats?timeRange=1y'), 400, {
        message: SECURITY_MESSAGES.invalidTimeRange,
      });
    });

    it('is critical over plain HTTP from another host, read through a trusted proxy', async () => {
      const { client } = await signedUp('proxy', 'user', proxied);
      const viaProxy = (proto: string) =>
        client.request({
          method: 'GET',
          url: '/api/v1/security/stats',
          headers: { host: 'perch.example.com', 'x-forwarded-proto': proto },
        });
      expect(dataOf(await viaProxy('http'), securityStatsSchema)).toMatchObject({
        riskLevel: 'critical',
        secureTransport: false,
        riskReasons: [SECURITY_MESSAGES.alertInsecureTransport],
      });
      expect(dataOf(await viaProxy('https'), securityStatsSchema)).toMatchObject({
        riskLevel: 'low',
        secureTransport: true,
        riskReasons: [SECURITY_MESSAGES.riskNoneFound],
      });
    });

    it('does not believe X-Forwarded-Proto without TRUST_PROXY', async () => {
      const { client } = await signedUp('noproxy');
      const response = await client.request({
        method: 'GET',
        url: '/api/v1/security/stats',
        headers: { host: 'perch.example.com', 'x-forwarded-proto': 'https' },
      });
      expect(dataOf(response, securityStatsSchema)).toMatchObject({
        riskLevel: 'critical',
        secureTransport: false,
      });
    });

    it("lets a super admin read another user's stats", async () => {
      const target = await signedUp('statstarget');
      const other = await signedUp('statsother');
      await failSignIns(target.username, 2);
      expect((await stats(root.client, `?userId=${target.userId}`)).failedLogins).toBe(2);
      expectError(await other.client.get(`/api/v1/security/stats?userId=${target.userId}`), 403, {
        message: SECURITY_MESSAGES.otherUsersForbidden,
      });
    });
  });

  describe('sessions', () => {
    it('lists live sessions with opaque ids, devices and the current one flagged', async () => {
      const { client, username } = await signedUp('sess');
      const laptop = await signIn(username, freshIp(), FIREFOX_WINDOWS);
      const list = await sessions(laptop);
      expect(list).toHaveLength(2);
      const current = list.find((s) => s.current);
      expect(current).toMatchObject({
        ip: laptop.ip,
        userAgent: FIREFOX_WINDOWS,
        device: 'Firefox on Windows',
        rememberMe: false,
      });
      expect(list.filter((s) => s.current)).toHaveLength(1);
      expect(list.find((s) => !s.current)).toMatchObject({
        ip: client.ip,
        device: 'Unknown device',
      });

      // The id is neither the cookie nor its stored hash.
      const token = laptop.cookies.get('perch_session') ?? '';
      const storedHash = createHash('sha256').update(token).digest('hex');
      const body = (await laptop.get('/api/v1/security/sessions')).body;
      expect(body).not.toContain(token);
      expect(body).not.toContain(storedHash);
      expect(current?.id).toMatch(/^[0-9a-f]{24}$/);

      const answer = dataOf(
        await laptop.get('/api/v1/security/sessions/current'),
        currentSessionResponseSchema,
      );
      expect(answer.session).toEqual(current);
    });

    it('revokes another session: that client is signed out on its next call', async () => {
      const { client, username, userId } = await signedUp('revoke');
      const phone = await signIn(username, freshIp(), SAFARI_IPHONE);
      const phoneSession = (await sessions(client)).find((s) => !s.current);
      expect(phoneSession?.device).toBe('Safari on iOS');

      const response = await client.delete(`/api/v1/security/sessions/${phoneSession?.id}`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ message: SECURITY_MESSAGES.sessionRevoked });
      expect(setCookieLine(response, 'perch_session')).toBeUndefined();

      expectError(await phone.get('/api/v1/security/sessions'), 401);
      expect((await sessions(client)).map((s) => s.current)).toEqual([true]);
      const [event] = (await events(client, '?eventType=session_revoked')).events;
      expect(event).toMatchObject({
        userId,
        description: expect.stringContaining('Safari on iOS'),
      });

      // Gone already, unknown, or somebody else's: not found.
      const notFound = { message: SECURITY_MESSAGES.sessionNotFound, code: 'SESSION_NOT_FOUND' };
      expectError(
        await client.delete(`/api/v1/security/sessions/${phoneSession?.id}`),
        404,
        notFound,
      );
      expectError(
        await client.delete('/api/v1/security/sessions/0123456789abcdef01234567'),
        404,
        notFound,
      );
      const stranger = await signedUp('stranger');
      const [strangerSession] = await sessions(stranger.client);
      expectError(
        await client.delete(`/api/v1/security/sessions/${strangerSession?.id}`),
        404,
        notFound,
      );
      expect(await sessions(stranger.client)).toHaveLength(1);
    });

    it('revoking the current session signs this client out and clears its cookie', async () => {
      const { client } = await signedUp('self');
      const [own] = await sessions(client);
      const response = await client.delete(`/api/v1/security/sessions/${own?.id}`);
      expect(response.statusCode, response.body).toBe(200);
      expect(setCookieLine(response, 'perch_session')).toMatch(/^perch_session=;/);
      expect(client.cookies.has('perch_session')).toBe(false);
      expectError(await client.get('/api/v1/security/sessions'), 401);
    });

    it('signs out every other session, and says how many', async () => {
      const { client, username, userId } = await signedUp('others');
      const second = await signIn(username);
      const third = await signIn(username);

      const response = await client.post('/api/v1/security/sessions/revoke-others');
      expect(response.statusCode, response.body).toBe(200);
      expect(dataOf(response, revokeOthersResponseSchema)).toEqual({ revoked: 2 });
      expect(response.json()).toMatchObject({
        message: SECURITY_MESSAGES.otherSessionsRevoked(2),
      });
      expect(SECURITY_MESSAGES.otherSessionsRevoked(2)).toBe('Signed out 2 other sessions.');
      for (const other of [second, third]) {
        expectError(await other.get('/api/v1/security/sessions'), 401);
      }
      expect(await sessions(client)).toHaveLength(1);

      await signIn(username);
      const once = await client.post('/api/v1/security/sessions/revoke-others');
      expect(once.json()).toMatchObject({
        message: SECURITY_MESSAGES.otherSessionsRevoked(1),
        data: { revoked: 1 },
      });
      expect(SECURITY_MESSAGES.otherSessionsRevoked(1)).toBe('Signed out 1 other session.');

      const recorded = await events(client, '?eventType=sessions_revoked_others');
      expect(recorded.events.map((e) => [e.userId, e.description])).toEqual([
        [userId, SECURITY_MESSAGES.otherSessionsRevoked(1)],
        [userId, SECURITY_MESSAGES.otherSessionsRevoked(2)],
      ]);
    });
  });

  describe('settings', () => {
    it('answers two-factor state, recovery codes left and the alert switches', async () => {
      const { client, userId } = await signedUp('settings');
      const settings = async () =>
        dataOf(await client.get('/api/v1/security/settings'), securitySettingsSchema);
      expect(await settings()).toEqual({
        twoFactorEnabled: false,
        recoveryCodesRemaining: 0,
        alertOnNewDevice: true,
        alertOnFailedLogins: true,
      });

      const now = new Date().toISOString();
      await t.db.db
        .updateTable('users')
        .set({ totp_enabled_at: now })
        .where('id', '=', userId)
        .execute();
      await t.db.db
        .insertInto('recovery_codes')
        .values(
          ['a', 'b', 'c'].map((code, i) => ({
            user_id: userId,
            code_hash: code,
            used_at: i === 0 ? now : null,
            created_at: now,
          })),
        )
        .execute();
      expect(await settings()).toMatchObject({ twoFactorEnabled: true, recoveryCodesRemaining: 2 });

      const put = (payload: unknown) =>
        client.request({
          method: 'PUT',
          url: '/api/v1/security/settings',
          payload: payload as object,
        });
      const saved = await put({ alertOnFailedLogins: false });
      expect(saved.statusCode, saved.body).toBe(200);
      expect(saved.json()).toMatchObject({ message: SECURITY_MESSAGES.settingsSaved });
      expect(dataOf(saved, securitySettingsSchema)).toMatchObject({
        alertOnNewDevice: true,
        alertOnFailedLogins: false,
      });
      await put({ alertOnNewDevice: false });
      expect(await settings()).toMatchObject({
        alertOnNewDevice: false,
        alertOnFailedLogins: false,
      });
      await put({ alertOnFailedLogins: true });
      expect(await settings()).toMatchObject({
        alertOnNewDevice: false,
        alertOnFailedLogins: true,
      });

      expectError(await put({ alertOnNewDevice: 'no' }), 400, { code: 'VALIDATION_ERROR' });
      expect((await events(client, '?eventType=security_settings_changed')).total).toBe(3);
    });
  });

  describe('POST /security/incidents', () => {
    it('records the report and answers its id', async () => {
      const { client, userId } = await signedUp('incident');
      const response = await client.post('/api/v1/security/incidents', {
        type: 'phishing',
        description: 'A mail asked for my password',
        severity: 'high',
      });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json()).toMatchObject({ message: SECURITY_MESSAGES.incidentReported });
      const { id } = dataOf(response, incidentResponseSchema);
      const [event] = (await events(client)).events;
      expect(event).toMatchObject({
        id,
        eventType: 'incident_reported',
        severity: 'high',
        description: 'A mail asked for my password',
        userId,
      });
      // Type and severity have defaults.
      await report(client, { description: 'Something else' });
      expect((await events(client)).events[0]).toMatchObject({ severity: 'medium' });

      for (const description of [undefined, '', '   ', 'x'.repeat(2001)]) {
        expectError(await client.post('/api/v1/security/incidents', { description }), 400, {
          message: SECURITY_MESSAGES.incidentDescriptionRequired,
        });
      }
      expectError(
        await client.post('/api/v1/security/incidents', { description: 'x', severity: 'huge' }),
        400,
        { message: SECURITY_MESSAGES.invalidSeverity },
      );
    });
  });

  describe('GET /security/login-history', () => {
    it("lists the account's sign-in attempts, newest first", async () => {
      const { client, username, userId } = await signedUp('history');
      const ip = freshIp();
      await signIn(username, ip, FIREFOX_WINDOWS);
      await failSignIns(username, 2);
      const history = async (query = '', as = client) =>
        dataOf(await as.get(`/api/v1/security/login-history${query}`), loginHistoryResponseSchema)
          .entries;
      const entries = await history();
      expect(entries.map((e) => e.success)).toEqual([false, false, true]);
      expect(entries[2]).toMatchObject({
        ip,
        userAgent: FIREFOX_WINDOWS,
        device: 'Firefox on Windows',
      });
      expect(await history('?limit=1')).toEqual(entries.slice(0, 1));

      expect(await history(`?userId=${userId}`, root.client)).toEqual(entries);
      const other = await signedUp('historyother');
      expect(await history('', other.client)).toEqual([]);
      expectError(await other.client.get(`/api/v1/security/login-history?userId=${userId}`), 403, {
        message: SECURITY_MESSAGES.otherUsersForbidden,
      });
      expectError(await client.get('/api/v1/security/login-history?limit=0'), 400, {
        message: SECURITY_MESSAGES.invalidLimit,
      });
    });
  });

  describe('GET /security/suspicious-activity', () => {
    it('has no alerts for a quiet account on a local install', async () => {
      const { client } = await signedUp('quiet');
      expect(await alerts(client)).toEqual({ hasAlerts: false, alerts: [] });
    });

    it('raises repeated failed sign-ins, with an id that holds until the next failure', async () => {
      const { client, username } = await signedUp('failing');
      await failSignIns(username, SUSPICIOUS_FAILED_LOGINS - 1);
      expect((await alerts(client)).hasAlerts).toBe(false);
      await failSignIns(username, 1);
      const first = await alerts(client);
      expect(first.hasAlerts).toBe(true);
      expect(first.alerts).toEqual([
        expect.objectContaining({
          type: 'repeated_failed_logins',
          severity: 'medium',
          message: SECURITY_MESSAGES.alertRepeatedFailures(SUSPICIOUS_FAILED_LOGINS),
        }),
      ]);
      expect((await alerts(client)).alerts[0]?.id).toBe(first.alerts[0]?.id);
      await failSignIns(username, 1);
      const next = (await alerts(client)).alerts[0];
      expect(next?.id).not.toBe(first.alerts[0]?.id);
      expect(next?.message).toBe(
        SECURITY_MESSAGES.alertRepeatedFailures(SUSPICIOUS_FAILED_LOGINS + 1),
      );

      await client.request({
        method: 'PUT',
        url: '/api/v1/security/settings',
        payload: { alertOnFailedLogins: false },
      });
      expect(await alerts(client)).toEqual({ hasAlerts: false, alerts: [] });
    });

    it('raises a sign-in from a device and IP not seen before', async () => {
      const { client, username } = await signedUp('newdevice');
      const home = freshIp();
      await signIn(username, home, CHROME_LINUX);
      // The first sign-in has nothing to compare with; the same device and IP again is known.
      expect((await alerts(client)).alerts.map((a) => a.type)).not.toContain('new_device');
      await signIn(username, home, CHROME_LINUX.replace('126.0', '127.0'));
      expect((await alerts(client)).alerts.map((a) => a.type)).not.toContain('new_device');

      const away = freshIp();
      await signIn(username, away, FIREFOX_WINDOWS);
      const [alert] = (await alerts(client)).alerts.filter((a) => a.type === 'new_device');
      expect(alert).toMatchObject({
        severity: 'medium',
        message: SECURITY_MESSAGES.alertNewDevice('Firefox on Windows', away),
      });
      expect(SECURITY_MESSAGES.alertNewDevice('Firefox on Windows', away)).toBe(
        `New sign-in from Firefox on Windows at ${away}.`,
      );

      // A known device from a new IP is new too.
      await signIn(username, freshIp(), CHROME_LINUX);
      const again = (await alerts(client)).alerts.filter((a) => a.type === 'new_device');
      expect(again).toHaveLength(1);
      expect(again[0]?.id).not.toBe(alert?.id);

      await client.request({
        method: 'PUT',
        url: '/api/v1/security/settings',
        payload: { alertOnNewDevice: false },
      });
      expect((await alerts(client)).alerts.map((a) => a.type)).not.toContain('new_device');
    });

    it('raises live sessions from many IPs at once', async () => {
      const { client, username } = await signedUp('manyips');
      for (let i = 1; i < SUSPICIOUS_DISTINCT_IPS - 1; i++) await signIn(username);
      expect((await alerts(client)).alerts.map((a) => a.type)).not.toContain('many_ips');
      await signIn(username);
      const [alert] = (await alerts(client)).alerts.filter((a) => a.type === 'many_ips');
      expect(alert).toMatchObject({
        message: SECURITY_MESSAGES.alertManyIps(SUSPICIOUS_DISTINCT_IPS),
      });
      expect((await alerts(client)).alerts.find((a) => a.type === 'many_ips')?.id).toBe(alert?.id);
    });

    it('raises plain HTTP from another host as critical, first', async () => {
      const { client, username } = await signedUp('insecure');
      await failSignIns(username, SUSPICIOUS_FAILED_LOGINS);
      const found = await alerts(client, { host: 'perch.example.com' });
      expect(found.alerts.map((a) => [a.type, a.severity])).toEqual([
        ['insecure_transport', 'critical'],
        ['repeated_failed_logins', 'medium'],
      ]);
      expect(found.alerts[0]).toMatchObject({
        id: 'insecure_transport',
        message: SECURITY_MESSAGES.alertInsecureTransport,
      });
    });
  });

  describe('GET /security/export', () => {
    /** What a CSV cell holds for a value of the JSON export: text, with formulas defused. */
    const cellOf = (value: string | number | null) => {
      const text = value === null ? '' : String(value);
      return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
    };

    it('downloads the record as JSON and as CSV, and the CSV reads back as the JSON', async () => {
      const { client, userId } = await signedUp('export');
      await clearRecord(userId);
      const tricky = [
        'Saw "odd" sign-ins, twice,\nthen a lockout; see: a, b',
        '=HYPERLINK("http://evil.example","click")',
        '-2+3',
        '@SUM(A1:A2)',
        '+1 line\r\nand a CRLF',
        'plain text',
      ];
      for (const description of tricky) await report(client, { type: 'other', description });
      await client.request({
        method: 'PUT',
        url: '/api/v1/security/settings',
        payload: { alertOnNewDevice: false },
        headers: { 'user-agent': 'Agent, "quoted"' },
      });

      const today = new Date().toISOString().slice(0, 10);
      const json = await client.get('/api/v1/security/export?format=json');
      expect(json.statusCode, json.body).toBe(200);
      expect(json.headers['content-type']).toMatch(/^application\/json/);
      expect(json.headers['content-disposition']).toBe(
        `attachment; filename="perch-security-${today}.json"`,
      );
      const exported = securityExportSchema.strict().parse(JSON.parse(json.body));
      expect(exported.userId).toBe(userId);
      expect(exported.events).toEqual((await events(client)).events);
      expect(exported.events.map((e) => e.description).slice(1)).toEqual([...tricky].reverse());
      // JSON is the default format.
      expect((await client.get('/api/v1/security/export')).headers['content-disposition']).toMatch(
        /\.json"$/,
      );

      const csv = await client.get('/api/v1/security/export?format=csv');
      expect(csv.statusCode, csv.body).toBe(200);
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      expect(csv.headers['content-disposition']).toBe(
        `attachment; filename="perch-security-${today}.csv"`,
      );
      expect(csv.body).toContain('"Saw ""odd"" sign-ins, twice,\nthen a lockout; see: a, b"');
      expect(csv.body).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`);

      const rows = parse(csv.body, { relax_column_count: false }) as string[][];
      expect(rows[0]).toEqual([...SECURITY_EXPORT_COLUMNS]);
      expect(rows.slice(1)).toEqual(
        exported.events.map((event) =>
          SECURITY_EXPORT_COLUMNS.map((column) => cellOf(event[column])),
        ),
      );
    });

    it("lets a super admin export another user's record", async () => {
      const target = await signedUp('exporttarget');
      await clearRecord(target.userId);
      await report(target.client, { description: 'Exported by an admin' });
      const response = await root.client.get(`/api/v1/security/export?userId=${target.userId}`);
      const exported = securityExportSchema.parse(JSON.parse(response.body));
      expect(exported.userId).toBe(target.userId);
      expect(exported.events.map((e) => e.description)).toEqual(['Exported by an admin']);

      const other = await signedUp('exportother');
      expectError(await other.client.get(`/api/v1/security/export?userId=${target.userId}`), 403, {
        message: SECURITY_MESSAGES.otherUsersForbidden,
      });
      expectError(await other.client.get('/api/v1/security/export?format=xml'), 400, {
        message: SECURITY_MESSAGES.invalidFormat,
      });
    });
  });

  describe('refused requests', () => {
    it('records a CSRF refusal and a 429 on the account, and counts them as blocked', async () => {
      const { client, username, userId } = await signedUp('refused');
      const refused = await client.request({
        method: 'POST',
        url: '/api/v1/security/sessions/revoke-others',
        csrf: false,
        headers: { 'user-agent': 'Sneaky/1.0' },
      });
      expectError(refused, 403, { code: 'CSRF_INVALID' });
      const [csrfEvent] = (await events(client, '?eventType=csrf_refused')).events;
      expect(csrfEvent).toMatchObject({
        severity: 'medium',
        ip: client.ip,
        userAgent: 'Sneaky/1.0',
        userId,
        description: expect.stringContaining('/api/v1/security/sessions/revoke-others'),
      });

      // Five wrong passwords from one IP lock the name there: the sixth try is a 429.
      for (let i = 0; i < 5; i++) {
        await client.post('/api/v1/auth/login', { username, password: 'Wrong-password-1' });
      }
      const limited = await client.post('/api/v1/auth/login', {
        username,
        password: TEST_PASSWORD,
      });
      expect(limited.statusCode, limited.body).toBe(429);
      const [limitEvent] = (await events(client, '?eventType=rate_limited')).events;
      expect(limitEvent).toMatchObject({ severity: 'low', ip: client.ip, userId });

      expect((await stats(client)).blockedRequests).toBe(2);
    });

    it('records refusals without a session with no account', async () => {
      const anonymous = new TestClient(t.app, freshIp());
      const response = await anonymous.request({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: 'x', password: 'y' },
        csrf: false,
      });
      expectError(response, 403, { code: 'CSRF_INVALID' });
      const rows = (await eventRows('csrf_refused')).filter((row) => row.ip === anonymous.ip);
      expect(rows).toMatchObject([{ user_id: null, severity: 'medium' }]);
    });

    it(`writes at most ${REFUSAL_EVENTS_PER_MINUTE} refusals per IP and type a minute`, async () => {
      const flooder = new TestClient(t.app, freshIp());
      for (let i = 0; i < REFUSAL_EVENTS_PER_MINUTE + 5; i++) {
        const response = await flooder.request({
          method: 'POST',
          url: '/api/v1/auth/logout',
          csrf: false,
        });
        expect(response.statusCode).toBe(403);
      }
      const rows = (await eventRows('csrf_refused')).filter((row) => row.ip === flooder.ip);
      expect(rows).toHaveLength(REFUSAL_EVENTS_PER_MINUTE);
    });
  });
});
