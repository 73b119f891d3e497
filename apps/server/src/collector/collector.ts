import type { PageAlerts } from '../alerts/evaluation.js';
import type { CollectorControl } from '../domain/collector-control.js';
import type { Db } from '../db/index.js';
import {
  InProcessJobQueue,
  type Job,
  type JobCount,
  type JobHandler,
  type JobQueue,
} from '../jobs/job-queue.js';
import { newNodeId } from '../cluster/cluster.js';
import { withJobMetrics, type JobMetrics } from '../lib/metrics.js';
import { LeaseLostError, listDueHandles } from '../modules/handles/handles.repository.js';
import { runBackfill } from './backfill.js';
import { HandleGoneError, type CollectionBudget, type CollectorContext } from './context.js';
import { CollectorEvents } from '../domain/collector-events.js';
import type { Logger } from '../lib/logger.js';
import { HANDLE_LEASE_MS, HandleLeases } from './handle-lease.js';
import { runMetricRefresh } from './metrics.js';
import type { XMetricRefreshPreset } from '@perch/shared';
import { runPoll } from './poll.js';
import { runProfileRefresh } from './profiles.js';
import { SourceGate } from './source-gate.js';
import type { TweetSource } from '../domain/tweet-source.js';

export { HANDLE_LEASE_MS };

export interface CollectorOptions {
  db: Db;
  source: TweetSource;
  /** MONITOR_INTERVAL_SECONDS. */
  monitorIntervalSeconds: number;
  log?: Logger;
  /** Clock (tests pin it). */
  now?: () => Date;
  /** How often the scheduler looks for due work (default 1 s). */
  tickMs?: number;
  /** Jobs at once for the default in-process queue (default 4). */
  concurrency?: number;
  /** Another queue implementation (given the job handler). */
  createQueue?: (handler: JobHandler) => JobQueue;
  /** The daily X spend limit (the cost meter); absent: no limit. */
  budget?: CollectionBudget;
  /** PROFILE_REFRESH_MINUTES (default 15). */
  profileRefreshMinutes?: number;
  /** X_METRIC_REFRESH: which metric readings are taken (default standard). */
  metricRefresh?: XMetricRefreshPreset;
  /** How often profile and metric rounds look for due work (default 60 s). */
  roundEveryMs?: number;
  /** Least time between two probes of refused credentials (default 5 minutes). */
  probeEveryMs?: number;
  /** This process's name in handle leases (default: host, pid and a random part). */
  nodeId?: string;
  /** Prometheus: each job's duration and outcome. */
  jobMetrics?: JobMetrics;
  /**
   * How many processes collect (scale-out): X's rate limits are per app, so each schedules its
   * share of the timeline budget. Default 1.
   */
  share?: () => number;
  /**
   * How long a job's lease on its handle lasts unless renewed (every third of it). A job of a
   * crashed or frozen process loses its handles within this time. Default HANDLE_LEASE_MS.
   */
  leaseMs?: number;
  /** The alert rules, evaluated on each page of new posts as it is stored (context.ts). */
  alerts?: PageAlerts;
}

const silentLog: Logger = {
  info: () => {},
  warn: () => {},
  error: () => {},
};

/** Handles the scheduler looks at per tick. */
const DUE_BATCH = 100;
/** Handle id of the jobs that work on every handle due (profile and metric rounds). */
const ALL_HANDLES = 0;

/**
 * The collector: backfills and monitors every handle somebody follows. The database holds all
 * state; `start()` signs the source's account in and resumes unfinished backfills, a scheduler
 * enqueues due work, and `stop()` lets running jobs save their current page before returning.
 * While the collector account awaits a verification code, nothing is collected; each tick tries
 * a code a super admin submitted.
 */
export class Collector implements CollectorControl {
  readonly events = new CollectorEvents();
  readonly source: TweetSource;
  private readonly ctx: CollectorContext;
  private readonly queue: JobQueue;
  private readonly tickMs: number;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private state: 'created' | 'running' | 'stopped' = 'created';
  /** Handles `halt()` keeps jobs away from, with how many halts hold each. */
  private readonly held = new Map<number, number>();
  private readonly roundEveryMs: number;
  /** When the next profile and metric rounds are enqueued (epoch ms). */
  private nextRoundAt = 0;
  readonly nodeId: string;
  private readonly gate: SourceGate;
  private readonly leases: HandleLeases;

