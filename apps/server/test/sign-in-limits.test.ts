/**
 * Sign-in limits, tried as an attacker would (modules/auth/login-throttle.ts): one account's
 * password guessed from many addresses, its two names used in turn, one address trying many
 * accounts, two-factor and recovery codes guessed, a burst of parallel sign-ins; and the owner,
 * who must still get in. Waiting out a delay is done by moving the hold's time back, except where
 * the owner's wait itself is the point: there the server's Retry-After is honoured.
 */
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MESSAGES,
  SECURITY_MESSAGES,
  loginResultSchema,
  requiresTwoFactor,
  twoFactorResponseSchema,
} from '@perch/shared';
import {
  ACCOUNT_FREE_FAILURES,
  ADDRESS_MAX_FAILURES,
  holdKey,
} from '../src/modules/auth/login-throttle.js';
import { passwordHashing } from '../src/modules/auth/passwords.js';
import { dataOf, expectError } from './assertions.js';
import {
  DEFAULT_HASH_ENV,
  DIALECTS,
  TEST_PASSWORD,
  TestClient,
  buildTestApp,
  type TestApp,
} from './helpers.js';
import { signedInUser, uniqueName, wrongTotpCode } from './seed.js';

const API = '/api/v1';
/** The longest account delay in these tests (SIGN_IN_DELAY_MAX_SECONDS). */
const DELAY_MAX_SECONDS = 3;
const HASH_CONCURRENCY = 2;
const HASH_QUEUE = 4;

