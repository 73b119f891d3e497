/**
 * The scale-out queue: the collector's jobs in BullMQ on Redis, shared by every process that
 * names the same Redis, key prefix and queue name. It keeps the promises of the in-process queue
 * across processes:
 *
 * - One job per (kind, handle): a job's BullMQ id is `${kind}-${handleId}` (BullMQ refuses ':' in
 *   a custom id), so a second add of it is a no-op while it is queued or running anywhere, and
 *   finished jobs are removed at once so that the same job can be queued again.
 * - Producer and consumer: an instance takes jobs only once `start()` was called. The API
 *   processes enqueue and cancel through instances they never start.
 * - Cancel on every process: `cancel()` removes the handle's queued jobs and publishes the handle
 *   on a Redis channel; each consumer aborts the signal of its own running jobs of that handle.
 * - A consumer that vanishes (killed, host lost) stops renewing the lock of its running jobs; the
 *   stalled-job check of any other consumer puts them back in the queue once the lock expires.
 *
 * Handlers are expected to catch their own errors; one that throws is reported to `onError` and
 * counted as done, never retried: the database holds the state and the scheduler queues the
 * work again when it is due. A job whose signal was aborted ends the same way.
 *
 * What BullMQ and Redis report goes to `log`, one line each, never to stderr. A consumer that
 * stalls for longer than the lock (a blocked event loop, Redis out of reach) loses its running
 * job's lock: BullMQ then fails each renewal and the job's end ('could not renew lock', 'Lock
 * mismatch'). That is expected in a cluster (another consumer may run the job again) and is
 * said once per run of the job, as a warning.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import {
  Queue,
  Worker,
  type Job as BullJob,
  type JobState,
  type JobType,
  type RedisOptions as BullRedisOptions,
} from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { silentLog, type Logger } from '../lib/logger.js';
import { countJobs, type Job, type JobCount, type JobHandler, type JobQueue } from './job-queue.js';
import { JOB_LOCK_LOST_MESSAGE, lostLockJobId } from './bullmq-lost-lock.js';
import { closeRedis } from './redis-close.js';

export { JOB_LOCK_LOST_MESSAGE, lostLockJobId };

export interface BullMqJobQueueOptions {
  /** Runs one job (only on an instance that was started). */
  handler: JobHandler;
  /** REDIS_URL, or ioredis options. */
  connection: string | RedisOptions;
  /** Prefix of every Redis key and channel of the queue (default 'perch'). */
  prefix?: string;
  /** Name of the BullMQ queue under the prefix (default 'collector'). */
  queueName?: string;
  /** Jobs this process runs at once once started (default 4). */
  concurrency?: number;
  /**
   * Called with a job's error, or with a cancel that gave up waiting for the job (default: logs
   * it as an error).
   */
  onError?: (job: Job, error: unknown) => void;
  /** Where BullMQ's and Redis's errors go, one line each (default: nowhere; see `useLogger`). */
  log?: Logger;
  /**
   * How long a running job stays claimed by a consumer that stopped renewing it (default
   * DEFAULT_LOCK_DURATION_MS, 15 s): a crashed consumer's job runs again on another consumer
   * between half of this and 1.25 times it after the crash (the stalled-job check runs every
   * quarter of it).
   */
  lockDurationMs?: number;
  /** Name of this consumer in BullMQ (stored on the jobs it takes; default host-pid). */
  nodeId?: string;
  /** How long `cancel()` waits for a running job of the handle to return (default 30 s). */
  cancelTimeoutMs?: number;
  /** How often `settled()`, `idle()` and `cancel()` look at the jobs' states (default 50 ms). */
  pollIntervalMs?: number;
}

/** A job as stored in Redis; `token` tells the instance that added it from one that did not. */
interface StoredJob {
  kind: Job['kind'];
  handleId: number;
  token: string;
}

interface RunningJob {
  job: Job;
  /** Aborted by stop() for every job, or by a cancel of this job's handle from any process. */
  controller: AbortController;
  done: Promise<void>;
}

const KINDS: readonly Job['kind'][] = ['backfill', 'poll', 'profiles', 'metrics'];

/** States in which a job is queued (not yet running). */
const QUEUED_STATES: readonly (JobState | 'unknown')[] = [
  'waiting',
  'delayed',
  'prioritized',
  'waiting-children',
];

