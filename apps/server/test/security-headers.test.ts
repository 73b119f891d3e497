import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TOTP_DIGITS,
  TOTP_PERIOD_SECONDS,
  authCookieNames,
  loginResultSchema,
  twoFactorResponseSchema,
} from '@perch/shared';
import { buildApp } from '../src/app.js';
import { cookieAttributes, dataOf, setCookieLine } from './assertions.js';
import {
  DIALECTS,
  TEST_PASSWORD,
  TestClient,
  createTestDb,
  inviteCode,
  type TestDb,
} from './helpers.js';

const YEAR_SECONDS = 365 * 24 * 60 * 60;

/** A built SPA in miniature: the page and one fingerprinted asset with its compressed copy. */
function writeWebDist(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-web-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><html><head><script type="module" src="/dashboard/assets/app-abc123.js"></script></head><body></body></html>',
  );
  fs.writeFileSync(path.join(dir, 'assets/app-abc123.js'), 'console.log("perch");');
  fs.writeFileSync(path.join(dir, 'assets/app-abc123.js.gz'), 'not really gzip');
  return dir;
}

/** The directives of a Content-Security-Policy header, by name. */
function cspDirectives(response: LightMyRequestResponse): Map<string, string> {
  const header = String(response.headers['content-security-policy'] ?? '');
  return new Map(
    header
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const [name = '', ...values] = part.split(/\s+/);
        return [name, values.join(' ')] as const;
      }),
  );
}

function expectHsts(response: LightMyRequestResponse, secure: boolean) {
  const hsts = response.headers['strict-transport-security'];
  if (!secure) {
    expect(hsts).toBeUndefined();
    return;
  }
  const maxAge = Number(/max-age=(\d+)/.exec(String(hsts))?.[1]);
  expect(maxAge, String(hsts)).toBeGreaterThanOrEqual(YEAR_SECONDS);
  expect(String(hsts)).toContain('includeSubDomains');
}

/** JSON answers: nothing may load, frame or sniff them. */
function expectApiHeaders(response: LightMyRequestResponse, secure: boolean) {
  const csp = cspDirectives(response);
  expect(csp.get('default-src'), response.body).toBe("'none'");
  expect(csp.get('frame-ancestors')).toBe("'none'");
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['x-frame-options']).toBe('DENY');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
  expect(response.headers['x-powered-by']).toBeUndefined();
  expectHsts(response, secure);
}

/** The SPA's pages and files: scripts from our origin only, never framed. */
function expectDocumentHeaders(response: LightMyRequestResponse, secure: boolean) {
  const csp = cspDirectives(response);
  expect(csp.get('default-src')).toBe("'self'");
  expect(csp.get('script-src')).toBe("'self'");
  expect(csp.get('object-src')).toBe("'none'");
  expect(csp.get('frame-ancestors')).toBe("'none'");
  expect(csp.get('base-uri')).toBe("'self'");
  expect(csp.get('form-action')).toBe("'self'");
  expect(csp.has('upgrade-insecure-requests')).toBe(secure);
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(['DENY', 'SAMEORIGIN']).toContain(response.headers['x-frame-options']);
  expect(response.headers['referrer-policy']).toBe('no-referrer');
  expect(response.headers['cross-origin-opener-policy']).toBe('same-origin');
  expect(response.headers['x-powered-by']).toBeUndefined();
  expectHsts(response, secure);
}

/** The flags of a cookie as the response sets it; fails when the response does not set it. */
function cookieFlags(response: LightMyRequestResponse, name: string): Record<string, string> {
  const line = setCookieLine(response, name);
  expect(line, `${name} in ${JSON.stringify(response.headers['set-cookie'])}`).toBeDefined();
  return cookieAttributes(line ?? '');
}

/** The current RFC 6238 code of a base32 secret, as an authenticator app shows it. */
function totp(secret: string, at = Date.now()): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...secret.replace(/[\s=]/g, '').toUpperCase()]
    .map((char) => alphabet.indexOf(char).toString(2).padStart(5, '0'))
    .join('');
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 1000 / TOTP_PERIOD_SECONDS)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0xf;
  const code = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** TOTP_DIGITS;
  return String(code).padStart(TOTP_DIGITS, '0');
}