let addressCounter = 0;
/** An address no earlier request came from. */
const freshIp = () => {
  addressCounter += 1;
  return `10.${100 + Math.floor(addressCounter / 250)}.${addressCounter % 250}.9`;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(DIALECTS)('sign-in limits [%s]', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(dialect, {
      SIGN_IN_DELAY_MAX_SECONDS: String(DELAY_MAX_SECONDS),
      PASSWORD_HASH_CONCURRENCY: String(HASH_CONCURRENCY),
      PASSWORD_HASH_QUEUE: String(HASH_QUEUE),
      // The production cost: a burst of sign-ins must overlap to fill the gate.
      ...DEFAULT_HASH_ENV,
    });
  });
  afterAll(() => t.close());

  /** A fresh account, registered from an address of its own; its id and names. */
  async function account(prefix: string) {
    const { userId, ...user } = await signedInUser(t, prefix, { ip: freshIp() });
    return { ...user, id: userId };
  }

  const login = (ip: string, username: string, password: string) =>
    new TestClient(t.app, ip).post(`${API}/auth/login`, { username, password });

  /** The seconds a 429 asks to wait, checked to be a whole positive number. */
  function retryAfterOf(response: Awaited<ReturnType<typeof login>>): number {
    expectError(response, 429, { message: MESSAGES.loginTooManyAttempts, code: 'RATE_LIMITED' });
    const seconds = Number(response.headers['retry-after']);
    expect(Number.isInteger(seconds) && seconds > 0, `Retry-After ${seconds}`).toBe(true);
    return seconds;
  }

  /** Lets the account's current delay pass, as waiting it out would. */
  const letDelayPass = (userId: number) =>
    t.db.db
      .updateTable('sign_in_holds')
      .set({ next_attempt_at: new Date(Date.now() - 1).toISOString() })
      .where('key', '=', holdKey({ userId, login: '' }))
      .execute();

  /** `count` wrong passwords for `name`, each from an address of its own: all answered 401. */
  async function failFromManyAddresses(name: string, count: number) {
    for (let i = 0; i < count; i++) {
      const response = await login(freshIp(), name, `Wrong-guess-${i}`);
      expectError(response, 401, { message: MESSAGES.loginWrongCredentials });
    }
  }

  const lockEvents = (userId: number) =>
    t.db.db
      .selectFrom('security_events')
      .selectAll()
      .where('user_id', '=', userId)
      .where('event_type', '=', 'login_locked')
      .execute();

  it('slows down guessing one password from many addresses, each failure waiting longer', async () => {
    const victim = await account('guessed');
    await failFromManyAddresses(victim.username, ACCOUNT_FREE_FAILURES);

    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      // A failure past the free ones: the next attempt, from anywhere, must wait.
      await failFromManyAddresses(victim.username, 1);
      waits.push(retryAfterOf(await login(freshIp(), victim.username, 'Wrong-guess-x')));
      // The right password is refused alike while the wait runs: no oracle.
      retryAfterOf(await login(freshIp(), victim.username, TEST_PASSWORD));
      await letDelayPass(victim.id);
    }
    // 1 s, 2 s, then the bound (3 s here, 60 s by default).
    expect(waits).toEqual([1, 2, 3, 3, 3]);

    // Refused attempts are not counted: 15 failures in all.
    const failures = await t.db.db
      .selectFrom('login_attempts')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('user_id', '=', victim.id)
      .where('success', '=', false)
      .executeTakeFirstOrThrow();
    expect(Number(failures.count)).toBe(ACCOUNT_FREE_FAILURES + 5);
    const events = await lockEvents(victim.id);
    expect(events.length).toBeGreaterThan(0);
    expect(events.some((event) => event.metadata.includes('"account"'))).toBe(true);
  });

  it('counts the username and the email of one account as one', async () => {
    const victim = await account('twonames');
    const attacker = freshIp();
    for (let i = 0; i < 5; i++) {
      const name = i % 2 === 0 ? victim.username : victim.email.toUpperCase();
      expectError(await login(attacker, name, `Wrong-guess-${i}`), 401);
    }
    // Five failures under two names lock the account at that address, under either name.
    retryAfterOf(await login(attacker, victim.email, TEST_PASSWORD));
    retryAfterOf(await login(attacker, victim.username, TEST_PASSWORD));

    // Across addresses too: the two names add up to the account's free failures.
    const other = await account('twonames');
    for (let i = 0; i <= ACCOUNT_FREE_FAILURES; i++) {
      const name = i % 2 === 0 ? other.email : other.username;
      expectError(await login(freshIp(), name, `Wrong-guess-${i}`), 401);
    }
    retryAfterOf(await login(freshIp(), other.username, TEST_PASSWORD));
    retryAfterOf(await login(freshIp(), other.email, TEST_PASSWORD));
  });

  it('refuses one address that tries one password on many accounts', async () => {
    const accounts = [];
    for (let i = 0; i < 30; i++) accounts.push(await account('sprayed'));
    const sprayer = freshIp();
    const answers: number[] = [];
    for (const target of accounts) {
      answers.push((await login(sprayer, target.username, 'Summer-2024!')).statusCode);
    }
    expect(answers.slice(0, ADDRESS_MAX_FAILURES)).toEqual(
      Array<number>(ADDRESS_MAX_FAILURES).fill(401),
    );
    expect(answers.slice(ADDRESS_MAX_FAILURES)).toEqual(
      Array<number>(30 - ADDRESS_MAX_FAILURES).fill(429),
    );
    // Unknown names and right passwords are refused there alike; the window bounds the wait.
    const last = accounts[29]!;
    expect(retryAfterOf(await login(sprayer, last.username, TEST_PASSWORD))).toBeLessThanOrEqual(
      15 * 60,
    );
    retryAfterOf(await login(sprayer, uniqueName('nobody'), TEST_PASSWORD));
    // Nobody else is held back by it.
    expect((await login(freshIp(), last.username, TEST_PASSWORD)).statusCode).toBe(200);
    const events = await lockEvents(last.id);
    expect(events.some((event) => event.metadata.includes('"address"'))).toBe(true);
  });

  it('lets the owner in from a clean address after a bounded wait, however long the attack', async () => {
    const owner = await account('owner');
    await failFromManyAddresses(owner.username, ACCOUNT_FREE_FAILURES);
    for (let i = 0; i < 6; i++) {
      await failFromManyAddresses(owner.username, 1);
      await letDelayPass(owner.id);
    }
    await failFromManyAddresses(owner.username, 1);

    const home = freshIp();
    const refused = await login(home, owner.username, TEST_PASSWORD);
    const wait = retryAfterOf(refused);
    expect(wait).toBeLessThanOrEqual(DELAY_MAX_SECONDS);
    // The attacker hammering on meanwhile is refused without pushing the owner's wait back.
    for (let i = 0; i < 10; i++) {
      expect((await login(freshIp(), owner.username, 'Wrong-guess-y')).statusCode).toBe(429);
    }
    await sleep(wait * 1000);
    const signedIn = await login(home, owner.username, TEST_PASSWORD);
    expect(signedIn.statusCode, signedIn.body).toBe(200);
  });

  it('does not make the owner wait at an address they signed in from before', async () => {
    const owner = await account('regular');
    const usual = freshIp();
    expect((await login(usual, owner.username, TEST_PASSWORD)).statusCode).toBe(200);
    await failFromManyAddresses(owner.username, ACCOUNT_FREE_FAILURES + 1);
    retryAfterOf(await login(freshIp(), owner.username, TEST_PASSWORD));
    expect((await login(usual, owner.username, TEST_PASSWORD)).statusCode).toBe(200);
  });

  describe('the two-factor step', () => {
    const twoFactor = (client: TestClient, body: Record<string, unknown>) =>
      client.post(`${API}/security/2fa`, body);

    /** An account with two-factor sign-in on: its secret and recovery codes. */
    async function enrolled(prefix: string) {
      const user = await account(prefix);
      const started = dataOf(
        await twoFactor(user.client, { enabled: true }),
        twoFactorResponseSchema,
      );
      const secret = started.totpSecret ?? '';
      const response = await twoFactor(user.client, {
        enabled: true,
        totpSecret: secret,
        code: await generate({ secret }),
      });
      expect(response.statusCode, response.body).toBe(200);
      return { ...user, secret };
    }

    /** A new client from a fresh address past the password step. */
    async function pastPassword(username: string) {
      const client = new TestClient(t.app, freshIp());
      const response = await client.post(`${API}/auth/login`, {
        username,
        password: TEST_PASSWORD,
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(requiresTwoFactor(dataOf(response, loginResultSchema))).toBe(true);
      return client;
    }

    const secondStep = (client: TestClient, code: string) =>
      client.post(`${API}/auth/login/2fa`, { code });

    /** Guesses `guess()` codes until the account's free failures are used, five per address. */
    async function useFreeFailures(username: string, guess: () => Promise<string>) {
      for (let done = 0; done < ACCOUNT_FREE_FAILURES;) {
        const client = await pastPassword(username);
        for (let i = 0; i < 5 && done < ACCOUNT_FREE_FAILURES; i++, done++) {
          expectError(await secondStep(client, await guess()), 401, {
            message: SECURITY_MESSAGES.twoFactorCodeInvalid,
          });
        }
      }
    }

    it.each([
      ['authenticator codes', (secret: string) => wrongTotpCode(secret, 234_567)],
      ['recovery codes', () => Promise.resolve('ABCD-EFGH-JKMN-PQRS')],
    ])('slows down guessing %s across addresses', async (_kind, guessFor) => {
      const victim = await enrolled('coded');
      const guess = () => guessFor(victim.secret);
      await useFreeFailures(victim.username, guess);

      const waits: number[] = [];
      for (let i = 0; i < 3; i++) {
        const client = await pastPassword(victim.username);
        expectError(await secondStep(client, await guess()), 401);
        // The same pending sign-in, and a new one's password step, now wait.
        waits.push(retryAfterOf(await secondStep(client, await guess())));
        retryAfterOf(await login(freshIp(), victim.username, TEST_PASSWORD));
        await letDelayPass(victim.id);
      }
      expect(waits).toEqual([1, 2, 3]);
    });
  });

  it('never runs more password hashes at once than PASSWORD_HASH_CONCURRENCY', async () => {
    const before = passwordHashing.stats();
    const names = Array.from({ length: 50 }, () => uniqueName('burst'));
    const answers = await Promise.all(names.map((name) => login(freshIp(), name, 'Wrong-guess-z')));
    const after = passwordHashing.stats();

    expect(after.peakRunning).toBe(HASH_CONCURRENCY);
    expect(after).toMatchObject({ running: 0, waiting: 0 });
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.every((status) => status === 401 || status === 503)).toBe(true);
    // With 2 running and 4 waiting, a burst of 50 overflows: the rest are told to come back.
    const busy = answers.filter((answer) => answer.statusCode === 503);
    expect(busy.length).toBe(after.refused - before.refused);
    expect(busy.length).toBeGreaterThan(0);
    for (const answer of busy) {
      expectError(answer, 503, { message: MESSAGES.serverBusy, code: 'SERVER_BUSY' });
      expect(answer.headers['retry-after']).toBe('1');
    }
    // A sign-in refused for want of a turn counts no attempt.
    const counted = await t.db.db
      .selectFrom('login_attempts')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('login', 'in', names)
      .executeTakeFirstOrThrow();
    expect(Number(counted.count)).toBe(answers.length - busy.length);
  });
});
