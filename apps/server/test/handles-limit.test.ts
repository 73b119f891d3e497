/**
 * The 10-handle limit holds when one user adds many handles at once: from several tabs, and on
 * PostgreSQL through several API nodes, each with its own connection pool.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_HANDLES_PER_USER } from '@perch/shared';
import { buildApp } from '../src/app.js';
import { createDb, type Db } from '../src/db/index.js';
import { countLinks } from '../src/modules/handles/handles.repository.js';
import { errorOf } from './assertions.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';

const ATTEMPTS = 20;
const LIMIT_MESSAGE = `Handle limit reached (${MAX_HANDLES_PER_USER})`;

/** Sends every add at once, spread over `clients` in turn, and sorts the answers. */
async function addAllAtOnce(clients: TestClient[]) {
  const responses = await Promise.all(
    Array.from({ length: ATTEMPTS }, (_, index) =>
      clients[index % clients.length]!.post('/api/v1/handles', {
        username: `quiet_race${index}`,
        backfill_days: 1,
      }),
    ),
  );
  const added = responses.filter((response) => response.statusCode === 201);
  const refused = responses.filter((response) => response.statusCode !== 201);
  return { added, refused };
}

async function expectLimitHeld(clients: TestClient[], db: Db, userId: number) {
  const { added, refused } = await addAllAtOnce(clients);
  expect(added).toHaveLength(MAX_HANDLES_PER_USER);
  for (const response of refused) {
    expect(response.statusCode, response.body).toBe(400);
    expect(errorOf(response).message).toBe(LIMIT_MESSAGE);
  }
  expect(await countLinks(db.db, userId)).toBe(MAX_HANDLES_PER_USER);
}

describe.each(DIALECTS)('handle limit under concurrent adds [%s]', (dialect) => {
  let t: TestApp;

  beforeEach(async () => {
    t = await buildTestApp(dialect);
  });

  afterEach(async () => {
    await t.close();
  });

  it(`${ATTEMPTS} adds at once from one user: exactly ${MAX_HANDLES_PER_USER} succeed`, async () => {
    const alice = new TestClient(t.app);
    const { data } = await alice.register(t.db, 'alice');
    await expectLimitHeld([alice], t.db, data.user.id);
  });

  it('the same handle twice at once from one user: one 201, one 409', async () => {
    const alice = new TestClient(t.app);
    const { data } = await alice.register(t.db, 'alice');
    const add = () => alice.post('/api/v1/handles', { username: 'quiet_twice', backfill_days: 1 });
    const statuses = (await Promise.all([add(), add()])).map((response) => response.statusCode);
    expect(statuses.sort()).toEqual([201, 409]);
    expect(await countLinks(t.db.db, data.user.id)).toBe(1);
  });

  it('two users adding the same new handle at once share one handle', async () => {
    const alice = new TestClient(t.app);
    const bob = new TestClient(t.app);
    await alice.register(t.db, 'alice');
    await bob.register(t.db, 'bob');
    const responses = await Promise.all(
      [alice, bob].map((client) =>
        client.post('/api/v1/handles', { username: 'quiet_shared', backfill_days: 1 }),
      ),
    );
    expect(responses.map((response) => response.statusCode)).toEqual([201, 201]);
    const handles = await t.db.db
      .selectFrom('handles')
      .select('id')
      .where('username', '=', 'quiet_shared')
      .execute();
    expect(handles).toHaveLength(1);
  });
});

describe.runIf(DIALECTS.includes('postgres'))('handle limit across API nodes [postgres]', () => {
  let t: TestApp;
  let secondDb: Db;
  let second: FastifyInstance;

  beforeEach(async () => {
    t = await buildTestApp('postgres');
    // Another node: its own app and its own pool on the same database, as a second process has.
    secondDb = createDb(t.config);
    second = await buildApp({ config: t.config, db: secondDb, logger: false });
    await second.ready();
  });

  afterEach(async () => {
    await second.close();
    await secondDb.close();
    await t.close();
  });

  it(`${ATTEMPTS} adds at once split over two nodes: exactly ${MAX_HANDLES_PER_USER} succeed`, async () => {
    const onFirst = new TestClient(t.app);
    const { data } = await onFirst.register(t.db, 'alice');
    await onFirst.get('/api/v1/auth/check');
    // One browser behind a load balancer: the same cookies reach either node.
    const onSecond = new TestClient(second);
    for (const [name, value] of onFirst.cookies) onSecond.cookies.set(name, value);
    await expectLimitHeld([onFirst, onSecond], t.db, data.user.id);
  });
});
