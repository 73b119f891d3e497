import {
  countFollowers,
  findHandleById,
  type HandleRow,
  type HandleUpdate,
} from '../modules/handles/handles.repository.js';
import { SourceError } from '../domain/tweet-source.js';
import {
  BUDGET_PAUSED,
  blockedSourceMessage,
  permanentErrorMessage,
  saveHandle,
  type BudgetedWork,
  type CollectorContext,
} from './context.js';

/**
 * The steps every collector job shares: the checks that it may (still) work, what a failure
 * means for its handle, and the tail that records it. The rules are pure functions; the
 * backfill, the poll and the profile and metric rounds call them.
 */

/**
 * Whether a job may go on with `handle`: nobody paused it or collection, somebody still follows
 * it, and the daily spend limit allows `work`. A handle the limit stops says so and is due again
 * when the day's budget starts afresh; `settle`, when given, lets the job's writes in flight
 * land first and gives the handle as they left it.
 */
export async function handleStillWanted(
  ctx: CollectorContext,
  handle: HandleRow,
  work: BudgetedWork,
  settle?: () => Promise<HandleRow>,
): Promise<boolean> {
  if (handle.paused || ctx.collectionPaused()) return false;
  if ((await countFollowers(ctx.db.db, handle.id)) === 0) return false;
  if (ctx.budget && !(await ctx.budget.allows(work))) {
    await saveHandle(ctx, settle ? await settle() : handle, {
      last_error: BUDGET_PAUSED,
      next_poll_at: ctx.budget.resumesAt(),
    });
    return false;
  }
  return true;
}

/** Whether a round over many handles may send its next request. */
export async function roundMayGoOn(
  ctx: CollectorContext,
  signal: AbortSignal,
  work: BudgetedWork,
): Promise<boolean> {
  if (signal.aborted || ctx.collectionPaused()) return false;
  return !ctx.budget || (await ctx.budget.allows(work));
}

/** What a failed request means for a handle. */
export type SourceFailure =
  /** X refuses the credentials or the credits are gone: the handle waits, it has not failed. */
  | { kind: 'blocked'; error: SourceError; message: string }
  /** Not found, suspended or protected: collection of the handle ends. */
  | { kind: 'permanent'; error: SourceError; message: string }
  /** Rate limited or unavailable: tried again later. */
  | { kind: 'retry'; error: SourceError }
  /** Not the source's answer (a bug, the database): tried again shortly. */
  | { kind: 'unexpected' };

/** Sorts a job's error into what it means for the handle `username`. */
export function classifySourceFailure(error: unknown, username: string): SourceFailure {
  if (!(error instanceof SourceError)) return { kind: 'unexpected' };
  const blocked = blockedSourceMessage(error);
  if (blocked) return { kind: 'blocked', error, message: blocked };
  const message = permanentErrorMessage(error, username);
  if (message) return { kind: 'permanent', error, message };
  return { kind: 'retry', error };
}

/**
 * The handle as it stands after its job failed, or null when the failure is nobody's to record:
 * the job was stopped, or the handle was deleted or taken over meanwhile (`stillOurs` false; a
 * write may have failed with it).
 */
export async function handleAfterFailure(
  ctx: CollectorContext,
  handleId: number,
  signal: AbortSignal,
  stillOurs: (current: HandleRow) => boolean,
): Promise<HandleRow | null> {
  if (signal.aborted) return null;
  const current = await findHandleById(ctx.db.db, handleId);
  return current && stillOurs(current) ? current : null;
}

/** What a job writes on its handle for each kind of failure, and what it logs. */
export interface FailureRecord {
  blocked: (message: string) => HandleUpdate;
  permanent: (message: string, error: SourceError) => HandleUpdate;
  retry: (error: SourceError) => HandleUpdate;
  unexpected: () => HandleUpdate;
  /** Logged (warn) when the job will be retried after a source error; none: not logged. */
  retryLog?: string;
  /** Logged (error) with an unexpected error. */
  unexpectedLog: string;
}

/**
 * Records a job's failure on its handle: a refusing source is blocked for every job (it waits
 * for a probe), and the handle gets the update `record` gives for the failure's kind.
 */
export async function recordHandleFailure(
  ctx: CollectorContext,
  handle: HandleRow,
  error: unknown,
  record: FailureRecord,
): Promise<void> {
  const failure = classifySourceFailure(error, handle.username);
  switch (failure.kind) {
    case 'blocked':
      await ctx.blockSource(failure.error);
      await saveHandle(ctx, handle, record.blocked(failure.message));
      return;
    case 'permanent':
      await saveHandle(ctx, handle, record.permanent(failure.message, failure.error));
      return;
    case 'retry':
      if (record.retryLog) {
        ctx.log.warn({ handle: handle.username, kind: failure.error.kind }, record.retryLog);
      }
      await saveHandle(ctx, handle, record.retry(failure.error));
      return;
    case 'unexpected':
      ctx.log.error({ err: error, handle: handle.username }, record.unexpectedLog);
      await saveHandle(ctx, handle, record.unexpected());
  }
}

/**
 * The error tail of a round over many handles: a refusing source is blocked for every job, any
 * other failure is logged and the same handles are due on the next round.
 */
export async function recordRoundFailure(
  ctx: CollectorContext,
  error: unknown,
  signal: AbortSignal,
  logMessage: string,
): Promise<void> {
  if (signal.aborted) return;
  if (error instanceof SourceError && blockedSourceMessage(error)) {
    await ctx.blockSource(error);
    return;
  }
  ctx.log.warn({ err: error }, logMessage);
}

/** One kind of batched round: which posts or handles are due, how to read them, what to keep. */
export interface BatchedRound<Due, Found> {
  /** The budget cut this work obeys (see roundMayGoOn). */
  work: BudgetedWork;
  /** Items per request; a shorter batch means nothing more is due. */
  batchSize: number;
  /** Requests one round sends at most; the rest stays due for the next round. */
  maxBatches: number;
  /** Logged when a request fails for a reason other than a refusing source. */
  failureMessage: string;
  listDue(): Promise<Due[]>;
  read(due: Due[]): Promise<Found>;
  store(due: Due[], found: Found): Promise<void>;
}

/**
 * Runs batches until nothing is due, the budget or a pause stops it, or a request fails (then
 * the same items are due on the next round). Returns how many requests were sent.
 */
export async function runBatchedRound<Due, Found>(
  ctx: CollectorContext,
  signal: AbortSignal,
  round: BatchedRound<Due, Found>,
): Promise<number> {
  let requests = 0;
  for (let batch = 0; batch < round.maxBatches; batch += 1) {
    if (!(await roundMayGoOn(ctx, signal, round.work))) return requests;
    const due = await round.listDue();
    if (due.length === 0) return requests;
    let found: Found;
    try {
      requests += 1;
      found = await round.read(due);
    } catch (error) {
      await recordRoundFailure(ctx, error, signal, round.failureMessage);
      return requests;
    }
    await round.store(due, found);
    if (due.length < round.batchSize) return requests;
  }
  return requests;
}
