/**
 * Scale-out: the 5 s gap between refreshes of a handle holds for every API node, through the
 * cluster's shared window (Redis), not for each process apart.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { Cluster } from '../src/cluster/cluster.js';
import { createRedisCluster } from '../src/cluster/redis-cluster.js';
import { expectError } from './assertions.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let sequence = 0;

describe.each(DIALECTS)('analytics refresh across API nodes [%s]', (dialect) => {
  let t: TestApp;
  let clusters: Cluster[] = [];

  beforeEach(async () => {
    const prefix = `perch-test-refresh-${process.pid}-${++sequence}`;
    clusters = [
      await createRedisCluster({ url: REDIS_URL, prefix }),
      await createRedisCluster({ url: REDIS_URL, prefix }),
    ];
    t = await buildTestApp(dialect, {}, { cluster: clusters[0] });
  });

  afterEach(async () => {
    await t.close();
    for (const cluster of clusters) await cluster.close();
  });

  it('a refresh on one node makes the other answer 429 within 5 s', async () => {
    const second = await buildApp({
      config: t.config,
      db: t.db,
      logger: false,
      cluster: clusters[1],
    });
    try {
      const onFirst = new TestClient(t.app);
      await onFirst.register(t.db, 'alice');
      const onSecond = new TestClient(second);
      for (const [name, value] of onFirst.cookies) onSecond.cookies.set(name, value);
      expect(
        (await onFirst.post('/api/v1/handles', { username: 'typical_shared', backfill_days: 7 }))
          .statusCode,
      ).toBe(201);

      expect((await onFirst.post('/api/v1/analytics/refresh/typical_shared')).statusCode).toBe(200);
      const refused = expectError(
        await onSecond.post('/api/v1/analytics/refresh/typical_shared'),
        429,
        { message: 'Please wait a few seconds before refreshing again.' },
      );
      expect(refused.code).toBe('RATE_LIMITED');
    } finally {
      await second.close();
    }
  });
});