/** The job's BullMQ id: one per (kind, handle); BullMQ forbids ':' and all-digit custom ids. */
const jobIdOf = (job: Job) => `${job.kind}-${job.handleId}`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A running job's lock: a consumer that dies or freezes has its jobs queued again between 7.5 s
 * and 18.75 s later, so that the collector hands its handles to another worker within the 30 s
 * the docs promise (see HANDLE_LEASE_MS in collector/handle-lease.ts). BullMQ renews it every
 * half, so only a consumer whose event loop stalls for 7.5 s loses a job it still runs; the
 * handle's lease in the database then keeps the job to itself.
 */
const DEFAULT_LOCK_DURATION_MS = 15_000;

export class BullMqJobQueue implements JobQueue {
  private readonly handler: JobHandler;
  private readonly concurrency: number;
  private readonly onError: (job: Job, error: unknown) => void;
  private log: Logger;
  /** Jobs whose lost lock was logged, until this process takes them again. */
  private readonly lostLocks = new Set<string>();
  private readonly lockDurationMs: number;
  private readonly nodeId: string;
  private readonly cancelTimeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly url: string | undefined;
  private readonly redisOptions: RedisOptions;
  private readonly prefix: string;
  private readonly queueName: string;
  /** Where cancels are published: every consumer of the queue listens. */
  private readonly cancelChannel: string;
  private readonly queue: Queue<StoredJob, void, Job['kind']>;
  /** Publishes cancels (a subscribed connection can do nothing else, so it is a second one). */
  private readonly publisher: Redis;
  private worker: Worker<StoredJob, void, Job['kind']> | undefined;
  private subscriber: Redis | undefined;
  /** This process's running jobs, by BullMQ id. */
  private readonly running = new Map<string, RunningJob>();
  private state: 'created' | 'running' | 'stopped' = 'created';
  private stopping: Promise<void> | undefined;

  constructor(options: BullMqJobQueueOptions) {
    this.handler = options.handler;
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.onError =
      options.onError ?? ((job, error) => this.log.error({ err: error, job }, 'job failed'));
    this.log = options.log ?? silentLog;
    this.lockDurationMs = options.lockDurationMs ?? DEFAULT_LOCK_DURATION_MS;
    this.nodeId = options.nodeId ?? `${hostname()}-${process.pid}`;
    this.cancelTimeoutMs = options.cancelTimeoutMs ?? 30_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 50;
    if (typeof options.connection === 'string') {
      this.url = options.connection;
      this.redisOptions = {};
    } else {
      this.url = undefined;
      this.redisOptions = options.connection;
    }
    this.prefix = options.prefix ?? 'perch';
    this.queueName = options.queueName ?? 'collector';
    this.cancelChannel = `${this.prefix}:${this.queueName}:cancel`;
    // A Queue only adds and reads jobs: creating it does not make this process a consumer.
    this.queue = new Queue(this.queueName, {
      connection: this.bullConnection(),
      prefix: this.prefix,
      defaultJobOptions: { attempts: 1, removeOnComplete: true, removeOnFail: true },
    });
    this.queue.on('error', (error) => this.report(error));
    this.publisher = this.connect(this.redisOptions);
  }

  /**
   * Queues a job unless the same one is queued or running on any process. BullMQ adds nothing
   * for an id it holds and answers alike, so the job's stored token tells which add made it.
   */
  async enqueue(job: Job): Promise<boolean> {
    if (this.state === 'stopped') return false;
    const token = randomUUID();
    const id = jobIdOf(job);
    const stored = await this.whileOpen(async () => {
      await this.queue.add(
        job.kind,
        { kind: job.kind, handleId: job.handleId, token },
        { jobId: id, attempts: 1, removeOnComplete: true, removeOnFail: true },
      );
      return { job: await this.queue.getJob(id) };
    });
    if (!stored) return false;
    // Gone already: it ran to its end between the add and this read, so whether this add made it
    // can no longer be told. It is counted as added (the scheduler only counts these answers).
    return stored.job === undefined || stored.job.data.token === token;
  }

