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
import {
  claimHandleLease,
  findHandleById,
  LeaseLostError,
  listDueHandles,
  listHandlesDueForProfile,
  releaseHandleLease,
  renewHandleLease,
  resumeWaitingHandles,
} from '../modules/handles/handles.repository.js';
import {
  claimProbe,
  readXApiStatus,
  writeXApiStatus,
} from '../modules/x-usage/x-api-status.repository.js';
import {
  closeStaleChallenge,
  isChallengePending,
  raiseChallenge,
  readChallengeStatus,
  recordVerification,
  takeSubmittedCode,
} from '../modules/admin/collector-account.repository.js';
import { runBackfill } from './backfill.js';
import {
  CREDITS_DEPLETED,
  HandleGoneError,
  WAITING_FOR_CREDENTIALS,
  blockedSourceMessage,
  msAfter,
  type CollectionBudget,
  type CollectorContext,
} from './context.js';
import { CollectorEvents } from '../domain/collector-events.js';
import type { Logger } from '../lib/logger.js';
import { runMetricRefresh } from './metrics.js';
import { runPoll } from './poll.js';
import { runProfileRefresh } from './profiles.js';
import { SourceError, type SourceAccount, type TweetSource } from '../domain/tweet-source.js';

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
}

/**
 * How long a job's lease on its handle lasts unless renewed. It is renewed every third of it and
 * with every page stored, so it runs out at most this long after its worker died or froze. The
 * handle goes to another worker once its job is queued again as well: BullMQ does so when the
 * job's lock has run out (15 s, renewed every 7.5 s, checked every 3.75 s: at most 18.75 s after
 * the worker stopped), and a claim finds the handle's row free once PostgreSQL has ended a frozen
 * worker's transaction (IDLE_IN_TRANSACTION_TIMEOUT_MS, 10 s). With a scheduler tick (1 s) that
 * is about 20 s at worst, inside the 30 s the docs promise. A 30 s lease, as before, used up the
 * promise on its own: a takeover after kill -9 took 32-36 s.
 */
