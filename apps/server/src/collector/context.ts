import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/index.js';
import type { HandleStatus } from '../db/types.js';
import {
  updateHandle,
  type HandleRow,
  type HandleUpdate,
} from '../modules/handles/handles.repository.js';
import type { CollectorEvents } from './events.js';
import type { SourceError, TweetSource } from './sources/types.js';

export type CollectorLogger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

/** What every collector job works with. */
export interface CollectorContext {
  db: Db;
  source: TweetSource;
  events: CollectorEvents;
  log: CollectorLogger;
  now: () => Date;
  /** MONITOR_INTERVAL_SECONDS in ms: the base gap between polls of a handle. */
  monitorIntervalMs: number;
  /**
   * True while the collector account awaits verification: jobs do not start, and a running
   * backfill stops after the page in hand (it resumes from there once the account is verified).
   */
  collectionPaused: () => boolean;
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

/** The error of a handle whose collection stopped because X refused the credentials. */
export const CREDENTIALS_REFUSED = 'X API credentials were refused';

/** The message shown for a source error that ends collection of a handle. */
export function permanentErrorMessage(error: SourceError, username: string): string | null {
  switch (error.kind) {
    case 'not_found':
      return `@${username} was not found on X`;
    case 'suspended':
      return `@${username} is suspended`;
    case 'protected':
      return `@${username} is protected`;
    case 'auth':
      return CREDENTIALS_REFUSED;
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
 * Updates a handle and tells listeners when its status or error changed; throws HandleGoneError
 * when the handle no longer exists.
 */
export async function saveHandle(
  ctx: CollectorContext,
  before: HandleRow,
  values: HandleUpdate,
): Promise<HandleRow> {
  const after = await updateHandle(ctx.db.db, before.id, {
    ...values,
    updated_at: ctx.now().toISOString(),
  });
  if (!after) throw new HandleGoneError(before.id);
  if (after.backfill_status !== before.backfill_status || after.last_error !== before.last_error) {
    ctx.events.emit('handle.status', {
      handleId: after.id,
      username: after.username,
      status: after.backfill_status,
      error: after.last_error,
    });
  }
  return after;
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
