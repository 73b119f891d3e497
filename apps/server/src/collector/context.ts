import type { PageAlerts } from '../alerts/evaluation.js';
import type { Db } from '../db/index.js';
import {
  BUDGET_PAUSED,
  CREDITS_DEPLETED,
  WAITING_FOR_CREDENTIALS,
  WAITING_TEXTS,
} from '../lib/collection-status.js';
import type { Logger } from '../lib/logger.js';
import type { HandleStatus } from '../db/types.js';
import {
  findHandleById,
  LeaseLostError,
  updateHandle,
  type HandleRow,
  type HandleUpdate,
} from '../modules/handles/handles.repository.js';
import type { CollectorEvents } from '../domain/collector-events.js';
import type { SourceError, TweetSource } from '../domain/tweet-source.js';
import type { XMetricRefreshPreset } from '@perch/shared';

/** What every collector job works with. */
export interface CollectorContext {
  db: Db;
  source: TweetSource;
  events: CollectorEvents;
  log: Logger;
  now: () => Date;
  /** MONITOR_INTERVAL_SECONDS in ms: the base gap between polls of a handle. */
  monitorIntervalMs: number;
  /**
   * True while the collector account awaits verification or X refuses the credentials: jobs do
   * not start, and a running backfill stops after the page in hand (it resumes from there).
   */
  collectionPaused: () => boolean;
  /** The daily spend limit on X reads; absent: no limit (demo source, or none configured). */
  budget?: CollectionBudget;
  /** PROFILE_REFRESH_MINUTES in ms: the gap between profile reads of a handle. */
  profileRefreshMs: number;
  /** X_METRIC_REFRESH: which metric readings are taken (metric-schedule.ts). */
  metricRefresh: XMetricRefreshPreset;
  /**
   * X refused the credentials (401/403) or the credits are gone (402): records it for every
   * process and stops collection until a probe succeeds.
   */
  blockSource: (error: SourceError) => Promise<void>;
  /**
   * The running job's lease on its handle (backfills and polls): its writes to the handle go
   * through only while it holds it.
   */
  lease?: HandleLease;
  /**
   * Evaluates the alert rules on a page of new posts as it is stored (PostgreSQL); absent, or
   * giving no claim, the delivery worker's pass evaluates the page's mark.
   */
  alerts?: PageAlerts;
}

/** A job's hold on one handle: the owner, and the end of the lease if renewed now. */
export interface HandleLease {
  owner: string;
  until: () => string;
}

/** The lease options for upsertTweets: renewed and checked in its transaction. */
export const leaseFence = (ctx: CollectorContext) =>
  ctx.lease ? { owner: ctx.lease.owner, until: ctx.lease.until() } : undefined;

/** The work a daily X spend limit cuts, in the order it cuts them. */
export type BudgetedWork = 'metrics' | 'backfill' | 'poll';

/** What the collector asks of the X cost meter. */
export interface CollectionBudget {
  /** Whether `work` may spend X reads now. */
  allows(work: BudgetedWork): Promise<boolean>;
  /** When the day's budget starts afresh (next 00:00 UTC), ISO-8601. */
  resumesAt(): string;
}

export { BUDGET_PAUSED, CREDITS_DEPLETED, WAITING_FOR_CREDENTIALS, WAITING_TEXTS };

/** The text of a blocked source, for a credentials (401/403) or credits (402) error. */
export function blockedSourceMessage(error: SourceError): string | null {
  if (error.kind === 'auth') return WAITING_FOR_CREDENTIALS;
  if (error.kind === 'credits') return CREDITS_DEPLETED;
  return null;
}

/** Wait before retrying after an outage that named no time. */
export const UNAVAILABLE_RETRY_MS = 30_000;
/** Longest a rate limit is waited out before the scheduler looks again. */
const MAX_RETRY_MS = 15 * 60_000;

export const msAfter = (from: Date, ms: number) => new Date(from.getTime() + ms).toISOString();

/** When a retryable source error should be retried, from its own hint when it gave one. */
export function retryAt(error: SourceError, now: Date): string {
  const wait = Math.min(MAX_RETRY_MS, Math.max(0, error.retryAfterMs ?? UNAVAILABLE_RETRY_MS));
  return msAfter(now, wait);
}

