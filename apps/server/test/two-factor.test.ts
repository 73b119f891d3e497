import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MESSAGES,
  RECOVERY_CODE_COUNT,
  SECURITY_MESSAGES,
  TWO_FACTOR_COOKIE,
  authCheckResponseSchema,
  loginResponseSchema,
  loginResultSchema,
  loginTwoFactorChallengeSchema,
  requiresTwoFactor,
  twoFactorResponseSchema,
} from '@perch/shared';
import {
  cookieAttributes,
  cookieValue,
  dataOf,
  expectError,
  representedEvents,
  setCookieLine,
} from './assertions.js';
import { DIALECTS, TEST_PASSWORD, TestClient, buildTestApp, type TestApp } from './helpers.js';
import { sha256, signedInUser, wrongTotpCode } from './seed.js';

const API = '/api/v1';
const AGENT = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0';

/** The code an authenticator app shows now for `secret`. */
const currentCode = (secret: string) => generate({ secret });

describe.each(DIALECTS)('two-factor sign-in [%s]', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(dialect);
  });
  afterAll(() => t.close());

  /** A fresh user, signed in on a new client. */
  const signedIn = (prefix: string, ip = '10.40.0.1') => signedInUser(t, prefix, { ip });

  const twoFactor = (client: TestClient, body: Record<string, unknown>) =>
    client.request({
      method: 'POST',
      url: `${API}/security/2fa`,
      payload: body,
      headers: { 'user-agent': AGENT },
    });

  /** Turns two-factor sign-in on for the client's user. */
  async function enable(client: TestClient) {
    const started = dataOf(await twoFactor(client, { enabled: true }), twoFactorResponseSchema);
    const secret = started.totpSecret ?? '';
    const code = await currentCode(secret);
    const response = await twoFactor(client, { enabled: true, totpSecret: secret, code });
    expect(response.statusCode, response.body).toBe(200);
    return {
      secret,
      code,
      recoveryCodes: dataOf(response, twoFactorResponseSchema).recoveryCodes ?? [],
    };
  }

  /** A user with two-factor sign-in on. */
  async function enrolled(prefix: string, ip = '10.40.0.1') {
    const user = await signedIn(prefix, ip);
    return { ...user, ...(await enable(user.client)) };
  }

  const login = (client: TestClient, username: string, extra: Record<string, unknown> = {}) =>
    client.request({
      method: 'POST',
      url: `${API}/auth/login`,
      payload: { username, password: TEST_PASSWORD, ...extra },
      headers: { 'user-agent': AGENT },
    });
  const secondStep = (client: TestClient, code: unknown) =>
    client.request({
      method: 'POST',
      url: `${API}/auth/login/2fa`,
      payload: { code },
      headers: { 'user-agent': AGENT },
    });

  /** A new client past the password step of `username`. */
  async function pastPassword(username: string, ip = '10.40.1.1', extra = {}) {
    const client = new TestClient(t.app, ip);
    const response = await login(client, username, extra);
    expect(response.statusCode, response.body).toBe(200);
    expect(requiresTwoFactor(dataOf(response, loginResultSchema))).toBe(true);
    return { client, response };
  }

  const authCheck = async (client: TestClient) =>
    dataOf(await client.get(`${API}/auth/check`), authCheckResponseSchema);
  const userRow = (id: number) =>
    t.db.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const eventsOf = (userId: number, type: string) =>
    t.db.db
      .selectFrom('security_events')
      .selectAll()
      .where('user_id', '=', userId)
      .where('event_type', '=', type)
      .orderBy('id')
      .execute();
  const attemptsOf = (userId: number) =>
    t.db.db
      .selectFrom('login_attempts')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  const pendingOf = (userId: number) =>
    t.db.db.selectFrom('pending_logins').selectAll().where('user_id', '=', userId).execute();
  /** Forgets the last TOTP step used, so the test may use the current code once more. */
  const forgetLastStep = (userId: number) =>
    t.db.db.updateTable('users').set({ totp_last_step: null }).where('id', '=', userId).execute();

  /** Everything the server keeps about sign-ins and security: codes must appear nowhere. */
  async function storedRecords(): Promise<string> {
    const [events, attempts, users, codes, pending] = await Promise.all([
      t.db.db.selectFrom('security_events').selectAll().execute(),
      t.db.db.selectFrom('login_attempts').selectAll().execute(),
      t.db.db.selectFrom('users').selectAll().execute(),
      t.db.db.selectFrom('recovery_codes').selectAll().execute(),
      t.db.db.selectFrom('pending_logins').selectAll().execute(),
    ]);
    return JSON.stringify({ events, attempts, users, codes, pending });
  }

  describe('set-up', () => {
    it('issues a secret with its otpauth URL and QR code, keeping it sealed until confirmed', async () => {
      const { client, username, userId } = await signedIn('setup');
      const response = await twoFactor(client, { enabled: true });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ message: SECURITY_MESSAGES.twoFactorSetupStarted });
      const data = dataOf(response, twoFactorResponseSchema);
      expect(data.status).toBe('pending');
      expect(data.recoveryCodes).toBeUndefined();
      const secret = data.totpSecret ?? '';
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);

      expect(data.otpauthUrl?.startsWith(`otpauth://totp/Perch:${username}?`)).toBe(true);
      const url = new URL(data.otpauthUrl ?? '');
      expect(url.searchParams.get('secret')).toBe(secret);
      expect(url.searchParams.get('issuer')).toBe('Perch');

      const [header = '', base64 = ''] = (data.qrCodeDataUrl ?? '').split(',');
      expect(header).toBe('data:image/png;base64');
      const png = Buffer.from(base64, 'base64');
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');

      const row = await userRow(userId);
      expect(row.totp_secret).toBeNull();
      expect(row.totp_enabled_at).toBeNull();
      expect(row.totp_pending_secret).toBeTruthy();
      expect(row.totp_pending_secret).not.toContain(secret);
    });

    it('refuses a missing code, a wrong code and a secret it did not issue', async () => {
      const { client, userId } = await signedIn('refuse');
      const first = dataOf(await twoFactor(client, { enabled: true }), twoFactorResponseSchema);
      const secret = first.totpSecret ?? '';

      expectError(await twoFactor(client, { enabled: true, totpSecret: secret }), 400, {
        message: SECURITY_MESSAGES.twoFactorCodeRequired,
        code: 'TWO_FACTOR_CODE_REQUIRED',
      });
      expectError(await twoFactor(client, { enabled: true, totpSecret: secret, code: '  ' }), 400, {
        message: SECURITY_MESSAGES.twoFactorCodeRequired,
      });
      for (const code of [await wrongTotpCode(secret), 'abcdef', '12345', '1234567']) {
        expectError(await twoFactor(client, { enabled: true, totpSecret: secret, code }), 400, {
          message: SECURITY_MESSAGES.twoFactorCodeInvalid,
          code: 'TWO_FACTOR_CODE_INVALID',
        });
      }
      const code = await currentCode(secret);
      expectError(
        await twoFactor(client, {
          enabled: true,
          totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
          code,
        }),
        400,
        { message: SECURITY_MESSAGES.twoFactorSecretMismatch, code: 'TWO_FACTOR_SECRET_MISMATCH' },
      );
      expectError(await twoFactor(client, { enabled: true, code }), 400, {
        message: SECURITY_MESSAGES.twoFactorSecretMismatch,
      });

      // Starting again replaces the secret: the first one no longer confirms.
      const second = dataOf(await twoFactor(client, { enabled: true }), twoFactorResponseSchema);
      expect(second.totpSecret).not.toBe(secret);
      expectError(await twoFactor(client, { enabled: true, totpSecret: secret, code }), 400, {
        message: SECURITY_MESSAGES.twoFactorSecretMismatch,
      });
      expect((await userRow(userId)).totp_secret).toBeNull();

      // A user who never started a set-up has nothing to confirm.
      const other = await signedIn('refuse_none');
      expectError(await twoFactor(other.client, { enabled: true, totpSecret: secret, code }), 400, {
        message: SECURITY_MESSAGES.twoFactorSecretMismatch,
      });
    });

    it('turns it on with a right code and answers the recovery codes once', async () => {
      const { client, userId } = await signedIn('enable');
      const started = dataOf(await twoFactor(client, { enabled: true }), twoFactorResponseSchema);
      const secret = started.totpSecret ?? '';
      const code = await currentCode(secret);
      // People paste secrets with spaces and in lower case.
      const pasted = secret.toLowerCase().replace(/(.{4})/g, '$1 ');
      const response = await twoFactor(client, { enabled: true, totpSecret: pasted, code });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ message: SECURITY_MESSAGES.twoFactorEnabled });
      const data = dataOf(response, twoFactorResponseSchema);
      expect(data.status).toBe('enabled');
      expect(data.totpSecret).toBeUndefined();
      const codes = data.recoveryCodes ?? [];
      expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
      expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
      for (const recoveryCode of codes)
        expect(recoveryCode).toMatch(/^([0-9A-Z]{4}-){3}[0-9A-Z]{4}$/);

      const row = await userRow(userId);
      expect(row.totp_secret).toBeTruthy();
      expect(row.totp_secret).not.toContain(secret);
      expect(row.totp_pending_secret).toBeNull();
      expect(Date.parse(row.totp_enabled_at ?? '')).toBeGreaterThan(Date.now() - 60_000);

      const stored = await t.db.db
        .selectFrom('recovery_codes')
        .selectAll()
        .where('user_id', '=', userId)
        .execute();
      expect(stored.map((r) => r.code_hash).sort()).toEqual(
        codes.map((c) => sha256(c.replace(/-/g, ''))).sort(),
      );
      expect(stored.every((r) => r.used_at === null)).toBe(true);

      const [event, ...more] = await eventsOf(userId, 'two_factor_enabled');
      expect(more).toHaveLength(0);
      expect(event).toMatchObject({ severity: 'high', ip: '10.40.0.1', user_agent: AGENT });

      // Once on, it cannot be set up again; the recovery codes are never shown again.
      for (const body of [{ enabled: true }, { enabled: true, totpSecret: secret, code }]) {
        expectError(await twoFactor(client, body), 409, {
          message: SECURITY_MESSAGES.twoFactorAlreadyEnabled,
          code: 'TWO_FACTOR_ALREADY_ENABLED',
        });
      }

      const records = await storedRecords();
      for (const plain of [secret, ...codes, ...codes.map((c) => c.replace(/-/g, ''))]) {
        expect(records).not.toContain(plain);
      }
    });

    it('needs a signed-in user and a CSRF token', async () => {
      const stranger = new TestClient(t.app, '10.40.0.9');
      expectError(await twoFactor(stranger, { enabled: true }), 401, {
        message: MESSAGES.notAuthenticated,
      });
      const { client } = await signedIn('csrf');
      const forged = await client.request({
        method: 'POST',
        url: `${API}/security/2fa`,
        payload: { enabled: true },
        csrf: false,
      });
      expectError(forged, 403, { code: 'CSRF_INVALID' });
      expectError(await twoFactor(client, { enabled: 'yes' }), 400, {
        message: 'enabled must be true or false.',
      });
    });
  });

  describe('sign-in', () => {
    it('asks for the code after the password and opens no session before it', async () => {
      const { username, userId, secret } = await enrolled('signin');
      await forgetLastStep(userId);
      const attemptsBefore = (await attemptsOf(userId)).length;
      const { client, response } = await pastPassword(username, '10.40.1.1', {
        rememberMe: true,
        deviceInfo: { userAgent: 'Perch test browser' },
      });
      expect(response.json()).toMatchObject({ message: SECURITY_MESSAGES.twoFactorRequired });
      expect(dataOf(response, loginTwoFactorChallengeSchema)).toEqual({
        requires2fa: true,
        message: SECURITY_MESSAGES.twoFactorRequired,
      });
      expect(setCookieLine(response, 'perch_session')).toBeUndefined();
      const line = setCookieLine(response, TWO_FACTOR_COOKIE) ?? '';
      const attributes = cookieAttributes(line);
      expect(attributes).toHaveProperty('httponly');
      expect(attributes.path).toBe('/api/v1/auth');
      expect(attributes.samesite?.toLowerCase()).toBe('lax');
      expect(attributes['max-age']).toBe('300');
      expect(attributes).not.toHaveProperty('secure');

      // Signed out until the code comes; only a hash of the cookie is stored.
      expect(await authCheck(client)).toMatchObject({ authenticated: false });
      expect(client.cookies.has('perch_session')).toBe(false);
      const [pending, ...others] = await pendingOf(userId);
      expect(others).toHaveLength(0);
      expect(pending).toMatchObject({
        id: sha256(cookieValue(line)),
        ip: '10.40.1.1',
        user_agent: 'Perch test browser',
        attempts: 0,
      });
      expect(Boolean(pending?.remember_me)).toBe(true);
      expect(Date.parse(pending?.expires_at ?? '') - Date.now()).toBeGreaterThan(4 * 60_000);
      expect(Date.parse(pending?.expires_at ?? '') - Date.now()).toBeLessThanOrEqual(5 * 60_000);
      expect(await attemptsOf(userId)).toHaveLength(attemptsBefore);
      expect(await eventsOf(userId, 'login_success')).toHaveLength(0);

      const before = Date.now();
      const done = await secondStep(client, await currentCode(secret));
      expect(done.statusCode, done.body).toBe(200);
      const data = dataOf(done, loginResponseSchema);
      expect(data).toMatchObject({ user: { username }, session: { rememberMe: true } });
      expect(data.csrfToken).toBe(client.csrf);
      const sessionLine = setCookieLine(done, 'perch_session') ?? '';
      expect(cookieAttributes(sessionLine)).toHaveProperty('expires');
      expect(cookieAttributes(setCookieLine(done, TWO_FACTOR_COOKIE) ?? '').path).toBe(
        '/api/v1/auth',
      );
      expect(client.cookies.has(TWO_FACTOR_COOKIE)).toBe(false);
      expect(await authCheck(client)).toMatchObject({ authenticated: true, username });

      expect(await pendingOf(userId)).toHaveLength(0);
      expect(Date.parse((await userRow(userId)).last_login_at ?? '')).toBeGreaterThanOrEqual(
        before - 1000,
      );
      const session = await t.db.db
        .selectFrom('sessions')
        .selectAll()
        .where('id', '=', sha256(cookieValue(sessionLine)))
        .executeTakeFirstOrThrow();
      expect(session).toMatchObject({ user_id: userId, user_agent: 'Perch test browser' });
      expect(Boolean(session.remember_me)).toBe(true);
      const attempts = await attemptsOf(userId);
      expect(attempts).toHaveLength(attemptsBefore + 1);
      expect(attempts.at(-1)).toMatchObject({ login: username.toLowerCase(), ip: '10.40.1.1' });
      expect(Boolean(attempts.at(-1)?.success)).toBe(true);
      const [event] = await eventsOf(userId, 'login_success');
      expect(event).toMatchObject({ severity: 'low', ip: '10.40.1.1' });
      expect(JSON.parse(event?.metadata ?? '{}')).toMatchObject({ method: 'totp' });
    });

    it('leaves accounts without two-factor sign-in as they were', async () => {
      const { username } = await signedIn('plain');
      const client = new TestClient(t.app, '10.40.1.2');
      const response = await login(client, username);
      const data = dataOf(response, loginResponseSchema);
      expect(requiresTwoFactor(data)).toBe(false);
      expect(setCookieLine(response, TWO_FACTOR_COOKIE)).toBeUndefined();
      expect(await authCheck(client)).toMatchObject({ authenticated: true });
    });

    it('accepts a code only once', async () => {
      const { username, userId, secret, code: setupCode } = await enrolled('replay');
      // The code that confirmed the set-up cannot sign in.
      const first = await pastPassword(username, '10.40.2.1');
      expectError(await secondStep(first.client, setupCode), 401, {
        message: SECURITY_MESSAGES.twoFactorCodeInvalid,
        code: 'TWO_FACTOR_CODE_INVALID',
      });

      await forgetLastStep(userId);
      const code = await currentCode(secret);
      expect((await secondStep(first.client, code)).statusCode).toBe(200);

      const second = await pastPassword(username, '10.40.2.2');
      expectError(await secondStep(second.client, code), 401, {
        message: SECURITY_MESSAGES.twoFactorCodeInvalid,
      });
      expect(await authCheck(second.client)).toMatchObject({ authenticated: false });
    });

    it('counts wrong codes as failed sign-ins: 5 drop the sign-in and lock the account here', async () => {
      const { username, userId, secret } = await enrolled('wrong');
      await forgetLastStep(userId);
      const { client } = await pastPassword(username, '10.40.3.1');
      const wrong = await wrongTotpCode(secret);
      for (let i = 1; i <= 4; i++) {
        expectError(await secondStep(client, wrong), 401, {
          message: SECURITY_MESSAGES.twoFactorCodeInvalid,
          code: 'TWO_FACTOR_CODE_INVALID',
        });
        expect(client.cookies.has(TWO_FACTOR_COOKIE)).toBe(true);
        expect((await pendingOf(userId))[0]?.attempts).toBe(i);
      }
      const fifth = await secondStep(client, wrong);
      expectError(fifth, 401, { message: SECURITY_MESSAGES.twoFactorCodeInvalid });
      expect(client.cookies.has(TWO_FACTOR_COOKIE)).toBe(false);
      expect(await pendingOf(userId)).toHaveLength(0);

      const failures = await eventsOf(userId, 'two_factor_failed');
      // The first three have rows of their own, the rest count in one aggregate.
      expect(representedEvents(failures)).toBe(5);
      expect(failures.every((e) => e.severity === 'medium' && e.ip === '10.40.3.1')).toBe(true);
      const attempts = await attemptsOf(userId);
      expect(attempts.filter((a) => !a.success && a.ip === '10.40.3.1')).toHaveLength(5);

      // The right code is too late now, and so is the right password from this address.
      expectError(await secondStep(client, await currentCode(secret)), 401, {
        message: SECURITY_MESSAGES.twoFactorLoginExpired,
        code: 'TWO_FACTOR_LOGIN_EXPIRED',
      });
      const locked = await login(client, username);
      expectError(locked, 429, { message: MESSAGES.loginTooManyAttempts, code: 'RATE_LIMITED' });
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      expect(setCookieLine(locked, TWO_FACTOR_COOKIE)).toBeUndefined();
      const [lockEvent] = await eventsOf(userId, 'login_locked');
      expect(lockEvent).toMatchObject({ severity: 'high', ip: '10.40.3.1' });

      // Elsewhere the account still signs in.
      const elsewhere = await pastPassword(username, '10.40.3.2');
      expect((await secondStep(elsewhere.client, await currentCode(secret))).statusCode).toBe(200);
    });

    it('adds wrong passwords and wrong codes up in one lock', async () => {
      const { username, userId, secret } = await enrolled('mixed');
      await forgetLastStep(userId);
      const client = new TestClient(t.app, '10.40.4.1');
      for (let i = 0; i < 3; i++) {
        expectError(await login(client, username, { password: `wrong-${i}-password` }), 401, {
          message: MESSAGES.loginWrongCredentials,
        });
      }
      const { client: browser } = await pastPassword(username, '10.40.4.1');
      const wrong = await wrongTotpCode(secret);
      for (let i = 0; i < 2; i++) {
        expectError(await secondStep(browser, wrong), 401, {
          message: SECURITY_MESSAGES.twoFactorCodeInvalid,
        });
      }
      expectError(await secondStep(browser, await currentCode(secret)), 429, {
        message: MESSAGES.loginTooManyAttempts,
      });
      expect(await authCheck(browser)).toMatchObject({ authenticated: false });
    });

    it('refuses an expired, missing or unknown pending sign-in', async () => {
      const { username, userId, secret } = await enrolled('expired');
      await forgetLastStep(userId);
      const { client } = await pastPassword(username, '10.40.5.1');
      await t.db.db
        .updateTable('pending_logins')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('user_id', '=', userId)
        .execute();
      const late = await secondStep(client, await currentCode(secret));
      expectError(late, 401, {
        message: SECURITY_MESSAGES.twoFactorLoginExpired,
        code: 'TWO_FACTOR_LOGIN_EXPIRED',
      });
      expect(client.cookies.has(TWO_FACTOR_COOKIE)).toBe(false);
      expect(setCookieLine(late, 'perch_session')).toBeUndefined();

      const none = new TestClient(t.app, '10.40.5.2');
      expectError(await secondStep(none, await currentCode(secret)), 401, {
        message: SECURITY_MESSAGES.twoFactorLoginExpired,
      });
      none.cookies.set(TWO_FACTOR_COOKIE, 'made-up-value-made-up-value-made-up-value-00');
      expectError(await secondStep(none, await currentCode(secret)), 401, {
        message: SECURITY_MESSAGES.twoFactorLoginExpired,
      });
      // The code was never used: a fresh sign-in takes it.
      const again = await pastPassword(username, '10.40.5.3');
      expect((await secondStep(again.client, await currentCode(secret))).statusCode).toBe(200);
    });

    it('checks the request: a code, and the CSRF token', async () => {
      const { username } = await enrolled('input');
      const { client } = await pastPassword(username, '10.40.6.1');
      for (const code of [undefined, '', '   ']) {
        expectError(await secondStep(client, code), 400, {
          message: SECURITY_MESSAGES.twoFactorCodeRequired,
          code: 'VALIDATION_ERROR',
        });
      }
      const forged = await client.request({
        method: 'POST',
        url: `${API}/auth/login/2fa`,
        payload: { code: '123456' },
        csrf: false,
      });
      expectError(forged, 403, { code: 'CSRF_INVALID' });
    });

    it('signs in with each recovery code once', async () => {
      const { username, userId, recoveryCodes } = await enrolled('recovery');
      const [code = '', other = ''] = recoveryCodes;
      const { client } = await pastPassword(username, '10.40.7.1');
      const response = await secondStep(client, code);
      expect(response.statusCode, response.body).toBe(200);
      expect(await authCheck(client)).toMatchObject({ authenticated: true, username });

      const used = await t.db.db
        .selectFrom('recovery_codes')
        .selectAll()
        .where('user_id', '=', userId)
        .where('used_at', 'is not', null)
        .execute();
      expect(used.map((r) => r.code_hash)).toEqual([sha256(code.replace(/-/g, ''))]);
      const [event] = await eventsOf(userId, 'recovery_code_used');
      expect(event).toMatchObject({ severity: 'medium', ip: '10.40.7.1' });
      expect(JSON.parse(event?.metadata ?? '{}')).toMatchObject({
        remaining: RECOVERY_CODE_COUNT - 1,
      });
      const [success] = await eventsOf(userId, 'login_success');
      expect(JSON.parse(success?.metadata ?? '{}')).toMatchObject({ method: 'recovery_code' });

      const again = await pastPassword(username, '10.40.7.2');
      expectError(await secondStep(again.client, code), 401, {
        message: SECURITY_MESSAGES.twoFactorCodeInvalid,
      });
      // Typed without dashes and in lower case, another one still works.
      const typed = other.replace(/-/g, '').toLowerCase();
      expect((await secondStep(again.client, typed)).statusCode).toBe(200);
      expect(await storedRecords()).not.toContain(code);
    });
  });

  describe('switching off', () => {
    it('needs a current code, then forgets the secret and the recovery codes', async () => {
      const { client, username, userId, secret } = await enrolled('off');
      await forgetLastStep(userId);
      expectError(await twoFactor(client, { enabled: false }), 400, {
        message: SECURITY_MESSAGES.twoFactorCodeRequired,
        code: 'TWO_FACTOR_CODE_REQUIRED',
      });
      expectError(
        await twoFactor(client, { enabled: false, code: await wrongTotpCode(secret) }),
        400,
        {
          message: SECURITY_MESSAGES.twoFactorCodeInvalid,
          code: 'TWO_FACTOR_CODE_INVALID',
        },
      );
      const [failed] = await eventsOf(userId, 'two_factor_failed');
      expect(failed).toMatchObject({ severity: 'medium', user_agent: AGENT });
      // A pending sign-in ends with it.
      await pastPassword(username, '10.40.8.2');

      const response = await twoFactor(client, { enabled: false, code: await currentCode(secret) });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ message: SECURITY_MESSAGES.twoFactorDisabled });
      expect(dataOf(response, twoFactorResponseSchema)).toEqual({ status: 'disabled' });

      const row = await userRow(userId);
      expect(row).toMatchObject({
        totp_secret: null,
        totp_enabled_at: null,
        totp_pending_secret: null,
        totp_last_step: null,
      });
      const codes = await t.db.db
        .selectFrom('recovery_codes')
        .select('id')
        .where('user_id', '=', userId)
        .execute();
      expect(codes).toHaveLength(0);
      expect(await pendingOf(userId)).toHaveLength(0);
      const [event] = await eventsOf(userId, 'two_factor_disabled');
      expect(event).toMatchObject({ severity: 'high', ip: '10.40.0.1', user_agent: AGENT });
      expect(JSON.parse(event?.metadata ?? '{}')).toMatchObject({ method: 'totp' });

      // The password alone signs in again; there is nothing left to switch off.
      const plain = new TestClient(t.app, '10.40.8.3');
      expect(requiresTwoFactor(dataOf(await login(plain, username), loginResultSchema))).toBe(
        false,
      );
      expectError(await twoFactor(client, { enabled: false, code: '123456' }), 409, {
        message: SECURITY_MESSAGES.twoFactorNotEnabled,
        code: 'TWO_FACTOR_NOT_ENABLED',
      });
    });

    it('accepts a recovery code instead', async () => {
      const { client, userId, recoveryCodes } = await enrolled('off_recovery');
      const response = await twoFactor(client, { enabled: false, code: recoveryCodes[3] });
      expect(response.statusCode, response.body).toBe(200);
      expect((await userRow(userId)).totp_secret).toBeNull();
      expect(await eventsOf(userId, 'recovery_code_used')).toHaveLength(1);
      const [event] = await eventsOf(userId, 'two_factor_disabled');
      expect(JSON.parse(event?.metadata ?? '{}')).toMatchObject({ method: 'recovery_code' });
    });

    it('stops trying codes after 5 wrong ones', async () => {
      const { client, userId, secret } = await enrolled('off_brute', '10.40.9.1');
      await forgetLastStep(userId);
      const wrong = await wrongTotpCode(secret);
      for (let i = 0; i < 5; i++) {
        expectError(await twoFactor(client, { enabled: false, code: wrong }), 400, {
          message: SECURITY_MESSAGES.twoFactorCodeInvalid,
        });
      }
      const blocked = await twoFactor(client, { enabled: false, code: await currentCode(secret) });
      expectError(blocked, 429, {
        message: SECURITY_MESSAGES.tooManyAttempts,
        code: 'RATE_LIMITED',
      });
      expect((await userRow(userId)).totp_secret).toBeTruthy();
      expect(await eventsOf(userId, 'login_locked')).toHaveLength(1);
    });
  });

  it('a new password ends a sign-in waiting for its code', async () => {
    const { client, username, userId, secret } = await enrolled('pwchange');
    await forgetLastStep(userId);
    const { client: waiting } = await pastPassword(username, '10.40.10.1');
    const changed = await client.post(`${API}/auth/change-password`, {
      currentPassword: TEST_PASSWORD,
      newPassword: 'An0ther-secret!',
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expectError(await secondStep(waiting, await currentCode(secret)), 401, {
      message: SECURITY_MESSAGES.twoFactorLoginExpired,
    });
  });
});
