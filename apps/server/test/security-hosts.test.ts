import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedsSchema, xConnectResponseSchema, type Feeds } from '@perch/shared';
import { HOST_NOT_ALLOWED_MESSAGE } from '../src/lib/request-origin.js';
import { dataOf, expectError } from './assertions.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';
import { handleFollowedBy } from './notify-helpers.js';
import { registeredRoutes } from './routes.js';

/**
 * Absolute addresses built from the request (feed URLs, the X OAuth redirect) as an attacker
 * sees them: a forged Host (or X-Forwarded-Host through the proxy) must never put another domain
 * into an answer. Without PUBLIC_URL only allowed hosts are used, others get 400; with it the
 * request's host is never read.
 */

const FOREIGN = 'evil.example';
const FORGED_HOSTS = [
  FOREIGN,
  `${FOREIGN}:3000`,
  `localhost.${FOREIGN}`,
  `localhost@${FOREIGN}`,
  `localhost:3000, ${FOREIGN}`,
];
const HOST_NOT_ALLOWED = { code: 'HOST_NOT_ALLOWED', message: HOST_NOT_ALLOWED_MESSAGE };

/** Every part of an answer a client, cache or feed reader may follow. */
const answerText = (response: LightMyRequestResponse) =>
  `${JSON.stringify(response.headers)} ${response.body}`;

/** Redirect URI of X's authorize URL. */
const redirectUriOf = (response: LightMyRequestResponse) =>
  new URL(dataOf(response, xConnectResponseSchema).authorizeUrl).searchParams.get('redirect_uri');

