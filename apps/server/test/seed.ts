/**
 * The set-up steps the API tests share: a fresh account signed in on its own client (session
 * and CSRF cookies kept by TestClient), names no other test uses, a two-factor code that is
 * surely wrong, and a handle collected once and then held still for hand-made tweets.
 */
import { createHash } from 'node:crypto';
import { generate } from 'otplib';
import { afterEach, expect } from 'vitest';
import type { Role } from '@perch/shared';
import type { Dialect } from '../src/db/index.js';
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
  type TestApp,
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
  await t.db.db.deleteFrom('tweets').where('handle_id', '=', handleId).execute();
  await t.db.db.deleteFrom('profile_snapshots').where('handle_id', '=', handleId).execute();
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
