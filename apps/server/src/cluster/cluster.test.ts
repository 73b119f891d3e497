/**
 * The cluster primitives against the real Redis of this machine (TEST_REDIS_URL), each test
 * under its own key prefix, and the in-memory one that embedded mode uses.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import {
  CollectorEvents,
  type HandleProgressEvent,
  type HandleStatusEvent,
} from '../domain/collector-events.js';
import { logHandleStatus } from '../collector/status-log.js';
import type { Logger } from '../lib/logger.js';
import { createLocalCluster, createLocalRosters, type Cluster } from './cluster.js';
import { createRedisCluster } from './redis-cluster.js';
import { relayEvents } from './event-relay.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let sequence = 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Redis cluster', () => {
  const open: Cluster[] = [];
  let prefix = '';

  async function node(): Promise<Cluster> {
    const cluster = await createRedisCluster({ url: REDIS_URL, prefix }).catch((error: Error) => {
      throw new Error(
        `These tests need Redis at ${REDIS_URL} (start redis-server or set TEST_REDIS_URL): ${error.message}`,
      );
    });
    open.push(cluster);
    return cluster;
  }

  afterEach(async () => {
    for (const cluster of open.splice(0)) await cluster.close();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  /** The collector events of a new node that hears the others' (and publishes its own). */
  async function relayingNode({ publish }: { publish: boolean }): Promise<CollectorEvents> {
    const events = new CollectorEvents();
    await relayEvents({ cluster: await node(), events, publish, receive: true });
    return events;
  }

  const fresh = () => {
    prefix = `perch-test-cluster-${process.pid}-${++sequence}`;
  };

  it('delivers a message to every node subscribed, the sender included', async () => {
    fresh();
    const [a, b] = [await node(), await node()];
    const heard: string[] = [];
    await a.subscribe('news', (message) => heard.push(`a:${JSON.stringify(message)}`));
    await b.subscribe('news', (message) => heard.push(`b:${JSON.stringify(message)}`));
    await a.publish('news', { n: 1 });
    await expect.poll(() => heard.sort()).toEqual(['a:{"n":1}', 'b:{"n":1}']);
    expect(a.nodeId).not.toBe(b.nodeId);
  });

  it('grants a lock to one node at a time, keeps it renewed and hands it over on release', async () => {
    fresh();
    const [a, b] = [await node(), await node()];
    const lock = await a.tryLock('poller', 300);
    expect(lock?.held).toBe(true);
    expect(await b.tryLock('poller', 300)).toBeNull();
    // Renewed every third of its time: still held well after 300 ms.
    await sleep(700);
    expect(lock?.held).toBe(true);
    expect(await b.tryLock('poller', 300)).toBeNull();
    await lock?.release();
    expect(lock?.held).toBe(false);
    const taken = await b.tryLock('poller', 300);
    expect(taken?.held).toBe(true);
  });

  it('lets another node take a lock whose holder stopped renewing it (a crash), and tells the old holder', async () => {
    fresh();
    const [a, b] = [await node(), await node()];
    let lost = false;
    const lock = await a.tryLock('poller', 300, () => (lost = true));
    expect(lock).not.toBeNull();
    // The holder's process "stops": its connection is gone, so nothing renews the lock.
    const redis = new Redis(REDIS_URL);
    await redis.set(`${prefix}:lock:poller`, 'someone-else', 'PX', 5_000);
    await redis.quit();
    await expect.poll(() => lost, { timeout: 2_000 }).toBe(true);
    expect(lock?.held).toBe(false);
    expect(await b.tryLock('poller', 300)).toBeNull();
  });

  it('relays collector events from a worker node to the listeners of an API node, once', async () => {
    fresh();
    const workerEvents = await relayingNode({ publish: true });
    const apiEvents = await relayingNode({ publish: false });
    const heardByApi: HandleProgressEvent[] = [];
    const heardByWorker: HandleProgressEvent[] = [];
    apiEvents.on('handle.progress', (event) => heardByApi.push(event));
    workerEvents.on('handle.progress', (event) => heardByWorker.push(event));
    const event: HandleProgressEvent = {
      handleId: 7,
      username: 'nasa',
      status: 'in_progress',
      progress: 42,
      totalTweets: 120,
      estimatedCompletion: null,
    };
    workerEvents.emit('handle.progress', event);
    await expect.poll(() => heardByApi).toEqual([event]);
    await sleep(100);
    // The worker's own listener heard it once: its own message from Redis is not replayed.
    expect(heardByWorker).toEqual([event]);
    expect(heardByApi).toHaveLength(1);
  });

  it('logs a handle status change on the node that made it only, though every node hears it', async () => {
    fresh();
    // Two workers, as main.ts wires them: each publishes its events and hears the other's.
    const aEvents = await relayingNode({ publish: true });
    const bEvents = await relayingNode({ publish: true });
    const logged = { a: [] as unknown[], b: [] as unknown[] };
    const recording = (lines: unknown[]) =>
      ({
        info: (details: object, message: string) => lines.push({ ...details, message }),
        warn: () => {},
        error: () => {},
      }) as unknown as Logger;
    logHandleStatus(aEvents, recording(logged.a));
    logHandleStatus(bEvents, recording(logged.b));
    const heardByB: HandleStatusEvent[] = [];
    bEvents.on('handle.status', (event) => heardByB.push(event));

    const event: HandleStatusEvent = {
      handleId: 7,
      username: 'nasa',
      status: 'completed',
      error: null,
    };
    aEvents.emit('handle.status', event);
    // B's browsers hear it (its listeners do), but it is A's change: only A logs it.
    await expect.poll(() => heardByB).toEqual([event]);
    await sleep(100);
    expect(logged.a).toEqual([
      { handle: 'nasa', status: 'completed', error: null, message: 'handle status' },
    ]);
    expect(logged.b).toEqual([]);
  });

  it('counts a sliding window shared by every node', async () => {
    fresh();
    const [a, b] = [await node(), await node()];
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await a.take('refresh', 5, 1_000));
    for (let i = 0; i < 3; i++) results.push(await b.take('refresh', 5, 1_000));
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true, false]);
    expect(results[5]!.retryInMs).toBeGreaterThan(0);
    expect(results[5]!.retryInMs).toBeLessThanOrEqual(1_000);
  });

  it('shares remembered values between nodes until they expire or are forgotten', async () => {
    fresh();
    const [a, b] = [await node(), await node()];
    expect(await b.recall('dm:42')).toBeNull();
    await a.remember('dm:42', 'channel-1', 300);
    expect(await b.recall('dm:42')).toBe('channel-1');
    await b.forget('dm:42');
    expect(await a.recall('dm:42')).toBeNull();
    await a.remember('dm:43', 'channel-2', 100);
    await sleep(200);
    expect(await b.recall('dm:43')).toBeNull();
  });

  it('keeps a roster shared by every node within its limit, pushing out the oldest', async () => {
    fresh();
    const [a, b] = [await node(), await node()];
    expect(await a.enroll('streams', 'a1', 3, 60_000)).toEqual([]);
    expect(await b.enroll('streams', 'b1', 3, 60_000)).toEqual([]);
    expect(await a.enroll('streams', 'a2', 3, 60_000)).toEqual([]);
    expect(await b.enroll('streams', 'b2', 3, 60_000)).toEqual(['a1']);
    await a.withdraw('streams', 'b1');
    expect(await a.enroll('streams', 'a3', 3, 60_000)).toEqual([]);
    expect(await b.enroll('streams', 'b3', 3, 60_000)).toEqual(['a2']);
  });

  it('drops the members nobody keeps (their node stopped) once their time is up', async () => {
    fresh();
    const [a, b] = [await node(), await node()];
    await a.enroll('streams', 'gone', 2, 150);
    await b.enroll('streams', 'kept', 2, 150);
    // Only b renews its member; a "crashed". As with remembered values, the time is the TTL's.
    const renew = setInterval(() => void b.keep('streams', ['kept'], 150), 40);
    try {
      await sleep(300);
      await b.keep('streams', ['kept'], 60_000);
    } finally {
      clearInterval(renew);
    }
    expect(await b.enroll('streams', 'new', 2, 60_000)).toEqual([]);
    expect(await b.enroll('streams', 'newer', 2, 60_000)).toEqual(['kept']);
  });
});