describe.each(DIALECTS)('addresses built from the request [%s]', (dialect) => {
  /**
   * For the suite: an app with `env`, and a signed-in user who follows one handle (so it has
   * feed addresses); built before its first test, closed after its last.
   */
  function readerSuite(env: Record<string, string>) {
    const suite = {} as { t: TestApp; client: TestClient };
    beforeAll(async () => {
      suite.t = await buildTestApp(dialect, { X_CLIENT_ID: 'perch-test-client', ...env });
      suite.client = new TestClient(suite.t.app, '10.66.0.1');
      const { data } = await suite.client.register(suite.t.db, 'host_reader');
      await handleFollowedBy(suite.t, 'NASA', [data.user.id], {});
    });
    afterAll(() => suite.t.close());
    return suite;
  }

  const feeds = (client: TestClient, host: string, headers: Record<string, string> = {}) =>
    client.request({ method: 'GET', url: '/api/v1/settings/feeds', headers: { host, ...headers } });
  const regenerate = (client: TestClient, host: string) =>
    client.request({
      method: 'POST',
      url: '/api/v1/settings/feeds/regenerate',
      headers: { host },
    });
  const connect = (client: TestClient, host: string) =>
    client.request({ method: 'POST', url: '/api/v1/auth/twitter/connect', headers: { host } });
  const readFeed = (t: TestApp, url: string, host: string) =>
    t.app.inject({ method: 'GET', url: new URL(url).pathname, headers: { host } });

  describe('without PUBLIC_URL or ALLOWED_HOSTS, behind one proxy', () => {
    const suite = readerSuite({ TRUST_PROXY: '1' });
    let current: Feeds;
    beforeAll(async () => {
      current = dataOf(await feeds(suite.client, 'localhost:3000'), feedsSchema);
    });

    it('builds the addresses on the loopback names, as `npm start` is reached', async () => {
      for (const host of ['127.0.0.1:3000', 'localhost:3000', 'LOCALHOST:8080', '[::1]:3000']) {
        const origin = `http://${host.toLowerCase()}`;
        const [feed] = dataOf(await feeds(suite.client, host), feedsSchema).feeds;
        expect(feed?.rssUrl.startsWith(`${origin}/api/v1/feeds/`), feed?.rssUrl).toBe(true);
        expect((await readFeed(suite.t, feed?.rssUrl ?? '', host)).body).toContain(
          `${origin}/api/v1/feeds/`,
        );
        expect(redirectUriOf(await connect(suite.client, host))).toBe(
          `${origin}/api/v1/auth/twitter/callback`,
        );
      }
    });

    it('answers 400 to a forged Host on every route that builds an address, naming no host', async () => {
      const [feed] = current.feeds;
      for (const host of FORGED_HOSTS) {
        for (const response of [
          await feeds(suite.client, host),
          await regenerate(suite.client, host),
          await connect(suite.client, host),
          await readFeed(suite.t, feed?.rssUrl ?? '', host),
          await readFeed(suite.t, feed?.jsonUrl ?? '', host),
        ]) {
          expectError(response, 400, HOST_NOT_ALLOWED);
          expect(answerText(response)).not.toContain(FOREIGN);
        }
      }
      // The refused regeneration replaced nothing: the old addresses still work.
      expect(dataOf(await feeds(suite.client, 'localhost:3000'), feedsSchema)).toEqual(current);
    });

    it('answers 400 to a forged X-Forwarded-Host through the trusted proxy, too', async () => {
      const response = await feeds(suite.client, 'localhost:3000', { 'x-forwarded-host': FOREIGN });
      expectError(response, 400, HOST_NOT_ALLOWED);
      expect(answerText(response)).not.toContain(FOREIGN);
    });

    it('puts the forged host into no answer of any page or GET route', async () => {
      const paths = registeredRoutes(suite.t.app)
        .filter((route) => route.method === 'GET' && route.path !== '/api/v1/events')
        .map((route) => route.path.replace(/:[^/]+/g, '1').replace(/\*$/, 'settings'));
      expect(paths.length).toBeGreaterThan(40);
      paths.push('/dashboard', new URL(current.feeds[0]?.rssUrl ?? '').pathname);
      const leaked: string[] = [];
      for (const path of paths) {
        for (const headers of [
          { host: FOREIGN },
          { host: 'localhost', 'x-forwarded-host': FOREIGN },
        ]) {
          const response = await suite.client.request({ method: 'GET', url: path, headers });
          if (answerText(response).includes(FOREIGN))
            leaked.push(`${path}: ${response.statusCode}`);
        }
      }
      expect(leaked).toEqual([]);
    });
  });

  describe('ALLOWED_HOSTS=perch.lan:8080,perch.internal', () => {
    const suite = readerSuite({ ALLOWED_HOSTS: 'perch.lan:8080,perch.internal' });

    it('builds addresses on the listed hosts only: the list replaces the loopback names', async () => {
      const [onLan] = dataOf(await feeds(suite.client, 'perch.lan:8080'), feedsSchema).feeds;
      expect(onLan?.rssUrl).toMatch(/^http:\/\/perch\.lan:8080\/api\/v1\/feeds\//);
      const [internal] = dataOf(
        await feeds(suite.client, 'perch.internal:3000'),
        feedsSchema,
      ).feeds;
      expect(internal?.rssUrl).toMatch(/^http:\/\/perch\.internal:3000\/api\/v1\/feeds\//);
      for (const host of ['perch.lan', 'perch.lan:8081', 'localhost:3000', FOREIGN]) {
        expectError(await feeds(suite.client, host), 400, HOST_NOT_ALLOWED);
      }
    });
  });

  describe('PUBLIC_URL=https://perch.example.com', () => {
    const suite = readerSuite({ PUBLIC_URL: 'https://perch.example.com' });

    it('builds every address on PUBLIC_URL and never reads the Host', async () => {
      for (const host of [...FORGED_HOSTS, 'localhost:3000']) {
        const listed = await feeds(suite.client, host);
        const [feed] = dataOf(listed, feedsSchema).feeds;
        expect(feed?.rssUrl).toMatch(/^https:\/\/perch\.example\.com\/api\/v1\/feeds\//);
        const read = await readFeed(suite.t, feed?.rssUrl ?? '', host);
        expect(read.statusCode).toBe(200);
        const connected = await connect(suite.client, host);
        expect(redirectUriOf(connected)).toBe(
          'https://perch.example.com/api/v1/auth/twitter/callback',
        );
        for (const response of [listed, read, connected]) {
          expect(answerText(response)).not.toContain(FOREIGN);
        }
      }
    });
  });
});