/** The message shown for a source error that ends collection of a handle. */
export function permanentErrorMessage(error: SourceError, username: string): string | null {
  switch (error.kind) {
    case 'not_found':
      return `@${username} was not found on X`;
    case 'suspended':
      return `@${username} is suspended`;
    case 'protected':
      return `@${username} is protected`;
    default:
      return null;
  }
}

/**
 * The handle a job works on was deleted meanwhile (an admin's global delete, possibly from
 * another process). Not a failure: the collector ends the job quietly.
 */
export class HandleGoneError extends Error {
  constructor(readonly handleId: number) {
    super(`handle ${handleId} was deleted`);
    this.name = 'HandleGoneError';
  }
}

/**
 * The columns that schedule a handle's polls. Moving them alone is no change of the handle
 * anyone sees: `updated_at`, and the ETags of its analytics built on it, stay.
 */
const SCHEDULE_COLUMNS: ReadonlySet<string> = new Set([
  'last_poll_at',
  'next_poll_at',
  'quiet_polls',
]);

/** The entries of `values` that differ from what `handle` holds. */
export function changedColumns(handle: HandleRow, values: HandleUpdate): HandleUpdate {
  return Object.fromEntries(
    Object.entries(values).filter(([column, value]) => handle[column as keyof HandleRow] !== value),
  );
}

/**
 * Updates a handle and tells listeners when its status or error changed; throws HandleGoneError
 * when the handle no longer exists, LeaseLostError when the job's lease on it ran out.
 */
export async function saveHandle(
  ctx: CollectorContext,
  before: HandleRow,
  values: HandleUpdate,
): Promise<HandleRow> {
  const after = await saveHandleWhile(ctx, before, values, {});
  if (!after) {
    if (ctx.lease && (await findHandleById(ctx.db.db, before.id))) {
      throw new LeaseLostError(before.id);
    }
    throw new HandleGoneError(before.id);
  }
  return after;
}

/**
 * As saveHandle, but only while the handle's columns in `unchanged` still hold those values;
 * undefined when one moved, the handle is gone or the lease ran out (a fresh read tells which).
 */
export async function saveHandleWhile(
  ctx: CollectorContext,
  before: HandleRow,
  values: HandleUpdate,
  unchanged: Partial<HandleRow>,
): Promise<HandleRow | undefined> {
  const onlySchedule = Object.keys(values).every((column) => SCHEDULE_COLUMNS.has(column));
  const update = onlySchedule ? values : { ...values, updated_at: ctx.now().toISOString() };
  const after = await updateHandle(ctx.db.db, before.id, update, ctx.lease?.owner, unchanged);
  if (
    after &&
    (after.backfill_status !== before.backfill_status || after.last_error !== before.last_error)
  ) {
    ctx.events.emit('handle.status', {
      handleId: after.id,
      username: after.username,
      status: after.backfill_status,
      error: after.last_error,
    });
  }
  return after;
}

/**
 * Throws LeaseLostError when the job no longer holds the handle (as `handle`, read afresh, says):
 * its process stood still past the lease and another job took the handle over. Whatever failed
 * the job then (often its transaction, which PostgreSQL ended meanwhile) is not the handle's
 * failure, and the job records nothing of it.
 */
export function ensureLeaseHeld(ctx: CollectorContext, handle: HandleRow): void {
  if (ctx.lease && handle.lease_owner !== ctx.lease.owner) throw new LeaseLostError(handle.id);
}

export function emitProgress(ctx: CollectorContext, handle: HandleRow): void {
  ctx.events.emit('handle.progress', {
    handleId: handle.id,
    username: handle.username,
    status: handle.backfill_status,
    progress: handle.backfill_progress,
    totalTweets: handle.total_tweets_collected,
    estimatedCompletion: handle.estimated_completion,
  });
}

export const isStatus = (handle: HandleRow, ...statuses: HandleStatus[]) =>
  statuses.includes(handle.backfill_status);

/** The larger of two X tweet ids (decimal strings; compared as numbers, not text). */
export function maxTweetId(a: string | null, b: string): string {
  if (a === null) return b;
  return BigInt(b) > BigInt(a) ? b : a;
}
