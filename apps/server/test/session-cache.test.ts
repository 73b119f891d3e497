/**
 * The session cache (src/modules/auth/session-cache.ts): its own rules with a local cluster and a
 * fake clock; resolveSession with a cache on a real database; and two API nodes sharing one
 * database, each with its own cache, connected through Redis (TEST_REDIS_URL, default the local
 * one): a session revoked or a password changed on one node is refused by the other on the very
 * next request, with no waiting in between (the revoking request answers once the other cache has
 * acknowledged the invalidation). Without Redis the last group fails: it is not skipped.
 *
 * buildApp does not take a session cache yet, so each node here is a Fastify app made the way
 * app.ts makes one (error handler, cookies, authPlugin, then the routes under /api/v1), limited
 * to the routes these tests use.
 */
import { createHash } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { authCheckResponseSchema, securitySessionsResponseSchema } from '@perch/shared';
import { createLocalCluster, type Cluster } from '../src/cluster/cluster.js';
import { createRedisCluster } from '../src/cluster/redis-cluster.js';
import type { Config } from '../src/config.js';
import { createDb, type Db } from '../src/db/index.js';
import { adminRoutes } from '../src/modules/admin/admin.routes.js';
import { authRoutes } from '../src/modules/auth/auth.routes.js';
import {
  openSession,
  resolveSession,
  type AuthContext,
} from '../src/modules/auth/sessions.service.js';
import {
  PRESENCE_MS,
  SESSION_CACHE_CHANNEL,
  SESSION_CACHE_TTL_MS,
  createSessionCache,
  type CachedSession,
  type SessionCache,
} from '../src/modules/auth/session-cache.js';
import { revokeSession } from '../src/modules/auth/sessions.repository.js';
import { securityRoutes } from '../src/modules/security/security.routes.js';
import { twoFactorRoutes } from '../src/modules/security/two-factor.routes.js';
import { insertUser, type UserRow } from '../src/modules/users/users.repository.js';
import { authPlugin } from '../src/modules/auth/auth.plugin.js';
import { errorHandlerPlugin } from '../src/plugins/error-handler.js';
import { dataOf, expectError } from './assertions.js';
import { DIALECTS, TestClient, createTestDb, testClock, waitFor, type TestDb } from './helpers.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PASSWORD = 'Sup3r-secret!';
const NEW_PASSWORD = 'An0ther-secret!';

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}_${process.pid.toString(36)}_${++counter}`;
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

function fakeUser(id: number): UserRow {
  return {
    id,
    username: `user${id}`,
    email: `user${id}@example.com`,
    password_hash: 'hash',
    is_admin: false,
    is_super_admin: false,
    profile: null,
    created_at: '2026-01-01T00:00:00.000Z',
    last_login_at: null,
    totp_secret: null,
    totp_enabled_at: null,
    totp_pending_secret: null,
    totp_last_step: null,
    security_settings: '{}',
  };
}

function entry(idHash: string, userId: number, expiresAt: number, lastSeenAt = 0): CachedSession {
  const auth: AuthContext = {
    user: fakeUser(userId),
    sessionIdHash: idHash,
    authenticatedAt: null,
  };
  return { auth, expiresAt, lastSeenAt, createdAt: 0, rememberMe: false };
}

describe('session cache', () => {
  let clock = 1_000_000;
  const now = () => clock;
  let cluster: Cluster;
  beforeEach(() => {
    clock = 1_000_000;
    cluster = createLocalCluster();
  });
  afterEach(() => cluster.close());

  it('answers a session until its TTL is over, then misses', async () => {
    const cache = await createSessionCache({ cluster, now, ttlMs: 5_000 });
    cache.set('a', entry('a', 1, clock + 3_600_000), cache.snapshot());
    expect(cache.get('a')?.auth.user.id).toBe(1);
    clock += 4_999;
    expect(cache.get('a')?.auth.sessionIdHash).toBe('a');
    clock += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.stats()).toMatchObject({ entries: 0, hits: 2, misses: 1 });
  });

  it('never answers past the session’s own expiry, and keeps no session already over', async () => {
    const cache = await createSessionCache({ cluster, now, ttlMs: 5_000 });
    cache.set('a', entry('a', 1, clock + 1_000), cache.snapshot());
    clock += 999;
    expect(cache.get('a')).toBeDefined();
    clock += 1;
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', entry('b', 1, clock), cache.snapshot());
    expect(cache.get('b')).toBeUndefined();
  });

  it('holds at most maxEntries, dropping the least recently used', async () => {
    const cache = await createSessionCache({ cluster, now, maxEntries: 3 });
    const expiresAt = clock + 3_600_000;
    for (const id of ['a', 'b', 'c']) cache.set(id, entry(id, 1, expiresAt), cache.snapshot());
    expect(cache.get('a')).toBeDefined(); // 'b' is now the least recently used
    cache.set('d', entry('d', 1, expiresAt), cache.snapshot());
    expect(cache.stats().entries).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    for (const id of ['a', 'c', 'd']) expect(cache.get(id)).toBeDefined();
  });

  it('keeps a frozen copy, so one request cannot change what the next one sees', async () => {
    const cache = await createSessionCache({ cluster, now });
    const stored = entry('a', 1, clock + 60_000);
    cache.set('a', stored, cache.snapshot());
    stored.auth.user.is_admin = true;
    const cached = cache.get('a');
    expect(cached?.auth.user.is_admin).toBe(false);
    expect(Object.isFrozen(cached?.auth.user)).toBe(true);
  });

  it('invalidates one session, or every session of a user, here and on every other cache', async () => {
    const here = await createSessionCache({ cluster, now });
    const there = await createSessionCache({ cluster, now });
    const expiresAt = clock + 3_600_000;
    for (const cache of [here, there]) {
      cache.set('u1-a', entry('u1-a', 1, expiresAt), cache.snapshot());
      cache.set('u1-b', entry('u1-b', 1, expiresAt), cache.snapshot());
      cache.set('u2-a', entry('u2-a', 2, expiresAt), cache.snapshot());
    }

    await here.invalidateSession('u1-a');
    for (const cache of [here, there]) {
      expect(cache.get('u1-a')).toBeUndefined();
      expect(cache.get('u1-b')).toBeDefined();
    }

    await there.invalidateUser(1);
    for (const cache of [here, there]) {
      expect(cache.get('u1-b')).toBeUndefined();
      expect(cache.get('u2-a')).toBeDefined();
    }
    expect(here.stats()).toMatchObject({ sent: 1, received: 1 });
    expect(there.stats()).toMatchObject({ sent: 1, received: 1 });
  });

  it('does not keep a lookup that started before an invalidation', async () => {
    const cache = await createSessionCache({ cluster, now });
    const snapshot = cache.snapshot();
    // A revocation on another node, committed while this node was reading the old row.
    await cluster.publish(SESSION_CACHE_CHANNEL, { from: 'another-node', user: 9 });
    cache.set('a', entry('a', 1, clock + 60_000), snapshot);
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', entry('a', 1, clock + 60_000), cache.snapshot());
    expect(cache.get('a')).toBeDefined();
  });

  it('ignores messages that are not invalidations', async () => {
    const cache = await createSessionCache({ cluster, now });
    cache.set('a', entry('a', 1, clock + 60_000), cache.snapshot());
    for (const message of [null, 'a', { session: 'a' }, { from: 'x' }, { from: 'x', user: '1' }]) {
      await cluster.publish(SESSION_CACHE_CHANNEL, message);
    }
    expect(cache.get('a')).toBeDefined();
    expect(cache.stats().received).toBe(0);
  });

  it('drops locally and reports, without throwing, when the message cannot be published', async () => {
    const failing: Cluster = {
      ...cluster,
      publish: () => Promise.reject(new Error('Redis is down')),
    };
    const errors: string[] = [];
    const cache = await createSessionCache({
      cluster: failing,
      now,
      onError: (error) => errors.push(error.message),
    });
    expect(errors).toEqual(['Redis is down']); // its hello
    cache.set('a', entry('a', 1, clock + 60_000), cache.snapshot());
    await expect(cache.invalidateSession('a')).resolves.toBeUndefined();
    expect(cache.get('a')).toBeUndefined();
    expect(errors).toEqual(['Redis is down', 'Redis is down']);
  });

  it('an invalidation resolves once the other caches have dropped the entries', async () => {
    const here = await createSessionCache({ cluster, now });
    const there = await createSessionCache({ cluster, now });
    expect(here.stats().peers).toBe(1);
    expect(there.stats().peers).toBe(1);
    there.set('a', entry('a', 1, clock + 60_000), there.snapshot());
    const acks: unknown[] = [];
    await cluster.subscribe(SESSION_CACHE_CHANNEL, (message) => {
      if ((message as { ack?: string }).ack !== undefined) acks.push(message);
    });
    await here.invalidateSession('a');
    expect(there.get('a')).toBeUndefined();
    expect(acks).toHaveLength(1);
  });

  it('waits at most ackTimeoutMs for a cache that does not answer, then reports it', async () => {
    const errors: string[] = [];
    const cache = await createSessionCache({
      cluster,
      now,
      ackTimeoutMs: 50,
      onError: (error) => errors.push(error.message),
    });
    await cluster.publish(SESSION_CACHE_CHANNEL, { from: 'stuck-node', hello: true });
    expect(cache.stats().peers).toBe(1);
    const started = performance.now();
    await cache.invalidateUser(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('stuck-node');

    // Gone for good: said bye, or not heard for three presence intervals.
    await cluster.publish(SESSION_CACHE_CHANNEL, { from: 'stuck-node', bye: true });
    expect(cache.stats().peers).toBe(0);
    await cluster.publish(SESSION_CACHE_CHANNEL, { from: 'silent-node', hello: true });
    expect(cache.stats().peers).toBe(1);
    clock += 3 * PRESENCE_MS + 1;
    expect(cache.stats().peers).toBe(0);
    await cache.invalidateUser(1);
    expect(errors).toHaveLength(1);
  });

  it('after close, keeps and answers nothing', async () => {
    const cache = await createSessionCache({ cluster, now });
    cache.set('a', entry('a', 1, clock + 60_000), cache.snapshot());
    await cache.close();
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', entry('b', 1, clock + 60_000), cache.snapshot());
    expect(cache.get('b')).toBeUndefined();
  });

  it('uses a short TTL by default', () => {
    expect(SESSION_CACHE_TTL_MS).toBeLessThanOrEqual(10_000);
  });
});

describe.each(DIALECTS)('resolveSession with a session cache [%s]', (dialect) => {
  let db: TestDb;
  let cluster: Cluster;
  let cache: SessionCache;
  beforeAll(async () => {
    db = await createTestDb(dialect);
  });
  afterAll(() => db.dispose());
  beforeEach(async () => {
    cluster = createLocalCluster();
    cache = await createSessionCache({ cluster });
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await cluster.close();
  });

  async function newSession(rememberMe = false) {
    const user = await insertUser(db.db, {
      username: uniqueName('resolve'),
      email: `${uniqueName('resolve')}@example.com`,
      passwordHash: 'not-a-real-hash',
      isAdmin: false,
      isSuperAdmin: false,
      createdAt: new Date().toISOString(),
    });
    const { token } = await openSession(db, user.id, rememberMe, {
      ip: '127.0.0.1',
      userAgent: null,
    });
    return { token, idHash: sha256(token), userId: user.id };
  }
  const sessionRow = (idHash: string) =>
    db.db.selectFrom('sessions').selectAll().where('id', '=', idHash).executeTakeFirstOrThrow();
  const setSession = (idHash: string, values: { last_seen_at?: string; expires_at?: string }) =>
    db.db.updateTable('sessions').set(values).where('id', '=', idHash).execute();
  const iso = (ms: number) => new Date(ms).toISOString();

  it('answers from memory until invalidated, where the database alone would refuse', async () => {
    const { token, idHash, userId } = await newSession();
    expect((await resolveSession(db, token, cache))?.user.id).toBe(userId);
    // Revoked behind the cache's back (no invalidation): still answered from memory...
    await revokeSession(db.db, idHash, new Date().toISOString());
    expect(await resolveSession(db, token)).toBeNull();
    expect((await resolveSession(db, token, cache))?.sessionIdHash).toBe(idHash);
    // ...until the invalidation every revoking code path sends.
    await cache.invalidateSession(idHash);
    expect(await resolveSession(db, token, cache)).toBeNull();
    expect(cache.stats().entries).toBe(0);
  });

  it('still touches a session once a minute: a due touch reads and writes the database', async () => {
    const { token, idHash } = await newSession();
    const start = Date.now();
    // Last seen 58 s ago: no touch due yet, the session is cached as it is.
    await setSession(idHash, { last_seen_at: iso(start - 58_000) });
    vi.spyOn(Date, 'now').mockReturnValue(start);
    await resolveSession(db, token, cache);
    expect((await sessionRow(idHash)).last_seen_at).toBe(iso(start - 58_000));

    // 3 s later, within the TTL: the touch is due, so the database is read and written.
    vi.spyOn(Date, 'now').mockReturnValue(start + 3_000);
    await resolveSession(db, token, cache);
    const touched = await sessionRow(idHash);
    expect(touched.last_seen_at).toBe(iso(start + 3_000));
    expect(Date.parse(touched.expires_at)).toBeGreaterThan(start + 3_000 + 11 * 3_600_000);

    // The next second: answered from memory, with nothing written.
    const hits = cache.stats().hits;
    vi.spyOn(Date, 'now').mockReturnValue(start + 4_000);
    await resolveSession(db, token, cache);
    expect(cache.stats().hits).toBe(hits + 1);
    expect((await sessionRow(idHash)).last_seen_at).toBe(iso(start + 3_000));
  });

  it('respects the session’s expiry even within the TTL', async () => {
    const { token, idHash } = await newSession(true);
    const start = Date.now();
    await setSession(idHash, { expires_at: iso(start + 1_000) });
    vi.spyOn(Date, 'now').mockReturnValue(start);
    expect(await resolveSession(db, token, cache)).not.toBeNull();
    vi.spyOn(Date, 'now').mockReturnValue(start + 1_000);
    expect(await resolveSession(db, token, cache)).toBeNull();
  });
});

/** One API node: the plugins and routes app.ts registers, with this node's session cache. */
async function buildNode(config: Config, db: Db, sessionCache: SessionCache, now?: () => number) {
  const app = Fastify({ logger: false }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(errorHandlerPlugin);
  await app.register(fastifyCookie);
  await app.register(authPlugin, { config, db, sessionCache, now });
  await app.register(
    async (api) => {
      await api.register(authRoutes, { config, db });
      await api.register(adminRoutes, { config, db });
      await api.register(securityRoutes, { config, db });
      await api.register(twoFactorRoutes, { config, db });
    },
    { prefix: '/api/v1' },
  );
  await app.ready();
  return app as unknown as FastifyInstance;
}

describe.each(DIALECTS)(
  'two API nodes, one database, caches invalidated through Redis [%s]',
  (dialect) => {
    let db1: TestDb;
    let db2: Db;
    let clusters: Cluster[] = [];
    let caches: SessionCache[] = [];
    let nodes: FastifyInstance[] = [];
    let tests = 0;
    const clock = testClock();

    beforeAll(async () => {
      db1 = await createTestDb(dialect);
      // The same SQLite file (DATA_DIR) or the same PostgreSQL schema, through its own connection.
      db2 = createDb(db1.config);
    });
    afterAll(async () => {
      await db2.close();
      await db1.dispose();
    });

    beforeEach(async () => {
      clock.reset();
      const prefix = `perch-test-sessions-${process.pid}-${dialect}-${++tests}`;
      clusters = [
        await createRedisCluster({ url: redisUrl, prefix, nodeId: 'node-1' }),
        await createRedisCluster({ url: redisUrl, prefix, nodeId: 'node-2' }),
      ];
      caches = await Promise.all(clusters.map((cluster) => createSessionCache({ cluster })));
      nodes = [
        await buildNode(db1.config, db1, caches[0]!, clock.now),
        await buildNode(db1.config, db2, caches[1]!, clock.now),
      ];
      // Each cache has heard the other's hello (a node that has just started is not waited for).
      await waitFor(
        () => caches.map((each) => each.stats().peers),
        (peers) => peers.every((count) => count === 1),
        2_000,
      );
    });
    afterEach(async () => {
      for (const node of nodes) await node.close();
      for (const cache of caches) await cache.close();
      for (const cluster of clusters) await cluster.close();
    });

    const node = (index: number) => nodes[index]!;
    const cache = (index: number) => caches[index]!;

    /** The same browser (its cookies) talking to another node. */
    function sameBrowserOn(app: FastifyInstance, client: TestClient): TestClient {
      const other = new TestClient(app, client.ip);
      for (const [name, value] of client.cookies) other.cookies.set(name, value);
      return other;
    }

    /**
     * Node 2 has applied one more invalidation than `before`, checked without waiting: the
     * request that revoked answered only once node 2 had acknowledged it.
     */
    function heardOnNode2(before: number) {
      expect(cache(1).stats().received).toBe(before + 1);
    }

    async function signedInOnNode1(role: 'user' | 'superadmin' = 'user') {
      const username = uniqueName('node');
      const client = new TestClient(node(0), '10.77.0.1');
      const { data } = await client.register(db1, username, role, PASSWORD);
      const token = client.cookies.get('perch_session');
      if (!token) throw new Error('no session cookie after registration');
      return { client, username, userId: data.user.id, idHash: sha256(token) };
    }

    /** A request that needs a session, on node 2, answered from its cache when it holds one. */
    const currentOn = (client: TestClient) => client.get('/api/v1/security/sessions/current');

    it('serves a session from node 2’s cache: a revocation it is not told about goes unseen', async () => {
      const { client, idHash } = await signedInOnNode1();
      const onNode2 = sameBrowserOn(node(1), client);
      expect((await currentOn(onNode2)).statusCode).toBe(200);
      expect(cache(1).stats().entries).toBe(1);

      // Revoked in the database only, as a process without the cluster would do it: node 2
      // still takes the session until the TTL (auth/check answers from the request's session).
      await revokeSession(db1.db, idHash, new Date().toISOString());
      const hits = cache(1).stats().hits;
      const check = dataOf(await onNode2.get('/api/v1/auth/check'), authCheckResponseSchema);
      expect(check.authenticated).toBe(true);
      expect(cache(1).stats().hits).toBe(hits + 1);
      expectError(await currentOn(sameBrowserOn(node(0), client)), 401);
    });

    it('sign-out on node 1: node 2 refuses the session on its next request', async () => {
      const { client } = await signedInOnNode1();
      const onNode2 = sameBrowserOn(node(1), client);
      expect((await currentOn(onNode2)).statusCode).toBe(200);
      expect(cache(1).stats().entries).toBe(1);

      const before = cache(1).stats().received;
      expect((await client.post('/api/v1/auth/logout')).statusCode).toBe(200);
      heardOnNode2(before);
      expect(cache(1).stats().entries).toBe(0);
      expectError(await currentOn(onNode2), 401);
      const check = dataOf(await onNode2.get('/api/v1/auth/check'), authCheckResponseSchema);
      expect(check.authenticated).toBe(false);
    });

    it('one session revoked through the security API on node 1: refused on node 2', async () => {
      const { client, username } = await signedInOnNode1();
      // A second browser of the same user, signed in on node 2 and cached there.
      const phone = new TestClient(node(1), '10.77.0.2');
      const signIn = await phone.post('/api/v1/auth/login', {
        username,
        password: PASSWORD,
        rememberMe: false,
      });
      expect(signIn.statusCode).toBe(200);
      expect((await currentOn(phone)).statusCode).toBe(200);

      const { sessions } = dataOf(
        await client.get('/api/v1/security/sessions'),
        securitySessionsResponseSchema,
      );
      const phoneSession = sessions.find((session) => !session.current);
      expect(phoneSession).toBeDefined();
      const before = cache(1).stats().received;
      expect(
        (await client.delete(`/api/v1/security/sessions/${phoneSession?.id}`)).statusCode,
      ).toBe(200);
      heardOnNode2(before);
      expectError(await currentOn(phone), 401);
      // The laptop's own session lives on, on both nodes.
      expect((await currentOn(client)).statusCode).toBe(200);
      expect((await currentOn(sameBrowserOn(node(1), client))).statusCode).toBe(200);
    });

    it('a password change on node 1 signs the other sessions out on node 2 at once', async () => {
      const { client, username } = await signedInOnNode1();
      const phone = new TestClient(node(1), '10.77.0.3');
      expect(
        (
          await phone.post('/api/v1/auth/login', {
            username,
            password: PASSWORD,
            rememberMe: true,
          })
        ).statusCode,
      ).toBe(200);
      const laptopOnNode2 = sameBrowserOn(node(1), client);
      expect((await currentOn(phone)).statusCode).toBe(200);
      expect((await currentOn(laptopOnNode2)).statusCode).toBe(200);
      expect(cache(1).stats().entries).toBe(2);

      const before = cache(1).stats().received;
      const changed = await client.post('/api/v1/auth/change-password', {
        currentPassword: PASSWORD,
        newPassword: NEW_PASSWORD,
      });
      expect(changed.statusCode, changed.body).toBe(200);
      heardOnNode2(before);
      expectError(await currentOn(phone), 401);
      // The session that made the change stays signed in, on node 2 too, read again from the
      // database: its cached row held the old password hash.
      expect((await currentOn(laptopOnNode2)).statusCode).toBe(200);
      const again = await laptopOnNode2.post('/api/v1/auth/change-password', {
        currentPassword: NEW_PASSWORD,
        newPassword: PASSWORD,
      });
      expect(again.statusCode, again.body).toBe(200);
    });

    it('revoking the other sessions on node 1 is seen on node 2', async () => {
      const { client, username } = await signedInOnNode1();
      const phone = new TestClient(node(1), '10.77.0.4');
      await phone.post('/api/v1/auth/login', { username, password: PASSWORD, rememberMe: false });
      expect((await currentOn(phone)).statusCode).toBe(200);

      const before = cache(1).stats().received;
      expect((await client.post('/api/v1/security/sessions/revoke-others')).statusCode).toBe(200);
      heardOnNode2(before);
      expectError(await currentOn(phone), 401);
      expect((await currentOn(sameBrowserOn(node(1), client))).statusCode).toBe(200);
    });

    it('a re-authentication on node 1 counts on node 2 at once', async () => {
      const { client } = await signedInOnNode1();
      const onNode2 = sameBrowserOn(node(1), client);
      const startTwoFactor = () => onNode2.post('/api/v1/security/2fa', { enabled: true });
      clock.advance(10 * 60_000);
      // Refused on node 2, which now holds the session (with its old proof) in its cache.
      expectError(await startTwoFactor(), 403, { code: 'REAUTH_REQUIRED' });
      expect(cache(1).stats().entries).toBe(1);

      const before = cache(1).stats().received;
      const proven = await client.post('/api/v1/auth/reauthenticate', { password: PASSWORD });
      expect(proven.statusCode, proven.body).toBe(200);
      heardOnNode2(before);
      expect((await startTwoFactor()).statusCode).toBe(200);
    });

    it('a role change on node 1 ends the user’s session on node 2 at once', async () => {
      const admin = await signedInOnNode1('superadmin');
      const { client, userId, username } = await signedInOnNode1();
      const onNode2 = sameBrowserOn(node(1), client);
      const checkOnNode2 = async () =>
        dataOf(await onNode2.get('/api/v1/auth/check'), authCheckResponseSchema);
      expect((await checkOnNode2()).isAdmin).toBe(false);
      expectError(await onNode2.get('/api/v1/admin/users'), 403);

      const before = cache(1).stats().received;
      const changed = await admin.client.request({
        method: 'PUT',
        url: `/api/v1/admin/users/${userId}/role`,
        payload: { role: 'admin' },
      });
      expect(changed.statusCode, changed.body).toBe(200);
      heardOnNode2(before);
      expectError(await onNode2.get('/api/v1/admin/users'), 401);
      // Signed in again (on node 2), the user has the new role.
      const login = await onNode2.post('/api/v1/auth/login', { username, password: PASSWORD });
      expect(login.statusCode, login.body).toBe(200);
      expect((await checkOnNode2()).isAdmin).toBe(true);
      expect((await onNode2.get('/api/v1/admin/users')).statusCode).toBe(200);
    });
  },
);
