import type { Db } from '../db/index.js';
import type { Logger } from '../lib/logger.js';
import {
  listHandlesDueForProfile,
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
import {
  CREDITS_DEPLETED,
  WAITING_FOR_CREDENTIALS,
  blockedSourceMessage,
  msAfter,
} from './context.js';
import { SourceError, type SourceAccount, type TweetSource } from '../domain/tweet-source.js';

export interface SourceGateOptions {
  db: Db;
  source: TweetSource;
  now: () => Date;
  log: () => Logger;
  /** Least time between two probes of refused credentials. */
  probeEveryMs: number;
  /** How often the scheduler looks for due work: the slice of the budget one tick may spend. */
  tickMs: number;
  /** Most handles the scheduler queues per tick. */
  maxSlots: number;
  /** How many processes collect (scale-out): each schedules its share of the budget. */
  share: () => number;
}

/**
 * Whether the source may be asked now, and how much: the collector account's verification
 * (a challenge pauses collection until a super admin's code is accepted), X refusing the
 * credentials or the credits (collection waits, one process probes every `probeEveryMs`), and
 * the pacing of timeline requests by the source's rate budget.
 */
export class SourceGate {
  /** The account awaits verification (as of the last tick): collection waits. */
  private accountPending = false;
  /** X refuses the credentials or the credits are gone (as of the last tick): collection waits. */
  private sourceBlocked = false;

  constructor(private readonly options: SourceGateOptions) {}

  /** True while the account awaits verification or X refuses the credentials. */
  paused(): boolean {
    return this.accountPending || this.sourceBlocked;
  }

  /** Tries a submitted code and a due probe, then tells whether collection may run now. */
  async allowsCollection(): Promise<boolean> {
    if (!(await this.accountAllowsCollection())) return false;
    return this.sourceAllowsCollection();
  }

  /**
   * How many more backfills and polls may be queued now, with `waiting` jobs on handles already
   * queued: the timeline's remaining requests (the source's rateBudget, whatever it calls the
   * endpoint) spread evenly over what is left of its window, so 1,000 handles do not spend a
   * 15-minute budget in its first minute and then wait. Unbounded while the budget is unknown.
   */
  async timelineSlots(now: number, waiting: () => Promise<number>): Promise<number> {
    const { maxSlots, tickMs } = this.options;
    const budget = this.options.source.rateBudget();
    if (budget.remaining === null || budget.resetAt === null) return maxSlots;
    const untilReset = Date.parse(budget.resetAt) - now;
    if (untilReset <= 0) return maxSlots;
    const share = Math.ceil((budget.remaining * Math.max(tickMs, 1)) / untilReset);
    // The queue is the cluster's (every process's jobs) and X's budget is the app's: what the
    // budget leaves beside the jobs already queued is split between the collecting processes.
    return Math.ceil(
      (Math.min(maxSlots, share) - (await waiting())) / Math.max(1, this.options.share()),
    );
  }

  /**
   * X refused the credentials (401/403) or the credits are gone (402): recorded in the database
   * for every process and the Admin page, and collection stops until a probe gets through.
   */
  async blockSource(error: SourceError): Promise<void> {
    const state = error.kind === 'credits' ? 'credits' : 'auth';
    this.sourceBlocked = true;
    const { db } = this.options.db;
    const current = await readXApiStatus(db);
    if (current.state === state) return;
    await this.recordRefusal(error);
    this.options
      .log()
      .warn(
        { kind: error.kind, detail: error.message },
        'X refused the collector: collection waits, probing every 5 minutes',
      );
  }

  /** Records X's refusal for every process, with the time of the next probe. */
  private async recordRefusal(error: SourceError): Promise<void> {
    const now = this.options.now();
    await writeXApiStatus(this.options.db.db, {
      state: error.kind === 'credits' ? 'credits' : 'auth',
      detail: error.message,
      now: now.toISOString(),
      nextProbeAt: msAfter(now, this.options.probeEveryMs),
    });
  }

  /**
   * Whether X takes the credentials (as recorded). While it does not, one process at a time
   * sends a single probe request at most every `probeEveryMs`; the first that gets through
   * puts every waiting handle back to work, with no admin action.
   */
  private async sourceAllowsCollection(): Promise<boolean> {
    const { db } = this.options.db;
    const status = await readXApiStatus(db);
    if (status.state === 'ok') {
      this.sourceBlocked = false;
      return true;
    }
    this.sourceBlocked = true;
    const now = this.options.now();
    const claimed = await claimProbe(
      db,
      now.toISOString(),
      msAfter(now, this.options.probeEveryMs),
    );
    if (claimed) await this.probe();
    return !this.sourceBlocked;
  }

  /** One request that needs working credentials: a profile X bills once a day at most. */
  private async probe(): Promise<void> {
    const { source } = this.options;
    const log = this.options.log();
    const [handle] = await listHandlesDueForProfile(
      this.options.db.db,
      this.options.now().toISOString(),
      1,
    );
    try {
      if (handle?.x_user_id) await source.usersByIds([handle.x_user_id]);
      else await source.lookupUser(handle?.username ?? 'XDevelopers');
    } catch (error) {
      if (error instanceof SourceError && blockedSourceMessage(error)) {
        await this.recordRefusal(error);
        log.warn({ kind: error.kind }, 'X still refuses the collector');
        return;
      }
      // Not found, protected or rate limited: X took the credentials. Unreachable: unknown yet.
      if (!(error instanceof SourceError) || error.kind === 'unavailable') {
        log.warn({ err: error }, 'credentials probe failed: will probe again');
        return;
      }
    }
    await this.resumeCollection();
  }

  /** X takes the credentials again: recorded, and every handle that waited goes back to work. */
  private async resumeCollection(): Promise<void> {
    const { db } = this.options.db;
    const now = this.options.now().toISOString();
    await writeXApiStatus(db, { state: 'ok', detail: null, now, nextProbeAt: null });
    const resumed = await resumeWaitingHandles(
      db,
      [WAITING_FOR_CREDENTIALS, CREDITS_DEPLETED],
      now,
    );
    this.sourceBlocked = false;
    this.options
      .log()
      .info({ handles: resumed }, 'X takes the credentials again: collection resumes');
  }

  /**
   * Signs the source's account in: a challenge is recorded for a super admin and pauses
   * collection; a sign-in without one closes any challenge left open before.
   */
  async signIn(): Promise<void> {
    const { db } = this.options.db;
    const log = this.options.log();
    const now = this.options.now().toISOString();
    try {
      const challenge = (await this.options.source.account?.challengeOnStart()) ?? null;
      if (challenge) {
        await raiseChallenge(db, challenge, now);
        log.warn({ type: challenge.type }, 'collector account asks for verification');
      } else {
        await closeStaleChallenge(db, now);
      }
      this.accountPending = isChallengePending(await readChallengeStatus(db));
    } catch (error) {
      log.error({ err: error }, 'collector account sign-in failed');
    }
  }

  /** Tries a code a super admin submitted, then tells whether collection may run now. */
  private async accountAllowsCollection(): Promise<boolean> {
    const { db } = this.options.db;
    const { account } = this.options.source;
    let status = await readChallengeStatus(db);
    if (status.status === 'CODE_SUBMITTED' && account) {
      await this.verifySubmittedCode(account);
      status = await readChallengeStatus(db);
    }
    this.accountPending = isChallengePending(status);
    return !this.accountPending;
  }

  /** Takes the submitted code (never logged), tries it and records the account's answer. */
  private async verifySubmittedCode(account: SourceAccount): Promise<void> {
    const { db } = this.options.db;
    const log = this.options.log();
    const code = await takeSubmittedCode(db);
    if (code === null) return;
    let accepted = false;
    try {
      accepted = await account.verify(code);
    } catch (error) {
      log.warn({ err: error }, 'verification code could not be checked');
    }
    await recordVerification(db, accepted, this.options.now().toISOString());
    if (accepted) log.info('collector account verified: collection resumes');
    else log.warn('collector account refused the verification code');
  }
}
