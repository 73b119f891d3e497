/**
 * The set-up steps the API tests share: a fresh account signed in on its own client (session
 * and CSRF cookies kept by TestClient), names no other test uses, a two-factor code that is
 * surely wrong, and a handle collected once and then held still for hand-made tweets.
 */
import { createHash } from 'node:crypto';
import { generate } from 'otplib';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { backfillProgressSchema, type BackfillProgress, type Role } from '@perch/shared';
import type { Dialect } from '../src/db/index.js';
import { dataOf } from './assertions.js';
import type { FakeXServer } from './fakes/fake-x-server.js';
import {
  findHandleByName,
  updateHandle,
  type HandleRow,
} from '../src/modules/handles/handles.repository.js';
import {
  TEST_PASSWORD,
  TestClient,
  buildTestApp,
  createTestDb,
  testClock,
  waitFor,
  type TestApp,
  type TestAppOptions,
  type TestDb,
} from './helpers.js';

let nameCounter = 0;

/** A username no other test of this file uses (the prefix, '_' and a counter; 3-32 characters). */
export const uniqueName = (prefix: string): string => `${prefix}_${(++nameCounter).toString(36)}`;

/** Hex SHA-256, the form in which tokens and codes are stored. */
export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

export interface SignedInUser {
  client: TestClient;
  username: string;
  email: string;
  userId: number;
}

/**
 * A new account named after `prefix` (made unique), registered through the API with an
 * invitation of `role` on a new client from `ip`: that client is then signed in.
 */
export async function signedInUser(
  t: TestApp,
  prefix: string,
  { ip, role = 'user' }: { ip?: string; role?: Role } = {},
): Promise<SignedInUser> {
  const username = uniqueName(prefix);
  const client = new TestClient(t.app, ip);
  const registered = await client.register(t.db, username, role, TEST_PASSWORD);
  return { client, username, email: `${username}@example.com`, userId: registered.data.user.id };
}

/**
 * Signs `username` in on `client` with the test password (and `headers`, e.g. a user agent);
 * fails the test unless that is accepted. Returns the client, now signed in.
 */