  constructor(options: CollectorOptions) {
    this.source = options.source;
    const now = options.now ?? (() => new Date());
    const log = () => this.ctx.log;
    this.tickMs = options.tickMs ?? 1000;
    this.roundEveryMs = options.roundEveryMs ?? 60_000;
    this.nodeId = options.nodeId ?? newNodeId();
    this.gate = new SourceGate({
      db: options.db,
      source: options.source,
      now,
      log,
      probeEveryMs: options.probeEveryMs ?? 5 * 60_000,
      tickMs: this.tickMs,
      maxSlots: DUE_BATCH,
      share: options.share ?? (() => 1),
    });
    this.leases = new HandleLeases({
      db: options.db,
      nodeId: this.nodeId,
      leaseMs: options.leaseMs ?? HANDLE_LEASE_MS,
      now,
      log,
    });
    this.ctx = {
      db: options.db,
      source: options.source,
      events: this.events,
      log: options.log ?? silentLog,
      now,
      monitorIntervalMs: options.monitorIntervalSeconds * 1000,
      collectionPaused: () => this.gate.paused(),
      budget: options.budget,
      profileRefreshMs: (options.profileRefreshMinutes ?? 15) * 60_000,
      metricRefresh: options.metricRefresh ?? 'standard',
      blockSource: (error) => this.gate.blockSource(error),
      alerts: options.alerts,
    };
    this.queue = this.createQueue(options);
  }

  /** The job queue the options ask for, or the in-process one; its handler runs `run`. */
  private createQueue(options: CollectorOptions): JobQueue {
    const handler: JobHandler = withJobMetrics(
      (job, signal) => this.run(job, signal),
      options.jobMetrics,
    );
    return (
      options.createQueue?.(handler) ??
      new InProcessJobQueue({
        handler,
        concurrency: options.concurrency ?? 4,
        onError: (job, error) => this.ctx.log.error({ err: error, job }, 'collector job failed'),
      })
    );
  }

  /** Logs through `log` from now on (main.ts hands over the app's logger once it exists). */
  useLogger(log: Logger): void {
    this.ctx.log = log;
  }

  /**
   * Signs the account in, then starts the queue and the scheduler; unfinished backfills resume
   * on the first tick (or once the account is verified, when it was challenged).
   */
  async start(): Promise<void> {
    if (this.state !== 'created') return;
    this.state = 'running';
    await this.gate.signIn();
    this.queue.start();
    await this.tick();
  }

  /** Stops scheduling and waits for running jobs to save their current page. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    clearTimeout(this.timer);
    // queue.stop() aborts the running jobs' signal synchronously, before any tick settles.
    const stopping = this.queue.stop();
    await this.ticking;
    await stopping;
  }

  /** Asks for a handle's backfill now (after it was added or widened). */
  requestBackfill(handleId: number): void {
    if (this.state === 'stopped') return;
    this.enqueue({ kind: 'backfill', handleId });
  }

  /** Asks for a poll of a backfilled handle now (an admin resumed it). */
  requestPoll(handleId: number): void {
    if (this.state === 'stopped') return;
    this.enqueue({ kind: 'poll', handleId });
  }

  /** Queues a job without waiting; a queue that cannot take it is logged. */
  private enqueue(job: Job): void {
    this.queue
      .enqueue(job)
      .catch((error: unknown) => this.ctx.log.error({ err: error, job }, 'could not queue a job'));
  }

  /**
   * Runs `work` while this process does nothing for the handle: its queued jobs are dropped, its
   * running job is aborted and awaited (a backfill keeps every page saved before; the page in
   * flight is read again when it resumes), and a job of it that starts before `work` is over
   * returns at once. `work` can then change or delete the handle's rows with no job writing
   * beside it.
   */
  async halt<T>(handleId: number, work: () => Promise<T>): Promise<T> {
    this.held.set(handleId, (this.held.get(handleId) ?? 0) + 1);
    try {
      await this.queue.cancel(handleId);
      // The handle's lease keeps every process's jobs away while `work` runs (a job of another
      // node may have started after the cancel); the job that held it gave it back on abort.
      return await this.leases.hold(handleId, () => this.queue.cancel(handleId), work);
    } finally {
      const holds = (this.held.get(handleId) ?? 1) - 1;
      if (holds > 0) this.held.set(handleId, holds);
      else this.held.delete(handleId);
    }
  }

  /** Ids of the handles with a job queued or running in this process. */
  async busyHandleIds(): Promise<Set<number>> {
    return new Set(
      (await this.queue.jobs())
        .filter((job) => job.handleId !== ALL_HANDLES)
        .map((job) => job.handleId),
    );
  }