  /** Makes this process a consumer: a BullMQ worker takes up to `concurrency` jobs at once. */
  start(): void {
    if (this.state !== 'created') return;
    this.state = 'running';
    this.subscriber = this.connect({ ...this.redisOptions, maxRetriesPerRequest: null });
    this.subscriber.on('message', (_channel: string, message: string) => {
      this.abortRunning(Number(message));
    });
    this.subscriber.subscribe(this.cancelChannel).catch((error: unknown) => this.report(error));
    this.worker = new Worker<StoredJob, void, Job['kind']>(
      this.queueName,
      (bullJob) => this.process(bullJob),
      {
        connection: { ...this.bullConnection(), maxRetriesPerRequest: null },
        prefix: this.prefix,
        concurrency: this.concurrency,
        name: this.nodeId,
        lockDuration: this.lockDurationMs,
        // A crashed consumer's job goes back to the queue at the first check after its lock
        // expired, so checks every quarter of the lock bring it back within 1.25 locks.
        stalledInterval: Math.max(1, Math.floor(this.lockDurationMs / 4)),
      },
    );
    this.worker.on('error', (error) => this.report(error));
    // Our processor never throws, so a failure is BullMQ's own (e.g. the job's lock was lost).
    this.worker.on('failed', (_job, error) => this.report(error));
    this.worker.on('stalled', (jobId) =>
      this.log.warn(
        { job: jobId },
        'a job stalled (its worker stopped renewing the lock): it goes back to the queue',
      ),
    );
  }

  /** Logs through `log` from now on (main.ts hands over the app's logger once it exists). */
  useLogger(log: Logger): void {
    this.log = log;
  }

  /**
   * Stops taking jobs, aborts the signal of this process's running jobs, waits for them to
   * return and closes every connection. Queued jobs stay in Redis for the other consumers.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopNow();
    return this.stopping;
  }

  private async stopNow(): Promise<void> {
    this.state = 'stopped';
    const closingWorker = this.worker?.close();
    const running = [...this.running.values()];
    for (const { controller } of running) controller.abort();
    await Promise.allSettled(running.map(({ done }) => done));
    const closing = [closingWorker, this.queue.close()];
    const results = await Promise.allSettled(closing);
    for (const result of results) {
      if (result.status === 'rejected') this.report(result.reason);
    }
    await Promise.all([
      closeRedis(this.publisher),
      this.subscriber ? closeRedis(this.subscriber) : undefined,
    ]);
  }

  /**
   * Drops the handle's queued jobs and aborts its running ones on every process, then resolves
   * once none of them runs anywhere. The abort is published again at each look until then, so a
   * job that was just being taken when the first one went out is aborted too. After
   * `cancelTimeoutMs` it gives up, reports each job still running to `onError` and resolves.
   */
  async cancel(handleId: number): Promise<void> {
    if (this.state === 'stopped') return;
    const jobs = KINDS.map((kind) => ({ kind, handleId }));
    const deadline = Date.now() + this.cancelTimeoutMs;
    for (;;) {
      const active = await this.whileOpen(() => this.removeJobs(jobs));
      if (!active || active.length === 0) return;
      await this.whileOpen(() => this.publisher.publish(this.cancelChannel, String(handleId)));
      if (Date.now() >= deadline) {
        for (const job of active) {
          this.onError(
            job,
            new Error(`cancel gave up after ${this.cancelTimeoutMs} ms: the job still runs`),
          );
        }
        return;
      }
      await sleep(this.pollIntervalMs);
      if (this.stopped) return;
    }
  }

  /**
   * Removes those of `jobs` that are queued, and running ones whose consumer vanished (their lock
   * expired); returns the others that run, whose lock a live consumer holds.
   */
  private async removeJobs(jobs: Job[]): Promise<Job[]> {
    const active: Job[] = [];
    for (const job of jobs) {
      const state = await this.queue.getJobState(jobIdOf(job));
      if (state !== 'active' && !QUEUED_STATES.includes(state)) continue;
      // BullMQ refuses (0) to remove a job whose lock is held: a consumer runs it.
      if ((await this.queue.remove(jobIdOf(job))) === 0) active.push(job);
    }
    return active;
  }

  /** Jobs queued or running on any process (none once this instance stopped). */
  async counts(): Promise<JobCount[]> {
    const read = async (states: JobType[]) =>
      ((await this.whileOpen(() => this.queue.getJobs(states, 0, -1, true))) ?? [])
        .filter((bullJob) => bullJob?.data)
        .map((bullJob) => ({ kind: bullJob.data.kind, handleId: bullJob.data.handleId }));
    const [active, waiting] = await Promise.all([
      read(['active']),
      read(['waiting', 'prioritized', 'delayed']),
    ]);
    return countJobs(active, waiting);
  }

