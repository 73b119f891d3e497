import type { Db } from '../db/index.js';
import type { Logger } from '../lib/logger.js';
import {
  claimHandleLease,
  findHandleById,
  LeaseLostError,
  releaseHandleLease,
  renewHandleLease,
} from '../modules/handles/handles.repository.js';
import { sleep } from '../lib/sleep.js';
import type { HandleLease } from './context.js';

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

/** Pause between two claims of a handle that `hold` waits for. */
const HOLD_RETRY_MS = 50;

export interface HandleLeasesOptions {
  db: Db;
  /** This process's name in handle leases. */
  nodeId: string;
  /** How long a lease lasts unless renewed. */
  leaseMs: number;
  now: () => Date;
  log: () => Logger;
}

/**
 * The handles' leases in the database, the fencing of every job that works on one handle: a
 * lease is claimed before the job starts, renewed every third of its length, and given back when
 * the job ends. A job's writes to its handle go through only while it holds the lease.
 */
export class HandleLeases {
  private leases = 0;

  constructor(private readonly options: HandleLeasesOptions) {}

  /** A new owner name for one lease: this process, what holds it and a running number. */
  private ownerName(purpose: string): string {
    return `${this.options.nodeId}:${purpose}:${++this.leases}`;
  }

  /** The end of a lease renewed now. */
  private until = (): string =>
    new Date(this.options.now().getTime() + this.options.leaseMs).toISOString();

  private get renewEveryMs(): number {
    return Math.max(10, Math.floor(this.options.leaseMs / 3));
  }

  private claim(handleId: number, owner: string): Promise<boolean> {
    return claimHandleLease(
      this.options.db,
      handleId,
      owner,
      this.options.now().toISOString(),
      this.until(),
    );
  }

  /**
   * Runs `work` while holding the handle's lease in the database: no other job, of this process
   * or another, works on it meanwhile. The lease is renewed every third of its length; when a
   * renewal finds it gone (this process stalled past it and another job took the handle), the
   * job is aborted, and its writes were refused already (LeaseLostError). Returns at once when
   * another live job holds the handle, and within 2 s when a stalled process's transaction keeps
   * its row locked: the scheduler queues the job again at a later tick.
   */
  async run(
    job: { kind: string; handleId: number },
    signal: AbortSignal,
    work: (lease: HandleLease, signal: AbortSignal) => Promise<void>,
  ): Promise<void> {
    const { db } = this.options.db;
    const owner = this.ownerName(job.kind);
    if (!(await this.claim(job.handleId, owner))) return;
    const lost = new AbortController();
    const renewal = setInterval(() => {
      renewHandleLease(db, job.handleId, owner, this.until())
        .then((kept) => {
          if (!kept) lost.abort(new LeaseLostError(job.handleId));
        })
        .catch((error: unknown) =>
          this.options.log().warn({ err: error, job }, 'lease renewal failed'),
        );
    }, this.renewEveryMs);
    renewal.unref();
    try {
      await work({ owner, until: this.until }, AbortSignal.any([signal, lost.signal]));
      if (lost.signal.aborted) throw new LeaseLostError(job.handleId);
    } finally {
      clearInterval(renewal);
      await releaseHandleLease(db, job.handleId, owner).catch((error: unknown) =>
        this.options.log().warn({ err: error, job }, 'could not give a handle back'),
      );
    }
  }

  /**
   * Runs `work` holding the handle's lease, which keeps every process's jobs away meanwhile (a
   * job of another node may start after this one's were cancelled). Waits for the job that holds
   * it to give it back, calling `cancel` between tries, for up to two lease lengths, or until the
   * handle is gone; `work` runs then either way.
   */
  async hold<T>(
    handleId: number,
    cancel: () => Promise<unknown>,
    work: () => Promise<T>,
  ): Promise<T> {
    const { db } = this.options.db;
    const owner = this.ownerName('halt');
    let renewal: NodeJS.Timeout | undefined;
    try {
      const deadline = Date.now() + this.options.leaseMs * 2;
      while (!(await this.claim(handleId, owner))) {
        if (Date.now() > deadline || !(await findHandleById(db, handleId))) break;
        await cancel();
        await sleep(HOLD_RETRY_MS);
      }
      renewal = setInterval(
        () => void renewHandleLease(db, handleId, owner, this.until()).catch(() => undefined),
        this.renewEveryMs,
      );
      renewal.unref();
      return await work();
    } finally {
      clearInterval(renewal);
      await releaseHandleLease(db, handleId, owner).catch(() => undefined);
    }
  }
}