describe.each(DIALECTS)('security headers and cookie flags [%s]', (dialect) => {
  describe.each([{ secure: false }, { secure: true }])('COOKIE_SECURE=$secure', ({ secure }) => {
    // With COOKIE_SECURE the session and CSRF cookies are __Host- cookies.
    const names = authCookieNames(secure);
    let db: TestDb;
    let app: FastifyInstance;
    let webDist: string;
    let userCount = 0;

    beforeAll(async () => {
      db = await createTestDb(dialect, { COOKIE_SECURE: String(secure) });
      webDist = writeWebDist();
      app = await buildApp({ config: db.config, db, logger: false, webDist });
      await app.ready();
    });

    afterAll(async () => {
      await app?.close();
      await db?.dispose();
      fs.rmSync(webDist, { recursive: true, force: true });
    });

    /** Registers through the API; answers the client (signed in) and the registration answer. */
    async function registered(prefix: string) {
      const client = new TestClient(app, `10.88.${secure ? 1 : 0}.${++userCount}`);
      const username = `${prefix}_${secure ? 's' : 'p'}${userCount}`;
      const response = await client.post('/api/v1/auth/register', {
        username,
        email: `${username}@example.com`,
        password: TEST_PASSWORD,
        confirmPassword: TEST_PASSWORD,
        invitationCode: await inviteCode(db),
        acceptTerms: true,
        acceptPrivacy: true,
      });
      expect(response.statusCode, response.body).toBe(201);
      return { client, username, response };
    }

    it('sends the API header set on answers of every kind', async () => {
      const client = new TestClient(app);
      const responses = [
        await client.get('/api/v1/health'),
        await client.get('/api/v1/auth/check'),
        await client.get('/api/v1/handles'),
        await client.request({ method: 'POST', url: '/api/v1/auth/login', csrf: false }),
        await client.post('/api/v1/auth/login', { username: 42 }),
        await client.get('/api/v1/nope'),
        // Errors of the router itself, answered before any hook runs.
        await client.get('/api/v1/handles/%E0%A4%A/tweets'),
        await client.get(`/api/v1/handles/${'a'.repeat(200)}/tweets`),
      ];
      expect(responses.map((response) => response.statusCode)).toEqual([
        200, 200, 401, 403, 400, 404, 400, 414,
      ]);
      for (const response of responses) expectApiHeaders(response, secure);
    });

    it('sends the document policy on the SPA page, its deep links and the / redirect', async () => {
      for (const url of ['/', '/dashboard/', '/dashboard/settings', '/dashboard/admin?tab=x']) {
        const response = await app.inject({ url });
        expect([200, 302], url).toContain(response.statusCode);
        expectDocumentHeaders(response, secure);
      }
    });

    it('sends the document policy on the API docs (Swagger UI) and their OpenAPI document', async () => {
      for (const url of ['/api/docs/', '/api/docs/json']) {
        const response = await app.inject({ url });
        expect(response.statusCode, url).toBe(200);
        expectDocumentHeaders(response, secure);
      }
    });

    it('sends the document header set on static assets, compressed or not', async () => {
      for (const encoding of ['identity', 'gzip']) {
        const response = await app.inject({
          url: '/dashboard/assets/app-abc123.js',
          headers: { 'accept-encoding': encoding },
        });
        expect(response.statusCode).toBe(200);
        expect(String(response.headers['content-type'])).toMatch(/javascript/);
        expectDocumentHeaders(response, secure);
      }
    });

    it('perch_csrf: readable by the page (not HttpOnly), SameSite=Lax, Path=/', async () => {
      const flags = cookieFlags(await app.inject({ url: '/api/v1/auth/check' }), names.csrf);
      expect(flags).not.toHaveProperty('httponly');
      expect(flags.samesite?.toLowerCase()).toBe('lax');
      expect(flags.path).toBe('/');
      expect('secure' in flags).toBe(secure);
    });

    it('perch_session: HttpOnly, SameSite=Lax, Path=/ when registering, signing in and out', async () => {
      const { client, username, response } = await registered('cookie');
      const expectSessionFlags = (flags: Record<string, string>) => {
        expect(flags).toHaveProperty('httponly');
        expect(flags.samesite?.toLowerCase()).toBe('lax');
        expect(flags.path).toBe('/');
        expect('secure' in flags).toBe(secure);
      };

      const onRegister = cookieFlags(response, names.session);
      expectSessionFlags(onRegister);

      const signIn = await client.post('/api/v1/auth/login', { username, password: TEST_PASSWORD });
      expect(signIn.statusCode, signIn.body).toBe(200);
      const browserSession = cookieFlags(signIn, names.session);
      expectSessionFlags(browserSession);
      // Without remember-me the cookie ends with the browser session.
      expect(browserSession).not.toHaveProperty('expires');
      expect(browserSession).not.toHaveProperty('max-age');

      const remembered = await client.post('/api/v1/auth/login', {
        username,
        password: TEST_PASSWORD,
        rememberMe: true,
      });
      const rememberedFlags = cookieFlags(remembered, names.session);
      expectSessionFlags(rememberedFlags);
      const days = (Date.parse(rememberedFlags.expires ?? '') - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(29);
      expect(days).toBeLessThanOrEqual(30);

      const signOut = await client.post('/api/v1/auth/logout');
      expect(signOut.statusCode, signOut.body).toBe(200);
      const cleared = cookieFlags(signOut, names.session);
      expectSessionFlags(cleared);
      expect(Date.parse(cleared.expires ?? '')).toBeLessThan(Date.now());
    });

    // perch_2fa holds a password already accepted while the second step is pending: it must be
    // as closed as the session cookie, sent only to the sign-in routes, and short-lived.
    it('perch_2fa (pending two-factor sign-in): HttpOnly, SameSite=Lax, only for /api/v1/auth, minutes long', async () => {
      const { client, username } = await registered('twofa');
      const start = await client.post('/api/v1/security/2fa', { enabled: true });
      const { totpSecret } = dataOf(start, twoFactorResponseSchema);
      if (!totpSecret) throw new Error(`no secret in ${start.body}`);
      const enable = await client.post('/api/v1/security/2fa', {
        enabled: true,
        totpSecret,
        code: totp(totpSecret),
      });
      const { recoveryCodes } = dataOf(enable, twoFactorResponseSchema);
      const recoveryCode = recoveryCodes?.[0];
      if (!recoveryCode) throw new Error(`no recovery codes in ${enable.body}`);

      const browser = new TestClient(app, `10.88.2.${userCount}`);
      const signIn = await browser.post('/api/v1/auth/login', {
        username,
        password: TEST_PASSWORD,
      });
      const result = dataOf(signIn, loginResultSchema);
      expect(result).toMatchObject({ requires2fa: true });
      expect(setCookieLine(signIn, names.session)).toBeUndefined();
      const pending = cookieFlags(signIn, 'perch_2fa');
      expect(pending).toHaveProperty('httponly');
      expect(pending.samesite?.toLowerCase()).toBe('lax');
      expect(pending.path).toBe('/api/v1/auth');
      expect('secure' in pending).toBe(secure);
      const maxAge = Number(pending['max-age']);
      expect(maxAge).toBeGreaterThan(0);
      expect(maxAge).toBeLessThanOrEqual(15 * 60);

      // The code just used to switch it on cannot be used again, so finish with a recovery code.
      const second = await browser.post('/api/v1/auth/login/2fa', { code: recoveryCode });
      expect(second.statusCode, second.body).toBe(200);
      const session = cookieFlags(second, names.session);
      expect(session).toHaveProperty('httponly');
      expect(session.path).toBe('/');
      const cleared = cookieFlags(second, 'perch_2fa');
      expect(cleared.path).toBe('/api/v1/auth');
      expect(Date.parse(cleared.expires ?? '')).toBeLessThan(Date.now());
    });
  });
});
