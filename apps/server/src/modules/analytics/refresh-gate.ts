import { ANALYTICS_MESSAGES, MANUAL_POLL_MIN_GAP_MS, REFRESH_MIN_GAP_MS } from '@perch/shared';
import type { Cluster } from '../../cluster/cluster.js';
import type { Db } from '../../db/index.js';
import { tooManyRequests } from '../../lib/errors.js';
import { claimManualPoll, findHandleById, type HandleRow } from '../handles/handles.repository.js';

/** A refresh of one handle in this process; `running` turns false once it is answered. */
export interface RefreshEntry {
  startedAt: number;
  running: boolean;
}

/**
 * Who may refresh a handle's analytics now (POST /analytics/refresh/{handle}): nobody while a
 * refresh of the handle runs, nor within 5 s of the last one here (or on any node, with a
 * cluster), nor, when the refresh polls X, within a minute of the last manual poll by anybody
 * (the database holds that time, so every process and user shares the limit).
 */
export class RefreshGate {
  private readonly refreshes = new Map<number, RefreshEntry>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
    private readonly shared?: Pick<Cluster, 'take'>,
  ) {}

  /**
   * Admits a refresh (claiming the manual poll when `polls`), or throws the 429 that says why
   * not. The caller sets the entry's `running` to false when the refresh is over.
   */
  async admit(handle: HandleRow, polls: boolean): Promise<RefreshEntry> {
    const now = this.now();
    const last = this.refreshes.get(handle.id);
    if (last?.running) throw tooManyRequests(ANALYTICS_MESSAGES.refreshInProgress, 1);
    if (last && now - last.startedAt < REFRESH_MIN_GAP_MS) {
      throw throttled(handle, polls, last, now);
    }
    // Held before any await, so a second click of this process meets this refresh.
    const entry = { startedAt: now, running: true };
    this.refreshes.set(handle.id, entry);
    try {
      await this.takeSharedGap(handle.id);
      if (polls && !(await this.claimPoll(handle.id, now))) {
        // Another user or process polled this handle within the minute: not this refresh.
        this.restore(handle.id, entry, last);
        throw await this.pollThrottled(handle.id, now);
      }
    } catch (error) {
      this.restore(handle.id, entry, last);
      throw error;
    }
    return entry;
  }

  /** Scale-out: the 5 s gap between refreshes of a handle, held for every API node. */
  private async takeSharedGap(handleId: number): Promise<void> {
    if (!this.shared) return;
    const gap = await this.shared.take(`analytics-refresh:${handleId}`, 1, REFRESH_MIN_GAP_MS);
    // Another node refreshed this handle within the gap.
    if (!gap.ok) throw tooManyRequests(ANALYTICS_MESSAGES.refreshThrottled, gap.retryInMs / 1000);
  }

  private claimPoll(handleId: number, now: number): Promise<boolean> {
    return claimManualPoll(
      this.db.db,
      handleId,
      new Date(now).toISOString(),
      new Date(now - MANUAL_POLL_MIN_GAP_MS).toISOString(),
    );
  }

  private async pollThrottled(handleId: number, now: number) {
    const fresh = await findHandleById(this.db.db, handleId);
    const lastPoll = Date.parse(fresh?.manual_poll_at ?? new Date(now).toISOString());
    return tooManyRequests(
      ANALYTICS_MESSAGES.manualPollThrottled,
      Math.max(1, (lastPoll + MANUAL_POLL_MIN_GAP_MS - now) / 1000),
    );
  }

  /** Puts back what was known of a handle's refreshes before a refused one. */
  private restore(handleId: number, entry: RefreshEntry, previous: RefreshEntry | undefined): void {
    if (this.refreshes.get(handleId) !== entry) return;
    if (previous) this.refreshes.set(handleId, previous);
    else this.refreshes.delete(handleId);
  }
}

/** A refresh within 5 s of the last: Retry-After is when one would be served, poll gap included. */
function throttled(handle: HandleRow, polls: boolean, last: RefreshEntry, now: number) {
  const pollAt = polls ? Date.parse(handle.manual_poll_at ?? '') + MANUAL_POLL_MIN_GAP_MS : 0;
  const readyAt = Math.max(last.startedAt + REFRESH_MIN_GAP_MS, Number.isNaN(pollAt) ? 0 : pollAt);
  return tooManyRequests(ANALYTICS_MESSAGES.refreshThrottled, (readyAt - now) / 1000);
}
