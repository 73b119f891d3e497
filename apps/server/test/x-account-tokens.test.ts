import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { xAccountStatusSchema, type XAccountStatus } from '@perch/shared';
import {
  TokenCipherError,
  createTokenCipher,
  readOrCreateKeyFile,
} from '../src/lib/token-cipher.js';
import {
  XTokenError,
  createXOAuth,
  validAccessToken,
  type XOAuth,
} from '../src/modules/x-account/x-account.service.js';
import { dataOf } from './assertions.js';
import { startFakeXServer, type FakeXServer } from './fakes/fake-x-server.js';
import { DIALECTS, type TestApp, type TestClient } from './helpers.js';
import { appWithXOAuth } from './seed.js';

describe('token cipher (AES-256-GCM)', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-cipher-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('round-trips, with a fresh IV every time', () => {
    const cipher = createTokenCipher({ secretKey: 'k'.repeat(40), dataDir: tempDir() });
    const first = cipher.encrypt('the-token', 'ctx');
    const second = cipher.encrypt('the-token', 'ctx');
    expect(first).not.toBe(second);
    expect(first).not.toContain('the-token');
    expect(first).toMatch(/^[A-Za-z0-9_-]+$/);
    // iv (12) + tag (16) + 9 bytes of ciphertext.
    expect(Buffer.from(first, 'base64url')).toHaveLength(37);
    expect(cipher.decrypt(first, 'ctx')).toBe('the-token');
    expect(cipher.decrypt(second, 'ctx')).toBe('the-token');
  });

  it('refuses a value moved to another context, tampered with, or sealed with another key', () => {
    const dataDir = tempDir();
    const cipher = createTokenCipher({ secretKey: 'k'.repeat(40), dataDir });
    const sealed = cipher.encrypt('the-token', 'x_accounts.access_token:1');
    expect(() => cipher.decrypt(sealed, 'x_accounts.access_token:2')).toThrow(TokenCipherError);
    const raw = Buffer.from(sealed, 'base64url');
    raw[raw.length - 1]! ^= 1;
    expect(() => cipher.decrypt(raw.toString('base64url'), 'x_accounts.access_token:1')).toThrow(
      TokenCipherError,
    );
    expect(() => cipher.decrypt('short', 'x_accounts.access_token:1')).toThrow(TokenCipherError);
    const other = createTokenCipher({ secretKey: 'j'.repeat(40), dataDir });
    expect(() => other.decrypt(sealed, 'x_accounts.access_token:1')).toThrow(TokenCipherError);
  });

  it('without SECRET_KEY keeps a generated key in DATA_DIR/secret.key (0600), made on first use', () => {
    const dataDir = path.join(tempDir(), 'nested');
    const cipher = createTokenCipher({ dataDir });
    const file = path.join(dataDir, 'secret.key');
    expect(fs.existsSync(file)).toBe(false);
    const sealed = cipher.encrypt('the-token', 'ctx');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8').trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Another process (or a restart) reads the same key.
    expect(createTokenCipher({ dataDir }).decrypt(sealed, 'ctx')).toBe('the-token');
    expect(readOrCreateKeyFile(dataDir)).toBe(fs.readFileSync(file, 'utf8').trim());
  });

  it('with SECRET_KEY never writes a key file; a too short key file is refused', () => {
    const dataDir = tempDir();
    createTokenCipher({ secretKey: 'k'.repeat(40), dataDir }).encrypt('x', 'ctx');
    expect(fs.existsSync(path.join(dataDir, 'secret.key'))).toBe(false);
    fs.writeFileSync(path.join(dataDir, 'secret.key'), 'short\n');
    expect(() => createTokenCipher({ dataDir }).encrypt('x', 'ctx')).toThrow(/at least 32/);
  });
});

