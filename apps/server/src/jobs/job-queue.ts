/**
 * The jobs of the collector: data only, so a Redis-backed queue can carry them too. Backfills
 * and polls work on one handle; profile and metric rounds on every handle due (handle id 0).
 */
export interface Job {
  kind: 'backfill' | 'poll' | 'profiles' | 'metrics';
  handleId: number;
}

/** Runs one job; `signal` aborts when the queue stops, and the job should then wind down. */
export type JobHandler = (job: Job, signal: AbortSignal) => Promise<void>;

/**
 * Dispatches jobs: at most one job per (kind, handle) is queued or running at a time. The
 * database, not the queue, holds the state that matters. Two implementations: in-process
 * (embedded mode) and BullMQ on Redis (scale-out, REDIS_URL); both pass one contract suite.
 */
export interface JobQueue {
  /** Queues a job; false when the same job is already queued or running, or the queue stopped. */
  enqueue(job: Job): Promise<boolean>;
  /** Starts running queued jobs. */
  start(): void;
  /** Stops taking jobs, aborts the running ones' signal and waits for them to return. */
  stop(): Promise<void>;
  /** Resolves once nothing is queued or running. */
  idle(): Promise<void>;
  /** Resolves once this job is neither queued nor running (at once when it is neither). */
  settled(job: Job): Promise<void>;
  /**
   * Drops a handle's queued jobs, aborts the signal of its running ones and resolves once they
   * have returned (the queue itself keeps running).
   */
  cancel(handleId: number): Promise<void>;
  /** Jobs queued or running in this queue now. */
  jobs(): Promise<Job[]>;
  /** How many jobs of each kind wait and run (every process's, for a shared queue): /metrics. */
  counts(): Promise<JobCount[]>;
}

export interface JobCount {
  kind: Job['kind'];
  state: 'waiting' | 'active';
  count: number;
}

/** Counts jobs by kind and state. */
export function countJobs(active: readonly Job[], waiting: readonly Job[]): JobCount[] {
  const counts = new Map<string, JobCount>();
  const add = (job: Job, state: JobCount['state']) => {
    const key = `${job.kind}:${state}`;
    const entry = counts.get(key) ?? { kind: job.kind, state, count: 0 };
    entry.count += 1;
    counts.set(key, entry);
  };
  for (const job of active) add(job, 'active');
  for (const job of waiting) add(job, 'waiting');
  return [...counts.values()];
}

export interface InProcessJobQueueOptions {
  handler: JobHandler;
  /** Jobs run at once (default 4). */
  concurrency?: number;
  /** Called with a job's error (handlers are expected to catch their own). */
  onError?: (job: Job, error: unknown) => void;
}

const keyOf = (job: Job) => `${job.kind}:${job.handleId}`;

interface RunningJob {
  job: Job;
  /** Aborted by stop() for every job, or by cancel() for this job's handle. */
  controller: AbortController;
  done: Promise<void>;
}

/** The embedded-mode queue: an in-memory FIFO worked by `concurrency` slots. */
export class InProcessJobQueue implements JobQueue {
  private readonly handler: JobHandler;
  private readonly concurrency: number;
  private readonly onError: (job: Job, error: unknown) => void;
  private readonly waiting: Job[] = [];
  private readonly keys = new Set<string>();
  private readonly running = new Map<string, RunningJob>();
  private idleWaiters: (() => void)[] = [];
  private readonly settledWaiters = new Map<string, (() => void)[]>();
  private state: 'created' | 'running' | 'stopped' = 'created';

  constructor({ handler, concurrency = 4, onError = () => {} }: InProcessJobQueueOptions) {
    this.handler = handler;
    this.concurrency = Math.max(1, concurrency);
    this.onError = onError;
  }

  enqueue(job: Job): Promise<boolean> {
    return Promise.resolve(this.enqueueNow(job));
  }

  private enqueueNow(job: Job): boolean {
    if (this.state === 'stopped') return false;
    const key = keyOf(job);
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    this.waiting.push(job);
    this.pump();
    return true;
  }

  start(): void {
    if (this.state !== 'created') return;
    this.state = 'running';
    this.pump();
  }

  async stop(): Promise<void> {
    if (this.state === 'stopped') {
      await Promise.allSettled([...this.running.values()].map(({ done }) => done));
      return;
    }
    this.state = 'stopped';
    for (const job of this.waiting.splice(0)) this.release(keyOf(job));
    const running = [...this.running.values()];
    for (const { controller } of running) controller.abort();
    await Promise.allSettled(running.map(({ done }) => done));
    this.notifyIdle();
  }

  async cancel(handleId: number): Promise<void> {
    const dropped = this.waiting.filter((job) => job.handleId === handleId);
    for (const job of dropped) {
      this.waiting.splice(this.waiting.indexOf(job), 1);
      this.release(keyOf(job));
    }
    const running = [...this.running.values()].filter(({ job }) => job.handleId === handleId);
    for (const { controller } of running) controller.abort();
    await Promise.allSettled(running.map(({ done }) => done));
    this.notifyIdle();
  }

  jobs(): Promise<Job[]> {
    return Promise.resolve([...[...this.running.values()].map(({ job }) => job), ...this.waiting]);
  }

  counts(): Promise<JobCount[]> {
    return Promise.resolve(
      countJobs(
        [...this.running.values()].map(({ job }) => job),
        this.waiting,
      ),
    );
  }

  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  settled(job: Job): Promise<void> {
    const key = keyOf(job);
    if (!this.keys.has(key)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.settledWaiters.get(key) ?? [];
      waiters.push(resolve);
      this.settledWaiters.set(key, waiters);
    });
  }

  /** Jobs queued or running. */
  get size(): number {
    return this.keys.size;
  }

  private isIdle(): boolean {
    return this.running.size === 0 && (this.waiting.length === 0 || this.state !== 'running');
  }

  private release(key: string): void {
    this.keys.delete(key);
    const waiters = this.settledWaiters.get(key);
    if (!waiters) return;
    this.settledWaiters.delete(key);
    for (const resolve of waiters) resolve();
  }

  private notifyIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private pump(): void {
    while (
      this.state === 'running' &&
      this.running.size < this.concurrency &&
      this.waiting.length > 0
    ) {
      const job = this.waiting.shift();
      if (!job) break;
      const key = keyOf(job);
      const controller = new AbortController();
      const done = this.handler(job, controller.signal)
        .catch((error: unknown) => this.onError(job, error))
        .finally(() => {
          this.running.delete(key);
          this.release(key);
          this.pump();
          this.notifyIdle();
        });
      this.running.set(key, { job, controller, done });
    }
  }
}
