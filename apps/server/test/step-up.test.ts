/**
 * Step-up (modules/auth/step-up.ts), tried as somebody holding a stolen session: turning
 * two-factor sign-in on or off and connecting or removing the channels that receive the user's
 * posts need the password or a two-factor code given within 5 minutes, and guessing that
 * password through POST /auth/reauthenticate meets the sign-in limits. Time moves by the app's
 * clock (testClock), never by waiting.
 */
import type { LightMyRequestResponse } from 'fastify';
import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import {
  LOGIN_MAX_FAILURES,
  MESSAGES,
  REAUTH_REQUIRED_CODE,
  REAUTH_WINDOW_MS,
  SECURITY_MESSAGES,
  STEP_UP_MESSAGES,
  reauthenticateResponseSchema,
  twoFactorResponseSchema,
} from '@perch/shared';
import { dataOf, expectError } from './assertions.js';
import { DIALECTS, TEST_PASSWORD, TestClient } from './helpers.js';
import { appOnTestClock, signedInUser } from './seed.js';

const API = '/api/v1';
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const REAUTH_REQUIRED = { code: REAUTH_REQUIRED_CODE, message: STEP_UP_MESSAGES.required };

let ipCounter = 0;
const freshIp = () => `10.61.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

interface StepUpRoute {
  name: string;
  send(client: TestClient): Promise<LightMyRequestResponse>;
  /** The status once past the step-up (without Telegram set up, links answer 409). */
  passes: number;
}

/** Every change behind the step-up, as the web app sends it. */
const STEP_UP_ROUTES: StepUpRoute[] = [
  {
    name: 'turning two-factor sign-in on',
    send: (client) => client.post(`${API}/security/2fa`, { enabled: true }),
    passes: 200,
  },
  {
    name: 'connecting a Telegram chat',
    send: (client) => client.post(`${API}/settings`, { telegram_chat_id: '987654321' }),
    passes: 200,
  },
  {
    name: 'removing the Telegram chat',
    send: (client) => client.post(`${API}/settings`, { telegram_chat_id: '' }),
    passes: 200,
  },
  {
    name: 'connecting a Discord user',
    send: (client) => client.post(`${API}/settings`, { discord_user_id: '82198898841029460' }),
    passes: 200,
  },
  {
    name: 'removing the Discord user',
    send: (client) => client.post(`${API}/settings`, { discord_user_id: null }),
    passes: 200,
  },
  {
    name: 'connecting Discord (POST /notifications/discord)',
    send: (client) =>
      client.post(`${API}/notifications/discord`, { discord_user_id: '82198898841029460' }),
    passes: 200,
  },
  {
    name: 'a one-click Telegram link',
    send: (client) => client.post(`${API}/settings/telegram/link`),
    passes: 409,
  },
  {
    name: 'a Telegram link by username (POST /notifications/telegram)',
    send: (client) => client.post(`${API}/notifications/telegram`, { username: 'alice_on_tg' }),
    passes: 409,
  },
];

describe.each(DIALECTS)('step-up [%s]', (dialect) => {
  const suite = appOnTestClock(dialect);
  const { clock } = suite;

  const signedIn = (prefix: string, ip = freshIp()) => signedInUser(suite.t, prefix, { ip });

  /** The failed sign-in attempts recorded for `userId`. */
  const failedSignIns = (userId: number) =>
    suite.t.db.db
      .selectFrom('login_attempts')
      .select('id')
      .where('user_id', '=', userId)
      .where('success', '=', false)
      .execute();

  const reauthenticate = (client: TestClient, proof: Record<string, unknown>) =>
    client.post(`${API}/auth/reauthenticate`, proof);

  /** Lets a test use the current TOTP code once more (one code per 30 s step otherwise). */
  const forgetLastStep = (userId: number) =>
    suite.t.db.db
      .updateTable('users')
      .set({ totp_last_step: null })
      .where('id', '=', userId)
      .execute();

  /** Turns two-factor sign-in on (right after sign-in, so without asking again). */
  async function enrolled(prefix: string) {
    const user = await signedIn(prefix);
    const started = dataOf(
      await user.client.post(`${API}/security/2fa`, { enabled: true }),
      twoFactorResponseSchema,
    );
    const secret = started.totpSecret ?? '';
    const enabled = await user.client.post(`${API}/security/2fa`, {
      enabled: true,
      totpSecret: secret,
      code: await generate({ secret }),
    });
    expect(enabled.statusCode, enabled.body).toBe(200);
    await forgetLastStep(user.userId);
    return { ...user, secret };
  }

  describe.each(STEP_UP_ROUTES)('$name', (route) => {
    it('goes through for 5 minutes after sign-in, then asks again', async () => {
      const { client } = await signedIn('fresh');
      clock.advance(4 * MINUTE);
      expect((await route.send(client)).statusCode).toBe(route.passes);
      clock.advance(MINUTE + SECOND);
      expectError(await route.send(client), 403, REAUTH_REQUIRED);
    });

    it('refuses without re-authentication, goes through within 5 minutes of it, refuses after', async () => {
      const { client } = await signedIn('stolen');
      clock.advance(30 * MINUTE);
      expectError(await route.send(client), 403, REAUTH_REQUIRED);

      const proven = await reauthenticate(client, { password: TEST_PASSWORD });
      expect(proven.statusCode, proven.body).toBe(200);
      expect(proven.json()).toMatchObject({ message: STEP_UP_MESSAGES.confirmed });
      const { authenticatedAt, validUntil } = dataOf(proven, reauthenticateResponseSchema);
      expect(Date.parse(validUntil) - Date.parse(authenticatedAt)).toBe(REAUTH_WINDOW_MS);
      expect((await route.send(client)).statusCode).toBe(route.passes);
      clock.advance(REAUTH_WINDOW_MS - SECOND);
      expect((await route.send(client)).statusCode).toBe(route.passes);
      clock.advance(2 * SECOND);
      expectError(await route.send(client), 403, REAUTH_REQUIRED);
    });
  });

  it('asks before turning two-factor sign-in off, and takes a two-factor code as the proof', async () => {
    const { client, userId, secret } = await enrolled('switch_off');
    clock.advance(10 * MINUTE);
    await forgetLastStep(userId);
    const code = await generate({ secret });
    expectError(await client.post(`${API}/security/2fa`, { enabled: false, code }), 403, {
      code: REAUTH_REQUIRED_CODE,
    });
    // The refusal used nothing up: the same code confirms, then (once more) turns it off.
    expect((await reauthenticate(client, { code })).statusCode).toBe(200);
    await forgetLastStep(userId);
    const off = await client.post(`${API}/security/2fa`, { enabled: false, code });
    expect(off.statusCode, off.body).toBe(200);
    expect(dataOf(off, twoFactorResponseSchema).status).toBe('disabled');
  });

  it('does not ask for the X username alone: X is where posts come from, not where they go', async () => {
    const { client } = await signedIn('x_name');
    clock.advance(30 * MINUTE);
    expect((await client.post(`${API}/settings`, { twitter_username: 'someone' })).statusCode).toBe(
      200,
    );
    expectError(
      await client.post(`${API}/settings`, { twitter_username: 'other', telegram_chat_id: '42' }),
      403,
      REAUTH_REQUIRED,
    );
  });

  it('holds for the session it was given on only', async () => {
    const { client, username } = await signedIn('two_browsers');
    const other = new TestClient(suite.t.app, freshIp());
    expect(
      (await other.post(`${API}/auth/login`, { username, password: TEST_PASSWORD })).statusCode,
    ).toBe(200);
    clock.advance(30 * MINUTE);
    expect((await reauthenticate(client, { password: TEST_PASSWORD })).statusCode).toBe(200);
    expect((await STEP_UP_ROUTES[1]!.send(client)).statusCode).toBe(200);
    expectError(await STEP_UP_ROUTES[1]!.send(other), 403, REAUTH_REQUIRED);
  });

  describe('POST /auth/reauthenticate', () => {
    it('refuses a wrong password, records it and counts it as a failed sign-in', async () => {
      const ip = freshIp();
      const { client, username, userId } = await signedIn('guesser', ip);
      clock.advance(30 * MINUTE);
      for (let i = 0; i < LOGIN_MAX_FAILURES; i++) {
        expectError(await reauthenticate(client, { password: `guess-${i}` }), 400, {
          code: 'REAUTH_PASSWORD_WRONG',
          message: STEP_UP_MESSAGES.passwordWrong,
        });
      }
      // Still not confirmed.
      expectError(await STEP_UP_ROUTES[1]!.send(client), 403, REAUTH_REQUIRED);
      const failures = await failedSignIns(userId);
      expect(failures).toHaveLength(LOGIN_MAX_FAILURES);
      const events = await suite.t.db.db
        .selectFrom('security_events')
        .select(['event_type', 'description'])
        .where('user_id', '=', userId)
        .where('event_type', '=', 'login_failed')
        .execute();
      expect(events.length).toBeGreaterThan(0);
      expect(JSON.stringify(events)).not.toContain('guess-');

      // Locked like sign-in: the right password now waits, here and at the sign-in form.
      expectError(await reauthenticate(client, { password: TEST_PASSWORD }), 429, {
        message: SECURITY_MESSAGES.tooManyAttempts,
      });
      expectError(
        await new TestClient(suite.t.app, ip).post(`${API}/auth/login`, {
          username,
          password: TEST_PASSWORD,
        }),
        429,
        { message: MESSAGES.loginTooManyAttempts },
      );
    });

    it('refuses a wrong two-factor code as a failed sign-in', async () => {
      const { client, userId } = await enrolled('wrong_code');
      clock.advance(30 * MINUTE);
      expectError(await reauthenticate(client, { code: '000000' }), 400, {
        code: 'TWO_FACTOR_CODE_INVALID',
      });
      const attempts = await failedSignIns(userId);
      expect(attempts).toHaveLength(1);
    });

    it('answers a code for an account without two-factor sign-in, without counting it', async () => {
      const { client, userId } = await signedIn('no_codes');
      expectError(await reauthenticate(client, { code: '123456' }), 400, {
        code: 'TWO_FACTOR_NOT_ENABLED',
        message: STEP_UP_MESSAGES.codeNotEnabled,
      });
      const attempts = await failedSignIns(userId);
      expect(attempts).toHaveLength(0);
    });

    it('wants exactly one proof, a session and the CSRF token', async () => {
      const { client } = await signedIn('malformed');
      for (const body of [{}, { password: '' }, { password: TEST_PASSWORD, code: '123456' }]) {
        expectError(await reauthenticate(client, body), 400, {
          message: STEP_UP_MESSAGES.proofRequired,
        });
      }
      expectError(
        await new TestClient(suite.t.app).post(`${API}/auth/reauthenticate`, {
          password: TEST_PASSWORD,
        }),
        401,
      );
      expectError(
        await client.request({
          method: 'POST',
          url: `${API}/auth/reauthenticate`,
          payload: { password: TEST_PASSWORD },
          csrf: false,
        }),
        403,
        { code: 'CSRF_INVALID' },
      );
    });
  });
});