describe.each(DIALECTS)('validAccessToken (%s)', (dialect) => {
  let fake: FakeXServer;
  let t: TestApp;

  afterEach(async () => {
    await t.close();
    await fake.close();
  });

  /** A signed-in user whose X account is connected through the fake. */
  async function connected(env: Record<string, string> = {}) {
    fake = await startFakeXServer();
    const xUser = fake.addUser({ username: 'AliceOnX' });
    fake.setAuthorizingUser(xUser.id);
    const built = await appWithXOAuth(dialect, fake, env);
    t = built.t;
    const { client, userId } = built;
    const start = await client.post('/api/v1/auth/twitter/connect');
    const authorizeUrl = (start.json() as { data: { authorizeUrl: string } }).data.authorizeUrl;
    const consent = await fetch(authorizeUrl, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') ?? '');
    const callback = await client.get(`${back.pathname}${back.search}`);
    expect(callback.headers.location).toBe('/dashboard/settings?twitter=connected');
    const oauth = createXOAuth(t.config);
    return { client, userId, oauth };
  }

  const row = (userId: number) =>
    t.db.db.selectFrom('x_accounts').selectAll().where('user_id', '=', userId).executeTakeFirst();
  const sealedTokens = async (userId: number, oauth: XOAuth) => {
    const account = await row(userId);
    if (!account) throw new Error('no x_accounts row');
    return {
      access: oauth.cipher.decrypt(account.access_token, `x_accounts.access_token:${userId}`),
      refresh: oauth.cipher.decrypt(
        account.refresh_token ?? '',
        `x_accounts.refresh_token:${userId}`,
      ),
    };
  };
  const expire = (userId: number) =>
    t.db.db
      .updateTable('x_accounts')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('user_id', '=', userId)
      .execute();
  const tokenRequests = () => fake.requests.filter((r) => r.path === '/2/oauth2/token');
  async function status(client: TestClient): Promise<XAccountStatus> {
    return dataOf(await client.get('/api/v1/auth/twitter/status'), xAccountStatusSchema);
  }
  async function xTokenError(promise: Promise<unknown>): Promise<XTokenError> {
    const error: unknown = await promise.then(
      () => new Error('resolved'),
      (reason: unknown) => reason,
    );
    if (!(error instanceof XTokenError)) throw error;
    return error;
  }

  it('hands out the stored token while it is valid, without calling X', async () => {
    const { userId, oauth } = await connected();
    const before = tokenRequests().length;
    const { access } = await sealedTokens(userId, oauth);
    expect(await validAccessToken(t.db, userId, oauth)).toBe(access);
    expect(tokenRequests()).toHaveLength(before);
  });

  it('refreshes an expired token, stores the rotated refresh token, once for concurrent callers', async () => {
    const { userId, oauth } = await connected();
    const old = await sealedTokens(userId, oauth);
    await expire(userId);

    const [first, second] = await Promise.all([
      validAccessToken(t.db, userId, oauth),
      validAccessToken(t.db, userId, oauth),
    ]);
    expect(first).toBe(second);
    expect(first).not.toBe(old.access);
    const refreshes = tokenRequests().filter((r) => r.form?.grant_type === 'refresh_token');
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]?.form).toMatchObject({
      refresh_token: old.refresh,
      client_id: fake.clientId,
    });

    const now = await sealedTokens(userId, oauth);
    expect(now.access).toBe(first);
    expect(now.refresh).not.toBe(old.refresh);
    expect(fake.isTokenActive(old.refresh)).toBe(false);
    expect(fake.isTokenActive(now.refresh)).toBe(true);
    const account = await row(userId);
    expect(Date.parse(account?.expires_at ?? '')).toBeGreaterThan(Date.now() + 7_000_000);
    expect(account?.refresh_token).not.toContain(now.refresh);

    // The new token is a user token X accepts.
    const me = await fetch(`${fake.baseUrl}/2/users/me`, {
      headers: { authorization: `Bearer ${first}` },
    });
    expect(((await me.json()) as { data: { username: string } }).data.username).toBe('AliceOnX');

    // The next expiry refreshes with the rotated token.
    await expire(userId);
    expect(await validAccessToken(t.db, userId, oauth)).not.toBe(first);
    expect(tokenRequests().at(-1)?.form?.refresh_token).toBe(now.refresh);
  });

  it('refreshes a token about to expire (within a minute)', async () => {
    const { userId, oauth } = await connected();
    const old = await sealedTokens(userId, oauth);
    await t.db.db
      .updateTable('x_accounts')
      .set({ expires_at: new Date(Date.now() + 30_000).toISOString() })
      .execute();
    expect(await validAccessToken(t.db, userId, oauth)).not.toBe(old.access);
  });

  it('ends the connection when X refuses the refresh token (revoked at X)', async () => {
    const { client, userId, oauth } = await connected();
    fake.revokeUserTokens((await row(userId))!.x_user_id);
    await expire(userId);

    const error = await xTokenError(validAccessToken(t.db, userId, oauth));
    expect(error.reason).toBe('revoked');
    expect(tokenRequests().at(-1)?.status).toBe(400);
    expect(await row(userId)).toBeUndefined();
    expect(await status(client)).toMatchObject({ connected: false, method: null });
    expect((await xTokenError(validAccessToken(t.db, userId, oauth))).reason).toBe('not_connected');
  });

  it('treats invalid_grant the same way', async () => {
    const { userId, oauth } = await connected();
    await expire(userId);
    fake.failNextToken(400, 'invalid_grant');
    expect((await xTokenError(validAccessToken(t.db, userId, oauth))).reason).toBe('revoked');
    expect(await row(userId)).toBeUndefined();
  });

  it('keeps the connection when X is down, and refreshes once it is back', async () => {
    const { client, userId, oauth } = await connected();
    await expire(userId);
    fake.failNextToken(503);
    expect((await xTokenError(validAccessToken(t.db, userId, oauth))).reason).toBe('unavailable');
    expect(await row(userId)).toBeDefined();
    expect((await status(client)).connected).toBe(true);
    const token = await validAccessToken(t.db, userId, oauth);
    expect((await sealedTokens(userId, oauth)).access).toBe(token);
  });

  it('keeps a Settings username the user typed after connecting when the connection ends', async () => {
    const { client, userId, oauth } = await connected();
    await t.db.db
      .updateTable('user_settings')
      .set({ twitter_username: 'typed_later' })
      .where('user_id', '=', userId)
      .execute();
    await expire(userId);
    fake.failNextToken(400, 'invalid_grant');
    await xTokenError(validAccessToken(t.db, userId, oauth));
    expect(await status(client)).toMatchObject({
      connected: true,
      method: 'manual',
      username: 'typed_later',
    });
  });

  it('ends the connection when the stored tokens no longer decrypt (another key)', async () => {
    const { userId } = await connected();
    const otherKey = createXOAuth({ ...t.config, SECRET_KEY: 'z'.repeat(40) });
    expect((await xTokenError(validAccessToken(t.db, userId, otherKey))).reason).toBe('revoked');
    expect(await row(userId)).toBeUndefined();
  });

  it('with SECRET_KEY, tokens are sealed with that key and no key file is written', async () => {
    const secretKey = 's'.repeat(48);
    const { userId, oauth } = await connected({ SECRET_KEY: secretKey });
    expect(fs.existsSync(path.join(t.config.DATA_DIR, 'secret.key'))).toBe(false);
    const token = await validAccessToken(t.db, userId, oauth);
    const account = await row(userId);
    const sameKey = createTokenCipher({ secretKey, dataDir: t.config.DATA_DIR });
    expect(sameKey.decrypt(account!.access_token, `x_accounts.access_token:${userId}`)).toBe(token);
  });
});
