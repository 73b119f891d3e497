import type { Db } from '../db/index.js';
import { InProcessJobQueue, type Job, type JobHandler, type JobQueue } from '../jobs/job-queue.js';
import { listDueHandles } from '../modules/handles/handles.repository.js';
import { runBackfill } from './backfill.js';
import type { CollectorContext, CollectorLogger } from './context.js';
import { CollectorEvents } from './events.js';
import { runPoll } from './poll.js';
import type { TweetSource } from './sources/types.js';

export interface CollectorOptions {
  db: Db;
  source: TweetSource;
  /** MONITOR_INTERVAL_SECONDS. */
  monitorIntervalSeconds: number;
  log?: CollectorLogger;
  /** Clock (tests pin it). */
  now?: () => Date;
  /** How often the scheduler looks for due work (default 1 s). */
  tickMs?: number;
  /** Jobs at once for the default in-process queue (default 4). */
  concurrency?: number;
  /** Another queue implementation (given the job handler). */
  createQueue?: (handler: JobHandler) => JobQueue;
}

const silentLog: CollectorLogger = {
  info: () => {},
  warn: () => {},
  error: () => {},
};

/** Handles the scheduler looks at per tick. */
const DUE_BATCH = 100;

/**
 * The collector: backfills and monitors every handle somebody follows. The database holds all
 * state; `start()` resumes unfinished backfills from it, a scheduler enqueues due work, and
 * `stop()` lets running jobs save their current page before returning.
 */
export class Collector {
  readonly events = new CollectorEvents();
  readonly source: TweetSource;
  private readonly ctx: CollectorContext;
  private readonly queue: JobQueue;
  private readonly tickMs: number;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private state: 'created' | 'running' | 'stopped' = 'created';

  constructor(options: CollectorOptions) {
    this.source = options.source;
    const log = options.log ?? silentLog;
    this.ctx = {
      db: options.db,
      source: options.source,
      events: this.events,
      log,
      now: options.now ?? (() => new Date()),
      monitorIntervalMs: options.monitorIntervalSeconds * 1000,
    };
    this.tickMs = options.tickMs ?? 1000;
    const handler: JobHandler = (job, signal) => this.run(job, signal);
    this.queue =
      options.createQueue?.(handler) ??
      new InProcessJobQueue({
        handler,
        concurrency: options.concurrency ?? 4,
        onError: (job, error) => log.error({ err: error, job }, 'collector job failed'),
      });
  }

  /** Starts the queue and the scheduler; unfinished backfills resume on the first tick. */
  async start(): Promise<void> {
    if (this.state !== 'created') return;
    this.state = 'running';
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
    this.queue.enqueue({ kind: 'backfill', handleId });
  }

  /**
   * Polls a backfilled handle now, whatever its schedule, and resolves when that poll is over
   * (or at once for a handle still backfilling: its backfill is already running).
   */
  async pollNow(handleId: number): Promise<void> {
    if (this.state !== 'running') return;
    const job = { kind: 'poll', handleId } as const;
    this.queue.enqueue(job);
    await this.queue.settled(job);
  }

  /** Resolves when no job is queued or running (tests). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Enqueues every due job: backfills not finished yet, polls of backfilled handles. */
  async tick(): Promise<void> {
    if (this.state !== 'running') return;
    clearTimeout(this.timer);
    const run = (async () => {
      try {
        const due = await listDueHandles(this.ctx.db.db, this.ctx.now().toISOString(), DUE_BATCH);
        for (const handle of due) {
          this.queue.enqueue({
            kind: handle.backfill_status === 'completed' ? 'poll' : 'backfill',
            handleId: handle.id,
          });
        }
      } catch (error) {
        this.ctx.log.error({ err: error }, 'collector scheduler failed');
      }
    })();
    this.ticking = run;
    await run;
    this.ticking = undefined;
    if (this.state === 'running') {
      this.timer = setTimeout(() => void this.tick(), this.tickMs);
      this.timer.unref();
    }
  }

  private run(job: Job, signal: AbortSignal): Promise<void> {
    return job.kind === 'backfill'
      ? runBackfill(this.ctx, job.handleId, signal)
      : runPoll(this.ctx, job.handleId, signal);
  }
}
