import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import {
  X_CONNECT_ERROR_MESSAGES,
  X_OAUTH_NOT_CONFIGURED_MESSAGE,
  xAccountStatusSchema,
  xConnectResponseSchema,
  type XAccountStatus,
} from '@perch/shared';
import { loadConfig } from '../src/config.js';
import { createXOAuth } from '../src/modules/x-account/x-account.service.js';
import { dataOf, expectError } from './assertions.js';
import { startFakeXServer, type FakeXServer, type FakeXUser } from './fakes/fake-x-server.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';
import { appWithXOAuth } from './seed.js';

const CONNECT = '/api/v1/auth/twitter/connect';
const STATUS = '/api/v1/auth/twitter/status';
const DISCONNECT = '/api/v1/auth/twitter/disconnect';
const CALLBACK = '/api/v1/auth/twitter/callback';

/** The path and query of an absolute URL, for `inject`. */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/** The query of the callback's redirect to the Settings page. */
function settingsRedirect(response: LightMyRequestResponse): URLSearchParams {
  expect(response.statusCode, response.body).toBe(302);
  const location = String(response.headers.location);
  expect(location.startsWith('/dashboard/settings?'), location).toBe(true);
  expect(String(response.headers['content-type'] ?? '')).not.toMatch(/json/);
  return new URL(location, 'http://perch.test').searchParams;
}

function expectConnectError(response: LightMyRequestResponse, reason: string): void {
  const query = settingsRedirect(response);
  expect(Object.fromEntries(query)).toEqual({ twitter: 'error', reason });
  expect(X_CONNECT_ERROR_MESSAGES).toHaveProperty(reason);
}

