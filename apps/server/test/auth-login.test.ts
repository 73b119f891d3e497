import { performance } from 'node:perf_hooks';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import { describe, expect, it, onTestFinished } from 'vitest';
import { MESSAGES, loginResponseSchema } from '@perch/shared';
import { cookieAttributes, dataOf, expectError, setCookieLine } from './assertions.js';
import { configurePasswordHashing } from '../src/modules/auth/passwords.js';
import { replacePasswordHash, setPasswordHash } from '../src/modules/users/users.repository.js';
import { DEFAULT_HASH_ENV, DIALECTS, TEST_PASSWORD, TestClient, buildTestApp } from './helpers.js';
import { appForSuite, uniqueName } from './seed.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const WRONG = 'The username or password you entered is incorrect. Please try again.';
const TOO_MANY = 'Too many login attempts. Please wait a moment and try again.';

function login(client: TestClient, username: unknown, password: unknown, extra = {}) {
  return client.post('/api/v1/auth/login', { username, password, ...extra });
}

describe.each(DIALECTS)('login API [%s]', (dialect) => {
  const suite = appForSuite(dialect);

  /** Registers a fresh user (from a throw-away client) and returns its name. */
  async function newUser(prefix: string): Promise<string> {
    const username = uniqueName(prefix);
    await new TestClient(suite.t.app, '10.255.255.254').register(
      suite.t.db,
      username,
      'user',
      TEST_PASSWORD,
    );
    return username;
  }

  const userRow = (username: string) =>
    suite.t.db.db
      .selectFrom('users')
      .selectAll()
      .where('username', '=', username)
      .executeTakeFirstOrThrow();
  const sessionsOf = async (username: string) => {
    const user = await userRow(username);
    return suite.t.db.db
      .selectFrom('sessions')
      .selectAll()
      .where('user_id', '=', user.id)
      .orderBy('created_at')
      .execute();
  };

  it('signs in by username and by email, in any case', async () => {
    const username = await newUser('Mixed');
    for (const name of [
      username,
      username.toUpperCase(),
      `${username}@example.com`,
      `${username.toUpperCase()}@EXAMPLE.COM`,
    ]) {
      const client = new TestClient(suite.t.app, '10.2.0.1');
      const response = await login(client, name, TEST_PASSWORD);
      expect(response.statusCode, `${name}: ${response.body}`).toBe(200);
      const data = dataOf(response, loginResponseSchema);
      expect(data.user).toMatchObject({ username, email: `${username}@example.com` });
      expect(data.session.authMethod).toBe('cookie');
      expect(data.csrfToken).toBe(client.csrf);
      const check = await client.get('/api/v1/auth/check');
      expect(check.json()).toMatchObject({ data: { authenticated: true, username } });
    }
  });

  it('records the time of the last sign-in', async () => {
    const username = await newUser('last');
    const past = '2020-01-01T00:00:00.000Z';
    await suite.t.db.db
      .updateTable('users')
      .set({ last_login_at: past })
      .where('username', '=', username)
      .execute();
    const before = Date.now();
    const response = await login(new TestClient(suite.t.app, '10.2.0.2'), username, TEST_PASSWORD);
    expect(response.statusCode).toBe(200);
    const stored = (await userRow(username)).last_login_at;
    expect(stored).not.toBe(past);
    expect(Date.parse(stored ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(dataOf(response, loginResponseSchema).user.lastLoginAt).toBe(stored);
  });

  /**
   * A fresh user signed in from `ip` with remember-me `rememberMe`, which the answer confirms;
   * the user, when the sign-in started and its answer.
   */
  async function signedInRemembering(rememberMe: boolean, prefix: string, ip: string) {
    const username = await newUser(prefix);
    const before = Date.now();
    const response = await login(new TestClient(suite.t.app, ip), username, TEST_PASSWORD, {
      rememberMe,
    });
    expect(response.statusCode).toBe(200);
    expect(dataOf(response, loginResponseSchema).session.rememberMe).toBe(rememberMe);
    return { username, before, response };
  }

  it('with remember-me, sets a cookie and session that last 30 days', async () => {
    const { username, before, response } = await signedInRemembering(true, 'remember', '10.2.0.3');

    const line = setCookieLine(response, 'perch_session') ?? '';
    const attributes = cookieAttributes(line);
    expect(attributes).toHaveProperty('httponly');
    expect(attributes.samesite?.toLowerCase()).toBe('lax');
    expect(attributes.path).toBe('/');
    const expires = Date.parse(attributes.expires ?? '');
    expect(Math.abs(expires - (before + 30 * DAY_MS))).toBeLessThan(60_000);

    const [session] = await sessionsOf(username).then((rows) => rows.slice(-1));
    expect(Math.abs(Date.parse(session?.expires_at ?? '') - (before + 30 * DAY_MS))).toBeLessThan(
      60_000,
    );
    expect(Boolean(session?.remember_me)).toBe(true);
  });

  it('without remember-me, sets a browser-session cookie and a 12-hour session', async () => {
    const { username, before, response } = await signedInRemembering(false, 'forget', '10.2.0.4');
    const attributes = cookieAttributes(setCookieLine(response, 'perch_session') ?? '');
    expect(attributes).toHaveProperty('httponly');
    expect(attributes).not.toHaveProperty('expires');
    expect(attributes).not.toHaveProperty('max-age');
    const [session] = await sessionsOf(username).then((rows) => rows.slice(-1));
    expect(
      Math.abs(Date.parse(session?.expires_at ?? '') - (before + 12 * 60 * 60 * 1000)),
    ).toBeLessThan(60_000);
    expect(Boolean(session?.remember_me)).toBe(false);
  });

  it('stores the user agent cut to 100 characters', async () => {
    const username = await newUser('agent');
    const userAgent = 'A'.repeat(300);
    const response = await login(new TestClient(suite.t.app, '10.2.0.5'), username, TEST_PASSWORD, {
      deviceInfo: { userAgent },
    });
    expect(response.statusCode).toBe(200);
    const [session] = await sessionsOf(username).then((rows) => rows.slice(-1));
    expect(session?.user_agent).toBe('A'.repeat(100));
  });

  it('answers a wrong password and an unknown user with the same 401', async () => {
    const username = await newUser('wrongpw');
    const wrongPassword = await login(
      new TestClient(suite.t.app, '10.3.0.1'),
      username,
      'not-it-at-all',
    );
    const unknownUser = await login(
      new TestClient(suite.t.app, '10.3.0.2'),
      uniqueName('ghost'),
      TEST_PASSWORD,
    );
    for (const response of [wrongPassword, unknownUser]) {
      expectError(response, 401, { message: WRONG, code: 'INVALID_CREDENTIALS' });
      expect(setCookieLine(response, 'perch_session')).toBeUndefined();
    }
    expect(wrongPassword.body).toBe(unknownUser.body);
  });

  it('takes about as long for an unknown user as for a wrong password', async () => {
    // At the production cost: the hash is what both paths must share, and a cheap one would
    // hide a path that skipped it.
    const t = await buildTestApp(dialect, DEFAULT_HASH_ENV);
    onTestFinished(async () => {
      await t.close();
      // The cost is the process's (one app per process in production): the suite's app's again.
      configurePasswordHashing(suite.t.config);
    });
    const username = uniqueName('timing');
    await new TestClient(t.app, '10.255.255.254').register(t.db, username, 'user', TEST_PASSWORD);
    const time = async (name: string, ip: string) => {
      const started = performance.now();
      const response = await login(new TestClient(t.app, ip), name, 'Wrong-pass-123');
      const elapsed = performance.now() - started;
      expect(response.statusCode).toBe(401);
      return elapsed;
    };
    // Warm up both paths (the dummy hash is made on first use).
    await time(uniqueName('nobody'), '10.4.0.250');
    await time(username, '10.4.0.251');
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 5; i++) {
      known.push(await time(username, `10.4.1.${i}`));
      unknown.push(await time(uniqueName('nobody'), `10.4.2.${i}`));
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const ratio = mean(unknown) / mean(known);
    expect(ratio, `unknown ${mean(unknown)} ms vs known ${mean(known)} ms`).toBeGreaterThan(0.33);
    expect(ratio, `unknown ${mean(unknown)} ms vs known ${mean(known)} ms`).toBeLessThan(3);
  });

  it('hashes a password made at another cost again at sign-in, at the configured cost', async () => {
    const username = await newUser('rehash');
    const user = await userRow(username);
    // As if PASSWORD_HASH_* had been different when the password was set.
    const older = await argon2Hash(TEST_PASSWORD, { algorithm: 2, memoryCost: 512, timeCost: 2 });
    await setPasswordHash(suite.t.db.db, user.id, older);

    expect(
      (await login(new TestClient(suite.t.app, '10.4.3.1'), username, 'Wrong-pass-123')).statusCode,
    ).toBe(401);
    expect((await userRow(username)).password_hash).toBe(older);

    expect(
      (await login(new TestClient(suite.t.app, '10.4.3.2'), username, TEST_PASSWORD)).statusCode,
    ).toBe(200);
    const rehashed = (await userRow(username)).password_hash;
    expect(rehashed).toMatch(/^\$argon2id\$v=19\$m=256,t=1,p=1\$/);
    expect(await argon2Verify(rehashed, TEST_PASSWORD)).toBe(true);
    // Once at the configured cost, a sign-in leaves it as it is.
    expect(
      (await login(new TestClient(suite.t.app, '10.4.3.3'), username, TEST_PASSWORD)).statusCode,
    ).toBe(200);
    expect((await userRow(username)).password_hash).toBe(rehashed);
    // A sign-in that read the old hash never overwrites a password changed meanwhile.
    await replacePasswordHash(suite.t.db.db, user.id, older, await argon2Hash('Another-pass-9'));
    expect((await userRow(username)).password_hash).toBe(rehashed);
  });

  describe('brute-force protection', () => {
    it('answers 429 after 5 failures for one name from one IP, even with the right password', async () => {
      const username = await newUser('brute');
      const attacker = new TestClient(suite.t.app, '10.5.0.1');
      for (let i = 0; i < 5; i++) {
        expectError(await login(attacker, username, `wrong-${i}-password`), 401, {
          message: WRONG,
        });
      }
      const blocked = await login(attacker, username, TEST_PASSWORD);
      expectError(blocked, 429, { message: TOO_MANY, code: 'RATE_LIMITED' });
      const retryAfter = Number(blocked.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      expect(setCookieLine(blocked, 'perch_session')).toBeUndefined();

      // The name is matched case-insensitively, so changing its case does not get around it.
      expectError(await login(attacker, username.toUpperCase(), TEST_PASSWORD), 429, {
        message: TOO_MANY,
      });

      // The same name from another IP is not blocked.
      const other = new TestClient(suite.t.app, '10.5.0.2');
      expect((await login(other, username, TEST_PASSWORD)).statusCode).toBe(200);

      // Another name from the blocked IP is not blocked.
      const bystander = await newUser('bystander');
      expect((await login(attacker, bystander, TEST_PASSWORD)).statusCode).toBe(200);
      expectError(await login(attacker, uniqueName('ghost'), TEST_PASSWORD), 401, {
        message: WRONG,
      });
    });

    it('counts only failures inside the 15-minute window', async () => {
      const username = await newUser('window');
      const attacker = new TestClient(suite.t.app, '10.5.1.1');
      for (let i = 0; i < 5; i++) await login(attacker, username, `wrong-${i}-password`);
      expect((await login(attacker, username, TEST_PASSWORD)).statusCode).toBe(429);
      await suite.t.db.db
        .updateTable('login_attempts')
        .set({ created_at: new Date(Date.now() - 16 * 60 * 1000).toISOString() })
        .where('login', '=', username.toLowerCase())
        .execute();
      expect((await login(attacker, username, TEST_PASSWORD)).statusCode).toBe(200);
    });

    it('does not count failures before a successful sign-in', async () => {
      const username = await newUser('reset');
      const client = new TestClient(suite.t.app, '10.5.2.1');
      for (let i = 0; i < 4; i++) await login(client, username, `wrong-${i}-password`);
      expect((await login(client, username, TEST_PASSWORD)).statusCode).toBe(200);
      for (let i = 0; i < 4; i++) await login(client, username, `wrong-${i}-password`);
      expect((await login(client, username, TEST_PASSWORD)).statusCode).toBe(200);
    });
  });

  describe('invalid data: 400 "Invalid login data. Please check your input."', () => {
    const invalid: [string, Record<string, unknown>][] = [
      ['an empty body', {}],
      ['an empty username', { username: '', password: TEST_PASSWORD }],
      ['a blank username', { username: '   ', password: TEST_PASSWORD }],
      ['no username', { password: TEST_PASSWORD }],
      ['an empty password', { username: 'someone', password: '' }],
      ['no password', { username: 'someone' }],
      ['a numeric username', { username: 12345, password: TEST_PASSWORD }],
      ['an object password', { username: 'someone', password: { $ne: null } }],
      ['an array username', { username: ['a', 'b'], password: TEST_PASSWORD }],
      ['a string rememberMe', { username: 'someone', password: TEST_PASSWORD, rememberMe: 'yes' }],
      ['a string deviceInfo', { username: 'someone', password: TEST_PASSWORD, deviceInfo: 'x' }],
      ['a 300-character password', { username: 'someone', password: 'p'.repeat(300) }],
      ['a 300-character username', { username: 'u'.repeat(300), password: TEST_PASSWORD }],
    ];

    it.each(invalid)('refuses %s', async (_name, body) => {
      const response = await new TestClient(suite.t.app, '10.6.0.1').post(
        '/api/v1/auth/login',
        body,
      );
      expectError(response, 400, {
        message: 'Invalid login data. Please check your input.',
        code: 'VALIDATION_ERROR',
      });
      expect(setCookieLine(response, 'perch_session')).toBeUndefined();
    });

    it('names the missing fields in the details', async () => {
      const empty = expectError(
        await new TestClient(suite.t.app, '10.6.0.2').post('/api/v1/auth/login', {}),
        400,
      );
      expect(empty.details).toContain(MESSAGES.loginUsernameRequired);
      expect(empty.details).toContain(MESSAGES.loginPasswordRequired);
    });
  });
});