describe('local cluster (one process)', () => {
  it('keeps messages, locks and windows in memory', async () => {
    const cluster = createLocalCluster();
    const heard: unknown[] = [];
    await cluster.subscribe('news', (message) => heard.push(message));
    await cluster.publish('news', { n: 1 });
    expect(heard).toEqual([{ n: 1 }]);
    const lock = await cluster.tryLock('x', 1_000);
    expect(await cluster.tryLock('x', 1_000)).toBeNull();
    await lock?.release();
    expect(await cluster.tryLock('x', 1_000)).not.toBeNull();
    expect((await cluster.take('k', 1, 1_000)).ok).toBe(true);
    expect((await cluster.take('k', 1, 1_000)).ok).toBe(false);
    await cluster.remember('v', 'one', 60_000);
    expect(await cluster.recall('v')).toBe('one');
    await cluster.forget('v');
    expect(await cluster.recall('v')).toBeNull();
    await cluster.remember('w', 'two', -1);
    expect(await cluster.recall('w')).toBeNull();
    await cluster.close();
  });

  it('keeps rosters in memory: the oldest pushed out, the lapsed forgotten', async () => {
    let clock = 0;
    const rosters = createLocalRosters(() => clock);
    expect(await rosters.enroll('r', 'one', 2, 100)).toEqual([]);
    expect(await rosters.enroll('r', 'two', 2, 100)).toEqual([]);
    expect(await rosters.enroll('r', 'three', 2, 100)).toEqual(['one']);
    await rosters.withdraw('r', 'two');
    expect(await rosters.enroll('r', 'four', 2, 100)).toEqual([]);
    clock = 80;
    await rosters.keep('r', ['four'], 100);
    clock = 150;
    // 'three' lapsed at 100; 'four' was kept until 180.
    expect(await rosters.enroll('r', 'five', 2, 100)).toEqual([]);
    expect(await rosters.enroll('r', 'six', 2, 100)).toEqual(['four']);
  });
});