  /**
   * Polls a backfilled handle now, whatever its schedule, and resolves when that poll is over
   * (or at once for a handle still backfilling: its backfill is already running).
   */
  async pollNow(handleId: number): Promise<void> {
    // An API node's collector is never started: its queue hands the poll to the workers.
    if (this.state === 'stopped') return;
    const job = { kind: 'poll', handleId } as const;
    await this.queue.enqueue(job);
    await this.queue.settled(job);
  }

  /** Jobs waiting and running by kind (/metrics). */
  queueSnapshot(): Promise<JobCount[]> {
    return this.queue.counts();
  }

  /** Resolves when no job is queued or running (tests). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /**
   * Enqueues every due job: backfills not finished yet and polls of backfilled handles, as many
   * as the timeline budget allows now, and the profile and metric rounds once a minute.
   */
  async tick(): Promise<void> {
    if (this.state !== 'running') return;
    clearTimeout(this.timer);
    const run = this.scheduleDueWork();
    this.ticking = run;
    await run;
    this.ticking = undefined;
    if (this.state === 'running') {
      this.timer = setTimeout(() => void this.tick(), this.tickMs);
      this.timer.unref();
    }
  }

  /** One tick's work: the due handles' jobs, then the rounds when they are due. */
  private async scheduleDueWork(): Promise<void> {
    try {
      if (!(await this.gate.allowsCollection())) return;
      const now = this.ctx.now();
      await this.enqueueDueHandles(now);
      if (now.getTime() >= this.nextRoundAt) {
        this.nextRoundAt = now.getTime() + this.roundEveryMs;
        await this.queue.enqueue({ kind: 'profiles', handleId: ALL_HANDLES });
        await this.queue.enqueue({ kind: 'metrics', handleId: ALL_HANDLES });
      }
    } catch (error) {
      this.ctx.log.error({ err: error }, 'collector scheduler failed');
    }
  }

  /** Queues a backfill or a poll for the due handles, as many as the timeline budget allows. */
  private async enqueueDueHandles(now: Date): Promise<void> {
    const due = await listDueHandles(this.ctx.db.db, now.toISOString(), DUE_BATCH);
    let slots = await this.gate.timelineSlots(now.getTime(), async () => {
      const jobs = await this.queue.jobs();
      return jobs.filter((job) => job.handleId !== ALL_HANDLES).length;
    });
    for (const handle of due) {
      if (slots <= 0) break;
      const queued = await this.queue.enqueue({
        kind: handle.backfill_status === 'completed' ? 'poll' : 'backfill',
        handleId: handle.id,
      });
      if (queued) slots -= 1;
    }
  }

  /** Runs the profile and metric rounds now (tests; the scheduler runs them once a minute). */
  async refreshRounds(): Promise<void> {
    const profiles = { kind: 'profiles', handleId: ALL_HANDLES } as const;
    const metrics = { kind: 'metrics', handleId: ALL_HANDLES } as const;
    await this.queue.enqueue(profiles);
    await this.queue.enqueue(metrics);
    await Promise.all([this.queue.settled(profiles), this.queue.settled(metrics)]);
  }

  private async run(job: Job, signal: AbortSignal): Promise<void> {
    if (this.held.has(job.handleId)) return;
    const held = new Set(this.held.keys());
    try {
      switch (job.kind) {
        case 'backfill':
          return await this.withLease(job, signal, runBackfill);
        case 'poll':
          return await this.withLease(job, signal, runPoll);
        case 'profiles':
          await runProfileRefresh(this.ctx, signal, held);
          return;
        case 'metrics':
          await runMetricRefresh(this.ctx, signal, held);
          return;
      }
    } catch (error) {
      if (error instanceof HandleGoneError) return;
      if (error instanceof LeaseLostError) {
        this.ctx.log.warn({ job }, 'lost the lease on the handle: another job took it over');
        return;
      }
      throw error;
    }
  }

  /** Runs a job on one handle holding the handle's lease (HandleLeases.run), its writes fenced. */
  private withLease(
    job: Job,
    signal: AbortSignal,
    work: (ctx: CollectorContext, handleId: number, signal: AbortSignal) => Promise<void>,
  ): Promise<void> {
    return this.leases.run(job, signal, (lease, leased) =>
      work({ ...this.ctx, lease }, job.handleId, leased),
    );
  }
}
