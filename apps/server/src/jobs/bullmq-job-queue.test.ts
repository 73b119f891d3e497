/**
 * The JobQueue contract on BullMQ against a real Redis (TEST_REDIS_URL, default the local one;
 * CI starts it). Each test has its own key prefix, whose keys are deleted after it. Without
 * Redis these tests fail: they are not skipped.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { ErrorCode, Worker } from 'bullmq';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loggerOptions } from '../lib/logger.js';
import { BullMqJobQueue, JOB_LOCK_LOST_MESSAGE, lostLockJobId } from './bullmq-job-queue.js';
import { describeJobQueueContract, type ForeignConsumer } from './job-queue.contract.js';
import type { Job } from './job-queue.js';
import { onlyLogLine } from '../lib/test-factories.js';

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

/** An Error as BullMQ makes it for a refused command (finished-errors.ts: message and code). */
const refusal = (message: string, code: number) => Object.assign(new Error(message), { code });

describe('lostLockJobId', () => {
  it.each([
    ['a failed renewal', new Error('could not renew lock for job poll-7'), 'poll-7'],
    [
      'a finish with another token',
      refusal(
        'Lock mismatch for job poll-7. Cmd moveToFinished from active',
        ErrorCode.JobLockMismatch,
      ),
      'poll-7',
    ],
    [
      'a finish after the lock expired',
      refusal('Missing lock for job backfill-3. moveToFinished', ErrorCode.JobLockNotExist),
      'backfill-3',
    ],
    [
      'a finish after the job went back to the queue',
      refusal('Job metrics-2 is not in the active state. moveToFinished', ErrorCode.JobNotInState),
      'metrics-2',
    ],
    [
      'a finish after a cancel removed the job',
      refusal('Missing key for job poll-9. moveToFinished', ErrorCode.JobNotExist),
      'poll-9',
    ],
    ['a connection error', new Error('connect ECONNREFUSED 127.0.0.1:6379'), undefined],
    [
      'another refusal',
      refusal('Job poll-7 has pending dependencies. moveToFinished', ErrorCode.JobPendingChildren),
      undefined,
    ],
    ['not an Error', 'could not renew lock for job poll-7', undefined],
  ])('%s', (_case, error, jobId) => {
    expect(lostLockJobId(error)).toBe(jobId);
  });
});

describe('BullMqJobQueue logs', () => {
  let queue: BullMqJobQueue | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await queue?.stop();
    queue = undefined;
  });

  /** The app's JSON logger (as main.ts hands it over), writing into `lines`. */
  function jsonLog() {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        callback();
      },
    });
    const app = Fastify({
      logger: loggerOptions({ level: 'info' }, { format: 'json', destination }),
    });
    return { log: app.log.child({ module: 'job-queue' }), lines };
  }

  it('says a lost job lock once, as one JSON warning, and writes nothing to stderr', async () => {
    const lockDurationMs = 400;
    const { log, lines } = jsonLog();
    const stderr = vi.spyOn(process.stderr, 'write');
    const consoleError = vi.spyOn(console, 'error');
    const consoleWarn = vi.spyOn(console, 'warn');
    // Every event the BullMQ workers emit, to wait for the errors of BullMQ's own code path.
    const emitted = vi.spyOn(Worker.prototype, 'emit');
    const errorsOf = (text: string) =>
      emitted.mock.calls.filter(
        ([name, error]) =>
          name === 'error' && error instanceof Error && error.message.includes(text),
      ).length;

    let finish!: () => void;
    const running = new Promise<void>((resolve) => (finish = resolve));
    let started!: () => void;
    const taken = new Promise<void>((resolve) => (started = resolve));
    queue = new BullMqJobQueue({
      connection: redisUrl,
      prefix,
      lockDurationMs,
      concurrency: 1,
      handler: async () => {
        started();
        await running;
      },
    });
    queue.useLogger(log);
    queue.start();
    await queue.enqueue({ kind: 'poll', handleId: 7 });
    await taken;

    // Another consumer holds the job now (as after this process stalled past its lock).
    await redis!.set(`${prefix}:collector:poll-7:lock`, 'another-consumer-token');
    // BullMQ renews every quarter of the lock: each renewal fails...
    await expect.poll(() => errorsOf('could not renew lock for job poll-7')).toBeGreaterThan(2);
    // ...and so do the job's completion and then its failure, once the handler returns.
    finish();
    await expect.poll(() => errorsOf('Lock mismatch for job poll-7')).toBe(2);

    const line = onlyLogLine(lines);
    expect(line).toMatchObject({
      level: 40,
      module: 'job-queue',
      job: 'poll-7',
      msg: JOB_LOCK_LOST_MESSAGE,
      err: { message: 'could not renew lock for job poll-7' },
    });
    expect((line.err as { stack: string }).stack).toContain('LockManager');
    expect(stderr).not.toHaveBeenCalled();
    expect(consoleError).not.toHaveBeenCalled();
    expect(consoleWarn).not.toHaveBeenCalled();
  });
});
