/**
 * The daily clean-up of old rows (retention-policy.ts), run by the processes that do background
 * work (PERCH_ROLE all or worker). Each of them looks every hour whether a clean-up is due; the
 * one that takes the cluster's lock runs it when none ran in the last 24 hours, and notes when it
 * did where every node reads it (Redis in scale-out, memory in one process). So several workers
 * clean up once a day between them, and a restart does at most one early run.
 */
import type { Cluster } from '../../cluster/cluster.js';
import type { Db } from '../../db/index.js';
import { silentLog, type Logger } from '../../lib/logger.js';
import type { RetentionPolicy } from './retention-policy.js';
import { purgeExpiredRows, type PurgeOptions, type PurgeResult } from './retention.service.js';

const HOUR_MS = 60 * 60 * 1000;
/** Least time between two clean-ups over the whole deployment. */
export const RETENTION_INTERVAL_MS = 24 * HOUR_MS;
/** How often each worker looks whether the clean-up is due. */
export const RETENTION_CHECK_EVERY_MS = HOUR_MS;
/** The first look after start: the process is up and serving by then. */
export const RETENTION_FIRST_CHECK_MS = 60_000;
/** The lock only one worker holds while it cleans up (renewed while it runs). */
const LOCK_NAME = 'retention-cleanup';
const LOCK_TTL_MS = 60_000;
/** Where the time of the last clean-up is kept. */
const LAST_RUN_KEY = 'retention:last-run';

export interface RetentionJobOptions {
  db: Db;
  policy: RetentionPolicy;
  cluster: Cluster;
  log?: Logger;
  /** Default RETENTION_CHECK_EVERY_MS. */
  checkEveryMs?: number;
  /** Default RETENTION_FIRST_CHECK_MS. */
  firstCheckAfterMs?: number;
  /** Default RETENTION_INTERVAL_MS. */
  intervalMs?: number;
  /** Batch size and pause of the deletes (tests shrink them). */
  purge?: Pick<PurgeOptions, 'batchSize' | 'pauseMs'>;
  now?: () => Date;
}

export class RetentionJob {
  private readonly log: Logger;
  private readonly now: () => Date;
  private readonly intervalMs: number;
  private readonly abort = new AbortController();
  private timers: NodeJS.Timeout[] = [];
  private running: Promise<PurgeResult | null> | null = null;

  constructor(private readonly options: RetentionJobOptions) {
    this.log = options.log ?? silentLog;
    this.now = options.now ?? (() => new Date());
    this.intervalMs = options.intervalMs ?? RETENTION_INTERVAL_MS;
  }

  /** Looks first after `firstCheckAfterMs`, then every `checkEveryMs`. */
  start(): void {
    const check = () => void this.runIfDue();
    const first = setTimeout(() => {
      check();
      const every = setInterval(check, this.options.checkEveryMs ?? RETENTION_CHECK_EVERY_MS);
      every.unref();
      this.timers.push(every);
    }, this.options.firstCheckAfterMs ?? RETENTION_FIRST_CHECK_MS);
    first.unref();
    this.timers.push(first);
  }

  /**
   * Cleans up when no clean-up ran within the interval and no other worker is at it; answers
   * what it deleted, or null when it did nothing. Never throws: a failure is logged.
   */
  runIfDue(): Promise<PurgeResult | null> {
    this.running ??= this.cleanUpIfDue().finally(() => (this.running = null));
    return this.running;
  }

  /** Stops looking and interrupts a clean-up between two batches. */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
    this.abort.abort();
    await this.running;
  }

  private async cleanUpIfDue(): Promise<PurgeResult | null> {
    if (this.abort.signal.aborted) return null;
    const { cluster, db, policy } = this.options;
    try {
      const lock = await cluster.tryLock(LOCK_NAME, LOCK_TTL_MS);
      if (!lock) return null;
      try {
        const now = this.now();
        const lastRun = await cluster.recall(LAST_RUN_KEY);
        if (lastRun && now.getTime() - Date.parse(lastRun) < this.intervalMs) return null;
        const result = await purgeExpiredRows(db, policy, {
          ...this.options.purge,
          now,
          signal: this.abort.signal,
        });
        await cluster.remember(LAST_RUN_KEY, now.toISOString(), 2 * this.intervalMs);
        this.log.info(
          { deleted: result.deleted, batches: result.batches },
          'retention: old rows deleted',
        );
        return result;
      } finally {
        await lock.release();
      }
    } catch (error) {
      if (this.abort.signal.aborted) return null;
      this.log.warn(
        { err: error },
        'retention: clean-up failed; it is tried again within the hour',
      );
      return null;
    }
  }
}