describe.each(DIALECTS)('X account connection (%s)', (dialect) => {
  let fake: FakeXServer;
  let t: TestApp;
  let xUser: FakeXUser;

  afterEach(async () => {
    await t.close();
    await fake.close();
  });

  async function setUp(
    env: Record<string, string> = {},
    fakeOptions: Parameters<typeof startFakeXServer>[0] = {},
  ) {
    fake = await startFakeXServer(fakeOptions);
    xUser = fake.addUser({ username: 'AliceOnX', name: 'Alice' });
    fake.setAuthorizingUser(xUser.id);
    const built = await appWithXOAuth(dialect, fake, env);
    t = built.t;
    return { client: built.client, userId: built.userId };
  }

  async function startConnect(client: TestClient): Promise<URL> {
    const response = await client.post(CONNECT);
    return new URL(dataOf(response, xConnectResponseSchema).authorizeUrl);
  }

  /** X's consent page (the fake answers at once): the URL X sends the browser back to. */
  async function consent(authorizeUrl: URL): Promise<string> {
    const response = await fetch(authorizeUrl, { redirect: 'manual' });
    expect(response.status).toBe(302);
    return response.headers.get('location') ?? '';
  }

  /** Connect, consent at X, come back: the callback's response. */
  async function connectThroughX(client: TestClient): Promise<LightMyRequestResponse> {
    return client.get(pathOf(await consent(await startConnect(client))));
  }

  async function status(client: TestClient): Promise<XAccountStatus> {
    return dataOf(await client.get(STATUS), xAccountStatusSchema);
  }

  const accountRow = (userId: number) =>
    t.db.db.selectFrom('x_accounts').selectAll().where('user_id', '=', userId).executeTakeFirst();
  const twitterUsername = async (userId: number) =>
    (
      await t.db.db
        .selectFrom('user_settings')
        .select('twitter_username')
        .where('user_id', '=', userId)
        .executeTakeFirst()
    )?.twitter_username ?? null;

  it('connects through X: authorize URL, code exchange with PKCE, account named by /2/users/me', async () => {
    const { client, userId } = await setUp();
    expect(await status(client)).toEqual({
      available: true,
      connected: false,
      username: null,
      connectedAt: null,
      method: null,
    });

    const authorizeUrl = await startConnect(client);
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(
      `${fake.baseUrl}/i/oauth2/authorize`,
    );
    const params = Object.fromEntries(authorizeUrl.searchParams);
    expect(params).toMatchObject({
      response_type: 'code',
      client_id: fake.clientId,
      redirect_uri: `http://localhost:80${CALLBACK}`,
      scope: 'tweet.read users.read offline.access',
      code_challenge_method: 'S256',
    });
    expect(authorizeUrl.search).toContain('scope=tweet.read%20users.read%20offline.access');
    expect(params.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The state is stored only as a hash, the verifier only encrypted.
    const pending = await t.db.db.selectFrom('oauth_states').selectAll().execute();
    expect(pending).toHaveLength(1);
    expect(pending[0]!.state).not.toBe(params.state);
    expect(pending[0]!.expires_at > new Date(Date.now() + 9 * 60_000).toISOString()).toBe(true);

    const callback = await client.get(pathOf(await consent(authorizeUrl)));
    expect(Object.fromEntries(settingsRedirect(callback))).toEqual({ twitter: 'connected' });
    expect(callback.headers['cache-control']).toBe('no-store');

    // The code exchange: a public client sends client_id, and the verifier of the challenge.
    const exchange = fake.requests.find((r) => r.path === '/2/oauth2/token');
    expect(exchange?.authorization).toBeNull();
    expect(exchange?.form).toMatchObject({
      grant_type: 'authorization_code',
      client_id: fake.clientId,
      redirect_uri: params.redirect_uri,
    });
    const verifier = exchange?.form?.code_verifier ?? '';
    expect(verifier).not.toBe(pending[0]!.code_verifier);
    expect(createHash('sha256').update(verifier).digest('base64url')).toBe(params.code_challenge);
    const me = fake.requests.find((r) => r.path === '/2/users/me');
    expect(me?.status).toBe(200);
    expect(me?.authorization).toMatch(/^Bearer at-/);
    expect(await t.db.db.selectFrom('oauth_states').selectAll().execute()).toEqual([]);

    const connected = await status(client);
    expect(connected).toMatchObject({
      available: true,
      connected: true,
      username: 'AliceOnX',
      method: 'oauth',
    });
    expect(Date.parse(connected.connectedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    // Settings sees Twitter connected through the same username.
    expect(await twitterUsername(userId)).toBe('AliceOnX');

    // Tokens at rest: not the plaintext, but they open with the server's key.
    const row = await accountRow(userId);
    const accessToken = (me?.authorization ?? '').slice('Bearer '.length);
    expect(row).toMatchObject({ x_user_id: xUser.id, username: 'AliceOnX' });
    expect(row?.scope).toBe('tweet.read users.read offline.access');
    expect(row?.access_token).not.toContain(accessToken);
    expect(row?.refresh_token).toBeTruthy();
    expect(row?.refresh_token).not.toMatch(/^rt-/);
    const { cipher } = createXOAuth(t.config);
    expect(cipher.decrypt(row!.access_token, `x_accounts.access_token:${userId}`)).toBe(
      accessToken,
    );
    const refreshToken = cipher.decrypt(row!.refresh_token!, `x_accounts.refresh_token:${userId}`);
    expect(fake.isTokenActive(refreshToken)).toBe(true);
    const expiresIn = Date.parse(row!.expires_at ?? '') - Date.now();
    expect(expiresIn).toBeGreaterThan(7_000_000);
    expect(expiresIn).toBeLessThanOrEqual(7_200_000);

    // The key was generated once, readable by the owner only.
    const keyFile = path.join(t.config.DATA_DIR, 'secret.key');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
  });

  it('starts forwarding when connecting X is the last thing missing', async () => {
    const { client, userId } = await setUp();
    await client.post('/api/v1/settings', { discord_user_id: '82198898841029460' });
    const running = async () =>
      Boolean(
        (
          await t.db.db
            .selectFrom('user_settings')
            .select('bot_running')
            .where('user_id', '=', userId)
            .executeTakeFirst()
        )?.bot_running,
      );
    expect(await running()).toBe(false);
    const callback = await connectThroughX(client);
    expect(Object.fromEntries(settingsRedirect(callback))).toEqual({ twitter: 'connected' });
    expect(await running()).toBe(true);
  });

  it('authenticates as a confidential client with HTTP Basic when X_CLIENT_SECRET is set', async () => {
    const { client } = await setUp(
      { X_CLIENT_SECRET: 'the-client-secret' },
      { clientSecret: 'the-client-secret' },
    );
    expect(Object.fromEntries(settingsRedirect(await connectThroughX(client)))).toEqual({
      twitter: 'connected',
    });
    const exchange = fake.requests.find((r) => r.path === '/2/oauth2/token');
    expect(exchange?.authorization).toBe(
      `Basic ${Buffer.from(`${fake.clientId}:the-client-secret`).toString('base64')}`,
    );
    expect(exchange?.form?.client_id).toBeUndefined();
    expect((await status(client)).connected).toBe(true);
  });

  it('uses PUBLIC_URL for the redirect URI and the way back to Settings', async () => {
    const { client } = await setUp({ PUBLIC_URL: 'https://perch.example.com/' });
    const authorizeUrl = await startConnect(client);
    expect(authorizeUrl.searchParams.get('redirect_uri')).toBe(
      `https://perch.example.com${CALLBACK}`,
    );
    const callback = await client.get(pathOf(await consent(authorizeUrl)));
    expect(callback.statusCode).toBe(302);
    expect(callback.headers.location).toBe(
      'https://perch.example.com/dashboard/settings?twitter=connected',
    );
  });

  it('refuses a wrong, reused, expired or foreign state, and a missing one', async () => {
    const { client, userId } = await setUp();

    const comeBack = new URL(await consent(await startConnect(client)));
    const code = comeBack.searchParams.get('code') ?? '';
    expectConnectError(
      await client.get(`${CALLBACK}?state=not-the-state&code=${encodeURIComponent(code)}`),
      'invalid_state',
    );
    expectConnectError(
      await client.get(`${CALLBACK}?code=${encodeURIComponent(code)}`),
      'invalid_state',
    );

    // Used once successfully, the same callback URL is refused the second time.
    expect(settingsRedirect(await client.get(pathOf(comeBack.toString()))).get('twitter')).toBe(
      'connected',
    );
    expectConnectError(await client.get(pathOf(comeBack.toString())), 'invalid_state');

    // Expired: the user took longer than ten minutes at X.
    const late = await consent(await startConnect(client));
    await t.db.db
      .updateTable('oauth_states')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .execute();
    expectConnectError(await client.get(pathOf(late)), 'expired_state');

    // Another signed-in user cannot complete alice's connection; alice still can.
    const mallory = new TestClient(t.app, '127.0.0.2');
    await mallory.register(t.db, 'mallory');
    await client.post(DISCONNECT);
    const alicesWayBack = await consent(await startConnect(client));
    expectConnectError(await mallory.get(pathOf(alicesWayBack)), 'invalid_state');
    expect((await status(mallory)).connected).toBe(false);
    expect(settingsRedirect(await client.get(pathOf(alicesWayBack))).get('twitter')).toBe(
      'connected',
    );
    expect((await accountRow(userId))?.username).toBe('AliceOnX');

    // Without a session the callback cannot know whose account it is.
    const anonymous = new TestClient(t.app, '127.0.0.3');
    expectConnectError(await anonymous.get(pathOf(alicesWayBack)), 'not_signed_in');
  });

  it('starting again replaces the earlier pending connection', async () => {
    const { client } = await setUp();
    const first = await consent(await startConnect(client));
    const second = await consent(await startConnect(client));
    expect(await t.db.db.selectFrom('oauth_states').selectAll().execute()).toHaveLength(1);
    expectConnectError(await client.get(pathOf(first)), 'invalid_state');
    expect(settingsRedirect(await client.get(pathOf(second))).get('twitter')).toBe('connected');
  });

  it('sends the browser back with a reason when the user cancels at X', async () => {
    const { client, userId } = await setUp();
    fake.setAuthorizingUser(null);
    expectConnectError(await connectThroughX(client), 'access_denied');
    expect(fake.requests.some((r) => r.path === '/2/oauth2/token')).toBe(false);
    expect(await accountRow(userId)).toBeUndefined();
    // The state was spent by the cancellation.
    expect(await t.db.db.selectFrom('oauth_states').selectAll().execute()).toEqual([]);
  });

  it('sends the browser back with a reason when X refuses the code or is down', async () => {
    const { client, userId } = await setUp();
    fake.failNextToken(400, 'invalid_grant');
    expectConnectError(await connectThroughX(client), 'token_exchange_failed');
    fake.failNextToken(503);
    expectConnectError(await connectThroughX(client), 'x_unavailable');
    expect(await accountRow(userId)).toBeUndefined();
    expect((await status(client)).connected).toBe(false);

    // PKCE: a code issued for another authorization's challenge is refused by X.
    const wayBack = new URL(await consent(await startConnect(client)));
    const code = wayBack.searchParams.get('code') ?? '';
    fake.failNextToken(500);
    expectConnectError(await client.get(pathOf(wayBack.toString())), 'x_unavailable');
    const retry = new URL(await consent(await startConnect(client)));
    retry.searchParams.set('code', code);
    expectConnectError(await client.get(pathOf(retry.toString())), 'token_exchange_failed');
    const refusal = fake.requests.filter((r) => r.path === '/2/oauth2/token').at(-1);
    expect(refusal?.status).toBe(400);
  });

  it('gives the tokens back when /2/users/me cannot name the account', async () => {
    const { client, userId } = await setUp();
    const authorizeUrl = await startConnect(client);
    // A consent without users.read: /2/users/me answers 403.
    const code = fake.authorize({
      clientId: fake.clientId,
      redirectUri: authorizeUrl.searchParams.get('redirect_uri') ?? '',
      codeChallenge: authorizeUrl.searchParams.get('code_challenge') ?? '',
      scope: 'offline.access',
      userId: xUser.id,
    });
    const state = authorizeUrl.searchParams.get('state') ?? '';
    expectConnectError(
      await client.get(`${CALLBACK}?${new URLSearchParams({ state, code }).toString()}`),
      'profile_failed',
    );
    const me = fake.requests.find((r) => r.path === '/2/users/me');
    expect(me?.status).toBe(403);
    const revoke = fake.requests.find((r) => r.path === '/2/oauth2/revoke');
    const accessToken = (me?.authorization ?? '').slice('Bearer '.length);
    expect(revoke?.form?.token).toBe(accessToken);
    expect(fake.isTokenActive(accessToken)).toBe(false);
    expect(await accountRow(userId)).toBeUndefined();
  });

  it('never answers the callback with JSON, whatever the query', async () => {
    const { client } = await setUp();
    expectConnectError(
      await client.get(`${CALLBACK}?state=${'s'.repeat(600)}&code=x`),
      'invalid_request',
    );
    expectConnectError(await client.get(`${CALLBACK}?state=a&state=b`), 'invalid_request');
    const state = (await startConnect(client)).searchParams.get('state') ?? '';
    expectConnectError(await client.get(`${CALLBACK}?state=${state}`), 'invalid_request');
  });

  it('disconnect revokes both tokens at X, deletes them and clears the Settings username', async () => {
    const { client, userId } = await setUp();
    settingsRedirect(await connectThroughX(client));
    const row = await accountRow(userId);
    const { cipher } = createXOAuth(t.config);
    const accessToken = cipher.decrypt(row!.access_token, `x_accounts.access_token:${userId}`);
    const refreshToken = cipher.decrypt(row!.refresh_token!, `x_accounts.refresh_token:${userId}`);

    const response = await client.post(DISCONNECT);
    expect(dataOf(response, xAccountStatusSchema)).toEqual({
      available: true,
      connected: false,
      username: null,
      connectedAt: null,
      method: null,
    });
    expect(response.json()).toMatchObject({ message: 'X account disconnected' });
    const revoked = fake.requests
      .filter((r) => r.path === '/2/oauth2/revoke')
      .map((r) => ({ token: r.form?.token, hint: r.form?.token_type_hint, status: r.status }));
    expect(revoked).toEqual(
      expect.arrayContaining([
        { token: refreshToken, hint: 'refresh_token', status: 200 },
        { token: accessToken, hint: 'access_token', status: 200 },
      ]),
    );
    expect(fake.isTokenActive(accessToken)).toBe(false);
    expect(fake.isTokenActive(refreshToken)).toBe(false);
    expect(await accountRow(userId)).toBeUndefined();
    expect(await twitterUsername(userId)).toBeNull();
    expect((await status(client)).connected).toBe(false);
  });

  it('disconnects even when X cannot be reached to revoke', async () => {
    const { client, userId } = await setUp();
    settingsRedirect(await connectThroughX(client));
    await fake.close();
    const response = await client.post(DISCONNECT);
    expect(dataOf(response, xAccountStatusSchema).connected).toBe(false);
    expect(await accountRow(userId)).toBeUndefined();
    expect(await twitterUsername(userId)).toBeNull();
    fake = await startFakeXServer(); // afterEach closes it
  });

  it('without X_CLIENT_ID: connect is refused, status says unavailable, a typed username counts', async () => {
    fake = await startFakeXServer();
    t = await buildTestApp(dialect, {});
    const client = new TestClient(t.app);
    const { data } = await client.register(t.db, 'bob');
    const userId = data.user.id;

    expectError(await client.post(CONNECT), 400, {
      code: 'X_OAUTH_NOT_CONFIGURED',
      message: X_OAUTH_NOT_CONFIGURED_MESSAGE,
    });
    expect(await status(client)).toEqual({
      available: false,
      connected: false,
      username: null,
      connectedAt: null,
      method: null,
    });
    expectConnectError(await client.get(`${CALLBACK}?state=a&code=b`), 'not_configured');

    // The username the settings module stores: typed in by the user.
    const now = new Date().toISOString();
    await t.db.db
      .insertInto('user_settings')
      .values({ user_id: userId, twitter_username: 'placeholder_username', updated_at: now })
      .execute();
    expect((await status(client)).connected).toBe(false);
    await t.db.db
      .updateTable('user_settings')
      .set({ twitter_username: 'bob_on_x' })
      .where('user_id', '=', userId)
      .execute();
    expect(await status(client)).toEqual({
      available: false,
      connected: true,
      username: 'bob_on_x',
      connectedAt: null,
      method: 'manual',
    });
    // Disconnect forgets the typed username too; no key file was ever needed.
    expect(dataOf(await client.post(DISCONNECT), xAccountStatusSchema).connected).toBe(false);
    expect(await twitterUsername(userId)).toBeNull();
    expect(fs.existsSync(path.join(t.config.DATA_DIR, 'secret.key'))).toBe(false);
  });

  it('answers 401 to anonymous callers and 403 to POSTs without the CSRF token', async () => {
    const { client } = await setUp();
    const anonymous = new TestClient(t.app, '127.0.0.9');
    expectError(await anonymous.post(CONNECT), 401, { code: 'UNAUTHORIZED' });
    expectError(await anonymous.get(STATUS), 401, { code: 'UNAUTHORIZED' });
    expectError(await anonymous.post(DISCONNECT), 401, { code: 'UNAUTHORIZED' });

    expectError(await client.request({ method: 'POST', url: CONNECT, csrf: false }), 403, {
      code: 'CSRF_INVALID',
    });
    expectError(await client.request({ method: 'POST', url: DISCONNECT, csrf: false }), 403, {
      code: 'CSRF_INVALID',
    });
    expect(await t.db.db.selectFrom('oauth_states').selectAll().execute()).toEqual([]);
  });
});

describe('X account configuration', () => {
  it('reads PUBLIC_URL without a trailing slash and refuses bad values', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://perch.example.com/app/' }).PUBLIC_URL).toBe(
      'https://perch.example.com/app',
    );
    expect(() => loadConfig({ PUBLIC_URL: 'perch.example.com' })).toThrow(/PUBLIC_URL/);
    expect(() => loadConfig({ PUBLIC_URL: 'https://perch.example.com/?x=1' })).toThrow(
      /PUBLIC_URL/,
    );
  });

  it('wants a SECRET_KEY of 32 characters or more, and X_CLIENT_ID with X_CLIENT_SECRET', () => {
    expect(() => loadConfig({ SECRET_KEY: 'too-short' })).toThrow(/SECRET_KEY/);
    expect(loadConfig({ SECRET_KEY: 'k'.repeat(32) }).SECRET_KEY).toBe('k'.repeat(32));
    expect(() => loadConfig({ X_CLIENT_SECRET: 'secret' })).toThrow(/X_CLIENT_SECRET/);
  });
});