  async jobs(): Promise<Job[]> {
    const stored =
      (await this.whileOpen(() =>
        this.queue.getJobs(
          ['active', 'waiting', 'prioritized', 'delayed', 'waiting-children'],
          0,
          -1,
          true,
        ),
      )) ?? [];
    const byId = new Map<string, Job>();
    // A job that finished while they were read comes back empty; one that moved from waiting to
    // active may come twice.
    for (const bullJob of stored) {
      if (!bullJob?.data || bullJob.id === undefined) continue;
      byId.set(bullJob.id, { kind: bullJob.data.kind, handleId: bullJob.data.handleId });
    }
    return [...byId.values()];
  }

  /**
   * Resolves once nothing is queued or running on any process (at once once this instance
   * stopped). Jobs queued while no consumer runs anywhere keep it waiting.
   */
  async idle(): Promise<void> {
    for (;;) {
      const counts = await this.whileOpen(() =>
        this.queue.getJobCounts('active', 'waiting', 'prioritized', 'delayed', 'waiting-children'),
      );
      if (!counts || Object.values(counts).every((count) => count === 0)) return;
      await sleep(this.pollIntervalMs);
    }
  }

  /**
   * Resolves once this job is neither queued nor running on any process (looked at every
   * `pollIntervalMs`). The same job queued again before a look keeps it waiting for that one.
   */
  async settled(job: Job): Promise<void> {
    const id = jobIdOf(job);
    for (;;) {
      const state = await this.whileOpen(() => this.queue.getJobState(id));
      if (state === undefined) return;
      if (state !== 'active' && !QUEUED_STATES.includes(state)) return;
      await sleep(this.pollIntervalMs);
    }
  }

  /**
   * Runs one job taken by this process's worker. It never throws, so BullMQ counts the job
   * done however it ended and retries none: a handler's error goes to `onError`.
   */
  private async process(bullJob: BullJob<StoredJob, void, Job['kind']>): Promise<void> {
    const job: Job = { kind: bullJob.data.kind, handleId: bullJob.data.handleId };
    const id = bullJob.id ?? jobIdOf(job);
    // A new run: losing its lock is news again.
    this.lostLocks.delete(id);
    const controller = new AbortController();
    // Taken while stop() was closing the worker: it winds down at once.
    if (this.state === 'stopped') controller.abort();
    const done = (async () => {
      try {
        await this.handler(job, controller.signal);
      } catch (error) {
        this.onError(job, error);
      }
    })();
    this.running.set(id, { job, controller, done });
    try {
      await done;
    } finally {
      this.running.delete(id);
    }
  }

  /**
   * One line for an error of BullMQ or Redis. A lost lock is said once per run of the job, as a
   * warning (BullMQ repeats it at each renewal and twice when the job ends); the stack is a field.
   */
  private report(error: unknown): void {
    const jobId = lostLockJobId(error);
    if (jobId === undefined) {
      this.log.error({ err: error }, 'job queue error (BullMQ or Redis)');
      return;
    }
    if (this.lostLocks.has(jobId)) return;
    this.lostLocks.add(jobId);
    this.log.warn({ job: jobId, err: error }, JOB_LOCK_LOST_MESSAGE);
  }

  /** Read through a method so that a check after an await is not narrowed by one before it. */
  private get stopped(): boolean {
    return this.state === 'stopped';
  }

  /** Aborts this process's running jobs of a handle (a cancel from any process). */
  private abortRunning(handleId: number): void {
    for (const { job, controller } of this.running.values()) {
      if (job.handleId === handleId) controller.abort();
    }
  }

  /**
   * Runs a read or write on Redis while this instance is open: undefined once it stopped,
   * including when stop() closed the connection under it.
   */
  private async whileOpen<T>(work: () => Promise<T>): Promise<T | undefined> {
    if (this.state === 'stopped') return undefined;
    try {
      return await work();
    } catch (error) {
      if (this.stopped) return undefined;
      throw error;
    }
  }

  /**
   * BullMQ's connection options: it opens and closes its own connections from them. ioredis
   * takes a null `retryStrategy` (never reconnect), BullMQ's types a function saying the same.
   */
  private bullConnection(): BullRedisOptions {
    const { retryStrategy, ...rest } = this.redisOptions;
    return {
      ...rest,
      ...(retryStrategy === undefined ? {} : { retryStrategy: retryStrategy ?? (() => null) }),
      ...(this.url === undefined ? {} : { url: this.url }),
    };
  }

  private connect(options: RedisOptions): Redis {
    const client = this.url === undefined ? new Redis(options) : new Redis(this.url, options);
    client.on('error', (error: unknown) => this.report(error));
    return client;
  }
}
