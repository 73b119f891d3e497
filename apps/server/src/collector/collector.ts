import type { Db } from '../db/index.js';
import { InProcessJobQueue, type Job, type JobHandler, type JobQueue } from '../jobs/job-queue.js';
import { listDueHandles } from '../modules/handles/handles.repository.js';
import {
  closeStaleChallenge,
  isChallengePending,
  raiseChallenge,
  readChallengeStatus,
  recordVerification,
  takeSubmittedCode,
} from './account.js';
import { runBackfill } from './backfill.js';
import { HandleGoneError, type CollectorContext, type CollectorLogger } from './context.js';
import { CollectorEvents } from './events.js';
import { runPoll } from './poll.js';
import type { SourceAccount, TweetSource } from './sources/types.js';

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
 * state; `start()` signs the source's account in and resumes unfinished backfills, a scheduler
 * enqueues due work, and `stop()` lets running jobs save their current page before returning.
 * While the collector account awaits a verification code, nothing is collected; each tick tries
 * a code a super admin submitted.
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
  /** Handles `halt()` keeps jobs away from, with how many halts hold each. */
  private readonly held = new Map<number, number>();
  /** The account awaits verification (as of the last tick): collection waits. */
  private accountPending = false;

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
      collectionPaused: () => this.accountPending,
    };
    this.tickMs = options.tickMs ?? 1000;
    const handler: JobHandler = (job, signal) => this.run(job, signal);
    this.queue =
      options.createQueue?.(handler) ??
      new InProcessJobQueue({
        handler,
        concurrency: options.concurrency ?? 4,
        onError: (job, error) => this.ctx.log.error({ err: error, job }, 'collector job failed'),
      });
  }

  /** Logs through `log` from now on (main.ts hands over the app's logger once it exists). */
  useLogger(log: CollectorLogger): void {
    this.ctx.log = log;
  }

  /**
   * Signs the account in, then starts the queue and the scheduler; unfinished backfills resume
   * on the first tick (or once the account is verified, when it was challenged).
   */
  async start(): Promise<void> {
    if (this.state !== 'created') return;
    this.state = 'running';
    await this.signIn();
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

  /** Asks for a poll of a backfilled handle now (an admin resumed it). */
  requestPoll(handleId: number): void {
    if (this.state === 'stopped') return;
    this.queue.enqueue({ kind: 'poll', handleId });
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
      return await work();
    } finally {
      const holds = (this.held.get(handleId) ?? 1) - 1;
      if (holds > 0) this.held.set(handleId, holds);
      else this.held.delete(handleId);
    }
  }

  /** Ids of the handles with a job queued or running in this process. */
  busyHandleIds(): Set<number> {
    return new Set(this.queue.jobs().map((job) => job.handleId));
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
        if (!(await this.accountAllowsCollection())) return;
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

  private async run(job: Job, signal: AbortSignal): Promise<void> {
    if (this.held.has(job.handleId)) return;
    try {
      await (job.kind === 'backfill'
        ? runBackfill(this.ctx, job.handleId, signal)
        : runPoll(this.ctx, job.handleId, signal));
    } catch (error) {
      if (error instanceof HandleGoneError) return;
      throw error;
    }
  }

  /**
   * Signs the source's account in: a challenge is recorded for a super admin and pauses
   * collection; a sign-in without one closes any challenge left open before.
   */
  private async signIn(): Promise<void> {
    const { db } = this.ctx.db;
    const now = this.ctx.now().toISOString();
    try {
      const challenge = (await this.source.account?.challengeOnStart()) ?? null;
      if (challenge) {
        await raiseChallenge(db, challenge, now);
        this.ctx.log.warn({ type: challenge.type }, 'collector account asks for verification');
      } else {
        await closeStaleChallenge(db, now);
      }
      this.accountPending = isChallengePending(await readChallengeStatus(db));
    } catch (error) {
      this.ctx.log.error({ err: error }, 'collector account sign-in failed');
    }
  }

  /** Tries a code a super admin submitted, then tells whether collection may run now. */
  private async accountAllowsCollection(): Promise<boolean> {
    const { db } = this.ctx.db;
    let status = await readChallengeStatus(db);
    if (status.status === 'CODE_SUBMITTED' && this.source.account) {
      await this.verifySubmittedCode(this.source.account);
      status = await readChallengeStatus(db);
    }
    this.accountPending = isChallengePending(status);
    return !this.accountPending;
  }

  /** Takes the submitted code (never logged), tries it and records the account's answer. */
  private async verifySubmittedCode(account: SourceAccount): Promise<void> {
    const { db } = this.ctx.db;
    const code = await takeSubmittedCode(db);
    if (code === null) return;
    let accepted = false;
    try {
      accepted = await account.verify(code);
    } catch (error) {
      this.ctx.log.warn({ err: error }, 'verification code could not be checked');
    }
    await recordVerification(db, accepted, this.ctx.now().toISOString());
    if (accepted) this.ctx.log.info('collector account verified: collection resumes');
    else this.ctx.log.warn('collector account refused the verification code');
  }
}
