import { describe, expect, it } from 'vitest';
import {
  LOGIN_MAX_FAILURES,
  loginHistoryResponseSchema,
  securityStatsSchema,
  type LoginHistoryEntry,
} from '@perch/shared';
import { dataOf, expectError } from './assertions.js';
import { DIALECTS, TEST_PASSWORD, TestClient, type TestApp } from './helpers.js';
import { appForSuite, signedInUser } from './seed.js';

/**
 * The client's address as the sign-in limiter and the login history see it, behind a proxy
 * (TRUST_PROXY). The attacker writes any X-Forwarded-For it likes; a proxy in front appends the
 * address it was reached from (nginx's $proxy_add_x_forwarded_for, the worst case: the
 * attacker's values stay on the left). Only what a trusted proxy added may count.
 */

/** The reverse proxy on the same machine, as Perch's TCP peer. */
const PROXY = '127.0.0.1';

/** A fresh account, registered straight from `ip` (no proxy header); its client stays signed in. */
function newUser(t: TestApp, ip: string) {
  return signedInUser(t, 'proxied', { ip });
}

/** A sign-in sent by `peer`, with the X-Forwarded-For (and more) the peer passes on. */
function signIn(
  t: TestApp,
  peer: string,
  username: string,
  password: string,
  headers: Record<string, string> = {},
) {
  return new TestClient(t.app, peer).request({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { username, password },
    headers,
  });
}

/** The account's sign-in attempts, newest first, as its owner reads them. */
async function historyOf(client: TestClient): Promise<LoginHistoryEntry[]> {
  const response = await client.get('/api/v1/security/login-history?limit=100');
  return dataOf(response, loginHistoryResponseSchema).entries;
}

/** The address one failed sign-in from `peer` is recorded at. */
async function recordedIp(t: TestApp, peer: string, headers: Record<string, string>) {
  const { username, client } = await newUser(t, '10.255.255.254');
  expect((await signIn(t, peer, username, 'not-the-password', headers)).statusCode).toBe(401);
  const [newest] = await historyOf(client);
  return newest?.ip;
}

describe.each(DIALECTS)('client address behind a proxy [%s]', (dialect) => {
  // `true` is kept from before hop counts, and means the same: the one proxy in front.
  describe.each(['1', 'true'])('TRUST_PROXY=%s (one trusted hop)', (trust) => {
    const suite = appForSuite(dialect, { TRUST_PROXY: trust });

    it('limits an attacker who forges a new X-Forwarded-For on every try, and logs the address the proxy saw', async () => {
      const { username, client } = await newUser(suite.t, '10.255.255.253');
      const attacker = '203.0.113.66';
      const forged = (i: number) => ({
        'x-forwarded-for': `198.51.100.${i}, 10.0.0.${i}, ${attacker}`,
      });
      for (let i = 1; i <= LOGIN_MAX_FAILURES; i++) {
        expectError(await signIn(suite.t, PROXY, username, `wrong-${i}`, forged(i)), 401);
      }
      // Even the right password, with yet another forged address, is refused now.
      expectError(await signIn(suite.t, PROXY, username, TEST_PASSWORD, forged(99)), 429, {
        code: 'RATE_LIMITED',
      });

      const tries = (await historyOf(client)).filter((entry) => !entry.success);
      expect(tries).toHaveLength(LOGIN_MAX_FAILURES);
      expect(new Set(tries.map((entry) => entry.ip))).toEqual(new Set([attacker]));
    });

    it('reads the client from the entry the proxy added, and a direct peer without one', async () => {
      expect(await recordedIp(suite.t, PROXY, { 'x-forwarded-for': '203.0.113.7' })).toBe(
        '203.0.113.7',
      );
      expect(await recordedIp(suite.t, PROXY, { 'x-forwarded-for': '::1, 2001:db8::7' })).toBe(
        '2001:db8::7',
      );
      expect(await recordedIp(suite.t, '10.9.8.7', {})).toBe('10.9.8.7');
    });

    it('takes the protocol from the proxy (X-Forwarded-Proto)', async () => {
      const { client } = await newUser(suite.t, '10.255.255.252');
      for (const proto of ['https', 'http'] as const) {
        const response = await client.request({
          method: 'GET',
          url: '/api/v1/security/stats',
          headers: { 'x-forwarded-proto': proto },
        });
        expect(dataOf(response, securityStatsSchema).secureTransport, proto).toBe(
          proto === 'https',
        );
      }
    });
  });

  describe('TRUST_PROXY=10.0.0.0/8,127.0.0.1 (proxy addresses)', () => {
    const suite = appForSuite(dialect, { TRUST_PROXY: '10.0.0.0/8,127.0.0.1' });

    it('ignores X-Forwarded-For and -Proto from a peer that is not a listed proxy', async () => {
      const direct = '198.51.100.7';
      expect(
        await recordedIp(suite.t, direct, {
          'x-forwarded-for': '203.0.113.1, 10.0.0.1, 127.0.0.1',
        }),
      ).toBe(direct);

      const { client } = await newUser(suite.t, direct);
      const response = await client.request({
        method: 'GET',
        url: '/api/v1/security/stats',
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(dataOf(response, securityStatsSchema).secureTransport).toBe(false);
    });

    it('limits a direct attacker rotating forged addresses, at its own address', async () => {
      const { username, client } = await newUser(suite.t, '10.255.255.251');
      const attacker = '198.51.100.66';
      for (let i = 1; i <= LOGIN_MAX_FAILURES; i++) {
        const headers = { 'x-forwarded-for': `203.0.113.${i}` };
        expectError(await signIn(suite.t, attacker, username, `wrong-${i}`, headers), 401);
      }
      const last = { 'x-forwarded-for': '203.0.113.99' };
      expectError(await signIn(suite.t, attacker, username, TEST_PASSWORD, last), 429, {
        code: 'RATE_LIMITED',
      });
      const tries = (await historyOf(client)).filter((entry) => !entry.success);
      expect(new Set(tries.map((entry) => entry.ip))).toEqual(new Set([attacker]));
    });

    it('walks back through listed proxies to the first address none of them is', async () => {
      // One listed proxy: the client is the entry it added; what the client wrote is ignored.
      expect(
        await recordedIp(suite.t, '10.1.2.3', { 'x-forwarded-for': '198.51.100.1, 203.0.113.5' }),
      ).toBe('203.0.113.5');
      // Two (a load balancer at 10.0.0.2, then the local proxy).
      expect(
        await recordedIp(suite.t, PROXY, {
          'x-forwarded-for': '198.51.100.1, 203.0.113.6, 10.0.0.2',
        }),
      ).toBe('203.0.113.6');
      // A listed proxy that passes no header: the client is the proxy itself.
      expect(await recordedIp(suite.t, '10.4.4.4', {})).toBe('10.4.4.4');
    });
  });

  describe('TRUST_PROXY unset (no proxy)', () => {
    const suite = appForSuite(dialect);

    it('never reads X-Forwarded-For', async () => {
      expect(await recordedIp(suite.t, PROXY, { 'x-forwarded-for': '203.0.113.8' })).toBe(PROXY);
    });
  });
});
