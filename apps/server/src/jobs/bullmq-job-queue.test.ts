/**
 * The JobQueue contract on BullMQ against a real Redis (TEST_REDIS_URL, default the local one;
 * CI starts it). Each test has its own key prefix, whose keys are deleted after it. Without
 * Redis these tests fail: they are not skipped.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { BullMqJobQueue } from './bullmq-job-queue.js';
import { describeJobQueueContract, type ForeignConsumer } from './job-queue.contract.js';
import type { Job } from './job-queue.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const serverRoot = fileURLToPath(new URL('../..', import.meta.url));
const queueModule = new URL('./bullmq-job-queue.ts', import.meta.url).href;

/** Reads and deletes the tests' keys; fails fast when Redis is not there. */
let redis: Redis | undefined;
let tests = 0;
let prefix = '';

beforeAll(async () => {
  const client = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // ioredis rejects with "Connection is closed"; the socket's own error says why.
  let cause: unknown;
  client.on('error', (error: unknown) => (cause = error));
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    const reason = cause ?? error;
    throw new Error(
      `The BullMQ job queue tests need Redis at ${redisUrl} (start redis-server, or set ` +
        `TEST_REDIS_URL): ${reason instanceof Error ? reason.message : String(reason)}`,
    );
  }
  redis = client;
});

afterAll(async () => {
  await redis?.quit();
});

beforeEach(() => {
  tests += 1;
  prefix = `perch-test-${process.pid}-${tests}`;
});

// Runs after the contract's own afterEach has stopped the test's queues.
afterEach(async () => {
  if (!redis) return;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
});

/**
 * A consumer in a child process (node with tsx, as `npm run dev` runs the server) on this
 * test's prefix: it prints the job it takes, then hangs in it until it is killed.
 */
function startForeignConsumer({ lockDurationMs }: { lockDurationMs: number }): ForeignConsumer {
  const script = `
    const { BullMqJobQueue } = await import(${JSON.stringify(queueModule)});
    const queue = new BullMqJobQueue({
      connection: ${JSON.stringify(redisUrl)},
      prefix: ${JSON.stringify(prefix)},
      lockDurationMs: ${lockDurationMs},
      concurrency: 1,
      handler: (job) => {
        process.stdout.write(JSON.stringify(job) + '\\n');
        return new Promise(() => {});
      },
    });
    queue.start();
  `;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '--eval', script],
    { cwd: serverRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const running = new Promise<Job>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line)));
    child.once('exit', (code, signal) =>
      reject(new Error(`the consumer process ended (${code ?? signal}) before it took a job`)),
    );
  });
  return {
    running,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

describeJobQueueContract('BullMqJobQueue', {
  makeQueue: ({ handler, concurrency, onError, lockDurationMs }) =>
    new BullMqJobQueue({
      connection: redisUrl,
      prefix,
      handler,
      concurrency,
      onError,
      lockDurationMs,
      pollIntervalMs: 20,
    }),
  acrossProcesses: { startForeignConsumer },
});