export async function signedInAs(
  client: TestClient,
  username: string,
  headers: Record<string, string> = {},
): Promise<TestClient> {
  const response = await client.request({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { username, password: TEST_PASSWORD },
    headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return client;
}

/**
 * A well-formed six-digit code that no step around now accepts for `secret` (neither the
 * current one nor the one before or after); candidates start at `first`.
 */
export async function wrongTotpCode(secret: string, first = 123456): Promise<string> {
  const near = new Set(
    await Promise.all(
      [-1, 0, 1].map((step) =>
        generate({ secret, epoch: Math.floor(Date.now() / 1000) + step * 30 }),
      ),
    ),
  );
  for (let n = 0; ; n++) {
    const candidate = String(first + n * 7919).slice(-6);
    if (!near.has(candidate)) return candidate;
  }
}

/** Waits until the backfill of `handle` completed (throws when it failed or took 20 s). */
export async function backfillCompleted(t: TestApp, handle: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const row = await findHandleByName(t.db.db, handle);
    if (row?.backfill_status === 'completed') return;
    if (row?.backfill_status === 'failed') throw new Error(`${handle} failed: ${row.last_error}`);
    if (Date.now() > deadline) throw new Error(`backfill of ${handle} did not finish`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * `client` follows `username` (POST /api/v1/handles with `body`), and its first backfill is
 * waited for; the stored handle, which has its X user id by then.
 */
export async function followCollected(
  t: TestApp,
  client: TestClient,
  username: string,
  body: Record<string, unknown> = {},
): Promise<HandleRow & { x_user_id: string }> {
  const response = await client.post('/api/v1/handles', { username, ...body });
  expect(response.statusCode, response.body).toBe(201);
  await backfillCompleted(t, username);
  const row = await findHandleByName(t.db.db, username);
  if (!row?.x_user_id) throw new Error(`no handle ${username}`);
  return { ...row, x_user_id: row.x_user_id };
}

/** No poll for a day, and no stored tweets or profile snapshots: a test stores its own. */
export async function emptiedAndHeld(t: TestApp, handleId: number): Promise<void> {
  const dayAhead = new Date(Date.now() + 24 * 3_600_000).toISOString();
  await updateHandle(t.db.db, handleId, { next_poll_at: dayAhead });
  for (const table of ['tweet_word_days', 'tweets', 'profile_snapshots'] as const) {
    await t.db.db.deleteFrom(table).where('handle_id', '=', handleId).execute();
  }
}

/**
 * Apps and databases each test builds for itself, closed after every test in the order built:
 * for suites whose tests need a fresh app or a database at an older version.
 */
export function closedAfterEachTest(dialect: Dialect) {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  return {
    async app(): Promise<TestApp> {
      const t = await buildTestApp(dialect);
      closers.push(() => t.close());
      return t;
    },
    async db(): Promise<TestDb> {
      const db = await createTestDb(dialect);
      closers.push(() => db.dispose());
      return db;
    },
  };
}

/**
 * A fresh app for every test of the suite, with alice registered and signed in on her own
 * client; closed after each test. Tests read both from the returned object once it is built.
 */
export function appWithAliceEachTest(dialect: Dialect): { t: TestApp; alice: TestClient } {
  const suite = {} as { t: TestApp; alice: TestClient };
  beforeEach(async () => {
    suite.t = await buildTestApp(dialect);
    suite.alice = new TestClient(suite.t.app);
    await suite.alice.register(suite.t.db, 'alice');
  });
  afterEach(() => suite.t.close());
  return suite;
}

/**
 * One app for the whole suite (`buildTestApp` with `env` and `options`), built before its
 * first test and closed after its last; tests read it as `suite.t`.
 */
export function appForSuite(
  dialect: Dialect,
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): { t: TestApp } {
  const suite = {} as { t: TestApp };
  beforeAll(async () => {
    suite.t = await buildTestApp(dialect, env, options);
  });
  afterAll(() => suite.t.close());
  return suite;
}

/**
 * One app for the whole suite on a test clock (see testClock), its collector stopped: nothing
 * there collects, and the collector's own timers need not see the clock jump. Sign-ins open
 * sessions by the real clock, so every test starts there.
 */
export function appOnTestClock(dialect: Dialect): {
  t: TestApp;
  clock: ReturnType<typeof testClock>;
} {
  const clock = testClock();
  const suite = appForSuite(dialect, {}, { now: clock.now });
  beforeAll(() => suite.t.collector.stop());
  beforeEach(() => clock.reset());
  return Object.assign(suite, { clock });
}

/**
 * The app with X account connection (OAuth) and the X API pointed at `fake` (and `env`), and
 * alice registered and signed in on her own client.
 */
export async function appWithXOAuth(
  dialect: Dialect,
  fake: FakeXServer,
  env: Record<string, string> = {},
): Promise<{ t: TestApp; client: TestClient; userId: number }> {
  const t = await buildTestApp(dialect, {
    X_CLIENT_ID: fake.clientId,
    X_API_BASE_URL: fake.baseUrl,
    X_OAUTH_AUTHORIZE_URL: `${fake.baseUrl}/i/oauth2/authorize`,
    ...env,
  });
  const client = new TestClient(t.app);
  const { data } = await client.register(t.db, 'alice');
  return { t, client, userId: data.user.id };
}

/**
 * A new client for each of `accounts` (username to role), registered through the API in the
 * order given: each client is then signed in.
 */
export async function registeredClients<Name extends string>(
  t: TestApp,
  accounts: Record<Name, Role>,
): Promise<Record<Name, TestClient>> {
  const clients = {} as Record<Name, TestClient>;
  for (const [username, role] of Object.entries(accounts) as [Name, Role][]) {
    const client = new TestClient(t.app);
    await client.register(t.db, username, role);
    clients[username] = client;
  }
  return clients;
}

/** The backfill progress of `handle` as `client` reads it. */
export async function progressOf(client: TestClient, handle: string): Promise<BackfillProgress> {
  return dataOf(
    await client.get(`/api/v1/handles/${handle}/backfill-progress`),
    backfillProgressSchema,
  );
}

/** Reads the backfill progress of `handle` until `done` accepts it (15 s at most unless `ms`). */
export function progressUntil(
  client: TestClient,
  handle: string,
  done: (progress: BackfillProgress) => boolean,
  ms?: number,
): Promise<BackfillProgress> {
  return waitFor(() => progressOf(client, handle), done, ms);
}

/** Waits until the backfill of `handle` finished, complete or failed; its progress. */
export const backfillFinished = (client: TestClient, handle: string) =>
  progressUntil(client, handle, (progress) => progress.isComplete || progress.status === 'failed');
