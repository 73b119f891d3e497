/**
 * Live event streams are bounded: 5 per session and 10 per user, the oldest closed first, on one
 * API node and across nodes that share Redis.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { Cluster } from '../src/cluster/cluster.js';
import { createRedisCluster } from '../src/cluster/redis-cluster.js';
import { Collector } from '../src/collector/collector.js';
import { createDemoSource } from '../src/sources/index.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';
import { signedInAs } from './seed.js';
import { SseReader } from './sse.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let prefixSequence = 0;

interface OpenStream {
  sse: SseReader;
  abort: AbortController;
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || !address) throw new Error('not listening');
  return `http://127.0.0.1:${address.port}`;
}

const cookieOf = (client: TestClient) =>
  [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');

const keepAlives = (stream: OpenStream) =>
  stream.sse.frames.filter((frame) => frame.comment === 'keep-alive').length;

/** True once the stream has received a keep-alive it had not received before the call. */
async function stillOpen(stream: OpenStream): Promise<void> {
  const seen = keepAlives(stream);
  await stream.sse.until(() => keepAlives(stream) > seen, 5_000);
}

/** Ended by the server after it said 'stream.replaced'. */
async function replaced(stream: OpenStream): Promise<void> {
  await stream.sse.ended(5_000);
  expect(stream.sse.frames.at(-1)).toEqual({ event: 'stream.replaced', data: '{}' });
}

describe.each(DIALECTS)('live event stream limits (%s)', (dialect) => {
  let t: TestApp;
  const streams: OpenStream[] = [];
  const closers: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.abort.abort();
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** Opens a stream and waits for its first frame: by then the server has counted it. */
  async function open(base: string, client: TestClient): Promise<OpenStream> {
    const abort = new AbortController();
    const response = await fetch(`${base}/api/v1/events`, {
      headers: { cookie: cookieOf(client), accept: 'text/event-stream' },
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    if (!response.body) throw new Error('no body');
    const stream = { sse: new SseReader(response.body), abort };
    streams.push(stream);
    await stream.sse.until((frame) => frame.retry !== undefined);
    return stream;
  }

  const signIn = (app: FastifyInstance, username: string) =>
    signedInAs(new TestClient(app), username);

  async function singleNode(): Promise<string> {
    t = await buildTestApp(dialect, {}, { eventsKeepAliveMs: 100 });
    closers.push(() => t.close());
    return listen(t.app);
  }

  it('leaves 5 streams open in one session: the 2 oldest of 7 are closed', async () => {
    const base = await singleNode();
    const alice = new TestClient(t.app);
    await alice.register(t.db, 'alice');
    const opened: OpenStream[] = [];
    for (let i = 0; i < 7; i++) opened.push(await open(base, alice));

    await replaced(opened[0]!);
    await replaced(opened[1]!);
    await Promise.all(opened.slice(2).map(stillOpen));
  });

  it('leaves 10 streams open for one user over several sessions: the 2 oldest of 12 are closed', async () => {
    const base = await singleNode();
    const first = new TestClient(t.app);
    await first.register(t.db, 'bob');
    const sessions = [first, await signIn(t.app, 'bob'), await signIn(t.app, 'bob')];
    // Another user's streams neither count nor close.
    const carol = new TestClient(t.app);
    await carol.register(t.db, 'carol');
    const carols = [await open(base, carol), await open(base, carol)];

    const opened: OpenStream[] = [];
    for (const session of sessions) {
      for (let i = 0; i < 4; i++) opened.push(await open(base, session));
    }

    await replaced(opened[0]!);
    await replaced(opened[1]!);
    await Promise.all([...opened.slice(2), ...carols].map(stillOpen));
  });

  it('counts the streams of one session across API nodes that share Redis', async () => {
    const prefix = `perch-test-streams-${process.pid}-${++prefixSequence}`;
    const clusters: Cluster[] = [];
    for (let i = 0; i < 2; i++) {
      const cluster = await createRedisCluster({ url: REDIS_URL, prefix });
      clusters.push(cluster);
      closers.push(() => cluster.close());
    }
    t = await buildTestApp(dialect, {}, { eventsKeepAliveMs: 100, cluster: clusters[0] });
    closers.push(() => t.close());
    const other = await buildApp({
      config: t.config,
      db: t.db,
      collector: new Collector({
        db: t.db,
        source: createDemoSource({ pageDelayMs: 0 }),
        monitorIntervalSeconds: t.config.MONITOR_INTERVAL_SECONDS,
      }),
      logger: false,
      eventsKeepAliveMs: 100,
      cluster: clusters[1],
    });
    closers.push(() => other.close());
    const [baseA, baseB] = [await listen(t.app), await listen(other)];

    const dave = new TestClient(t.app);
    await dave.register(t.db, 'dave');
    const onA = [await open(baseA, dave), await open(baseA, dave), await open(baseA, dave)];
    const onB = [await open(baseB, dave), await open(baseB, dave), await open(baseB, dave)];

    // The sixth stream of the session, on node B, closes the oldest, which node A serves.
    await replaced(onA[0]!);
    await Promise.all([...onA.slice(1), ...onB].map(stillOpen));
  });
});