export const HANDLE_LEASE_MS = 15_000;

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
  /** The account awaits verification (as of the last tick): collection waits. */
  private accountPending = false;
  /** X refuses the credentials or the credits are gone (as of the last tick): collection waits. */
  private sourceBlocked = false;
  private readonly roundEveryMs: number;
  private readonly probeEveryMs: number;
  /** When the next profile and metric rounds are enqueued (epoch ms). */
  private nextRoundAt = 0;
  readonly nodeId: string;
  private readonly leaseMs: number;
  private readonly share: () => number;
  private leases = 0;

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
      collectionPaused: () => this.accountPending || this.sourceBlocked,
      budget: options.budget,
      profileRefreshMs: (options.profileRefreshMinutes ?? 15) * 60_000,
      blockSource: (error) => this.blockSource(error),
    };
    this.tickMs = options.tickMs ?? 1000;
    this.roundEveryMs = options.roundEveryMs ?? 60_000;
    this.probeEveryMs = options.probeEveryMs ?? 5 * 60_000;
    this.nodeId = options.nodeId ?? newNodeId();
    this.leaseMs = options.leaseMs ?? HANDLE_LEASE_MS;
    this.share = options.share ?? (() => 1);
    const handler: JobHandler = withJobMetrics(
      (job, signal) => this.run(job, signal),
      options.jobMetrics,
    );
    this.queue =
      options.createQueue?.(handler) ??
      new InProcessJobQueue({
        handler,
        concurrency: options.concurrency ?? 4,
        onError: (job, error) => this.ctx.log.error({ err: error, job }, 'collector job failed'),
      });
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
    const owner = `${this.nodeId}:halt:${++this.leases}`;
    const { db } = this.ctx.db;
    let renewal: NodeJS.Timeout | undefined;
    try {
      await this.queue.cancel(handleId);
      // The handle's lease keeps every process's jobs away while `work` runs (a job of another
      // node may have started after the cancel); the job that held it gave it back on abort.
      const until = () => new Date(this.ctx.now().getTime() + this.leaseMs).toISOString();
      const deadline = Date.now() + this.leaseMs * 2;
      while (
        !(await claimHandleLease(
          this.ctx.db,
          handleId,
          owner,
          this.ctx.now().toISOString(),
          until(),
        ))
      ) {
        if (Date.now() > deadline || !(await findHandleById(db, handleId))) break;
        await this.queue.cancel(handleId);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      renewal = setInterval(
        () => void renewHandleLease(db, handleId, owner, until()).catch(() => undefined),
        Math.max(10, Math.floor(this.leaseMs / 3)),
      );
      renewal.unref();
      return await work();
    } finally {
      clearInterval(renewal);
      await releaseHandleLease(db, handleId, owner).catch(() => undefined);
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
    const run = (async () => {
      try {
        if (!(await this.accountAllowsCollection())) return;
        if (!(await this.sourceAllowsCollection())) return;
        const now = this.ctx.now();
        const due = await listDueHandles(this.ctx.db.db, now.toISOString(), DUE_BATCH);
        let slots = await this.timelineSlots(now.getTime());
        for (const handle of due) {
          if (slots <= 0) break;
          const queued = await this.queue.enqueue({
            kind: handle.backfill_status === 'completed' ? 'poll' : 'backfill',
            handleId: handle.id,
          });
          if (queued) slots -= 1;
        }
        if (now.getTime() >= this.nextRoundAt) {
          this.nextRoundAt = now.getTime() + this.roundEveryMs;
          await this.queue.enqueue({ kind: 'profiles', handleId: ALL_HANDLES });
          await this.queue.enqueue({ kind: 'metrics', handleId: ALL_HANDLES });
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
          return await this.withLease(job, signal, (ctx, leased) =>
            runBackfill(ctx, job.handleId, leased),
          );
        case 'poll':
          return await this.withLease(job, signal, (ctx, leased) =>
            runPoll(ctx, job.handleId, leased),
          );
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

  /**
   * Runs a job on one handle while holding the handle's lease in the database: no other job, of
   * this process or another, works on it meanwhile. The lease is renewed every third of its
   * length; when a renewal finds it gone (this process stalled past it and another job took the
   * handle), the job is aborted, and its writes were refused already (LeaseLostError). Returns at
   * once when another live job holds the handle, and within 2 s when a stalled process's
   * transaction keeps its row locked: the scheduler queues the job again at a later tick.
   */
  private async withLease(
    job: Job,
    signal: AbortSignal,
    work: (ctx: CollectorContext, signal: AbortSignal) => Promise<void>,
  ): Promise<void> {
    const { db } = this.ctx.db;
    const owner = `${this.nodeId}:${job.kind}:${++this.leases}`;
    const until = () => new Date(this.ctx.now().getTime() + this.leaseMs).toISOString();
    const claimed = await claimHandleLease(
      this.ctx.db,
      job.handleId,
      owner,
      this.ctx.now().toISOString(),
      until(),
    );
    if (!claimed) return;
    const lost = new AbortController();
    const leased = AbortSignal.any([signal, lost.signal]);
    const renewal = setInterval(
      () => {
        renewHandleLease(db, job.handleId, owner, until())
          .then((kept) => {
            if (!kept) lost.abort(new LeaseLostError(job.handleId));
          })
          .catch((error: unknown) =>
            this.ctx.log.warn({ err: error, job }, 'lease renewal failed'),
          );
      },
      Math.max(10, Math.floor(this.leaseMs / 3)),
    );
    renewal.unref();
    try {
      await work({ ...this.ctx, lease: { owner, until } }, leased);
      if (lost.signal.aborted) throw new LeaseLostError(job.handleId);
    } finally {
      clearInterval(renewal);
      await releaseHandleLease(db, job.handleId, owner).catch((error: unknown) =>
        this.ctx.log.warn({ err: error, job }, 'could not give a handle back'),
      );
    }
  }

  /**
   * How many more backfills and polls may be queued now: the timeline's remaining requests (the
   * source's rateBudget, whatever it calls the endpoint) spread evenly over what is left of its
   * window, so 1,000 handles do not spend a 15-minute budget in its first minute and then wait.
   * Unbounded while the budget is unknown.
   */
  private async timelineSlots(now: number): Promise<number> {
    const budget = this.source.rateBudget();
    if (budget.remaining === null || budget.resetAt === null) return DUE_BATCH;
    const untilReset = Date.parse(budget.resetAt) - now;
    if (untilReset <= 0) return DUE_BATCH;
    const share = Math.ceil((budget.remaining * Math.max(this.tickMs, 1)) / untilReset);
    // The queue is the cluster's (every process's jobs) and X's budget is the app's: what the
    // budget leaves beside the jobs already queued is split between the collecting processes.
    const waiting = (await this.queue.jobs()).filter((job) => job.handleId !== ALL_HANDLES).length;
    return Math.ceil((Math.min(DUE_BATCH, share) - waiting) / Math.max(1, this.share()));
  }

  /**
   * X refused the credentials (401/403) or the credits are gone (402): recorded in the database
   * for every process and the Admin page, and collection stops until a probe gets through.
   */
  private async blockSource(error: SourceError): Promise<void> {
    const state = error.kind === 'credits' ? 'credits' : 'auth';
    this.sourceBlocked = true;
    const { db } = this.ctx.db;
    const current = await readXApiStatus(db);
    if (current.state === state) return;
    const now = this.ctx.now();
    await writeXApiStatus(db, {
      state,
      detail: error.message,
      now: now.toISOString(),
      nextProbeAt: msAfter(now, this.probeEveryMs),
    });
    this.ctx.log.warn(
      { kind: error.kind, detail: error.message },
      'X refused the collector: collection waits, probing every 5 minutes',
    );
  }

  /**
   * Whether X takes the credentials (as recorded). While it does not, one process at a time
   * sends a single probe request at most every `probeEveryMs`; the first that gets through
   * puts every waiting handle back to work, with no admin action.
   */
  private async sourceAllowsCollection(): Promise<boolean> {
    const { db } = this.ctx.db;
    const status = await readXApiStatus(db);
    if (status.state === 'ok') {
      this.sourceBlocked = false;
      return true;
    }
    this.sourceBlocked = true;
    const now = this.ctx.now();
    const claimed = await claimProbe(db, now.toISOString(), msAfter(now, this.probeEveryMs));
    if (claimed) await this.probe();
    return !this.sourceBlocked;
  }

  /** One request that needs working credentials: a profile X bills once a day at most. */
  private async probe(): Promise<void> {
    const { db } = this.ctx.db;
    const [handle] = await listHandlesDueForProfile(db, this.ctx.now().toISOString(), 1);
    try {
      if (handle?.x_user_id) await this.source.usersByIds([handle.x_user_id]);
      else await this.source.lookupUser(handle?.username ?? 'XDevelopers');
    } catch (error) {
      if (error instanceof SourceError && blockedSourceMessage(error)) {
        const now = this.ctx.now();
        await writeXApiStatus(db, {
          state: error.kind === 'credits' ? 'credits' : 'auth',
          detail: error.message,
          now: now.toISOString(),
          nextProbeAt: msAfter(now, this.probeEveryMs),
        });
        this.ctx.log.warn({ kind: error.kind }, 'X still refuses the collector');
        return;
      }
      // Not found, protected or rate limited: X took the credentials. Unreachable: unknown yet.
      if (!(error instanceof SourceError) || error.kind === 'unavailable') {
        this.ctx.log.warn({ err: error }, 'credentials probe failed: will probe again');
        return;
      }
    }
    const now = this.ctx.now().toISOString();
    await writeXApiStatus(db, { state: 'ok', detail: null, now, nextProbeAt: null });
    const resumed = await resumeWaitingHandles(
      db,
      [WAITING_FOR_CREDENTIALS, CREDITS_DEPLETED],
      now,
    );
    this.sourceBlocked = false;
    this.ctx.log.info({ handles: resumed }, 'X takes the credentials again: collection resumes');
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
