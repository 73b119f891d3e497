import {
  ADMIN_MESSAGES,
  X_WEB_MESSAGES,
  type AdminProcess,
  type AdminProcesses,
  type ChallengeStatus,
  type ProcessState,
  type SourceHealth,
} from '@perch/shared';
import {
  isChallengePending,
  readChallengeStatus,
  submitChallengeCode,
} from './collector-account.repository.js';
import type { CollectorControl } from '../../domain/collector-control.js';
import { WAITING_TEXTS } from '../../lib/collection-status.js';
import { awaitingDetails } from '../../sources/x-web/x-web-pool.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { AppError, conflict, notFound } from '../../lib/errors.js';
import {
  findAwaitingXWebAccount,
  listXWebAccounts,
} from '../../sources/x-web/x-web-accounts.repository.js';
import { submitAccountCode } from '../x-web/x-web-accounts.service.js';
import type { HandleRow } from '../handles/handles.repository.js';
import {
  deleteHandle,
  findHandleWithUsers,
  listFollowedHandles,
  markStarted,
  markStopped,
  resetHandleData,
  type HandleWithUsersRow,
} from './admin-collector.repository.js';

export interface AdminCollectorDeps {
  config: Config;
  db: Db;
  /** The in-process collector, when this process runs one. */
  collector?: CollectorControl;
}

/** The reason shown for a handle an admin stopped (ours). */
export const STOPPED_BY_ADMIN = 'Stopped by an admin. Start it to resume where it left off.';
/** Handle errors younger than this make the source look degraded. */
const RECENT_ERROR_MS = 15 * 60_000;
const NO_RATE_BUDGET = { limit: null, remaining: null, resetAt: null };

/** What the state of every handle's process depends on besides its own row. */
interface ProcessContext {
  challenge: ChallengeStatus;
  challengePending: boolean;
  /** Handles with a job queued or running in this process. */
  busy: Set<number>;
  now: number;
}

const isDue = (row: HandleRow, now: number) =>
  row.next_poll_at === null || Date.parse(row.next_poll_at) <= now;

/** A backfill not finished and not waiting for a retry: it walks on as soon as a slot is free. */
function backfillWalking(row: HandleRow, now: number): boolean {
  const unfinished = ['pending', 'starting', 'in_progress'].includes(row.backfill_status);
  return unfinished && isDue(row, now);
}

/**
 * stopped (an admin stopped it) > paused (the collector account awaits a code) > running (a
 * job in flight here, or a backfill still walking) > idle (waiting for its next poll or retry,
 * or failed for good).
 */
function processState(
  row: HandleRow,
  context: ProcessContext,
): { state: ProcessState; state_reason: string | null } {
  if (row.paused) return { state: 'stopped', state_reason: STOPPED_BY_ADMIN };
  if (context.challengePending) {
    return { state: 'paused', state_reason: ADMIN_MESSAGES.collectionPausedByChallenge };
  }
  if (context.busy.has(row.id) || backfillWalking(row, context.now)) {
    return { state: 'running', state_reason: null };
  }
  return { state: 'idle', state_reason: null };
}

function toProcess(row: HandleWithUsersRow, context: ProcessContext): AdminProcess {
  return {
    handle_id: row.id,
    handle: row.username,
    ...processState(row, context),
    job: row.backfill_status === 'completed' ? 'monitor' : 'backfill',
    backfill_status: row.backfill_status,
    backfill_progress: row.backfill_progress,
    last_poll_at: row.last_poll_at,
    next_poll_at: row.next_poll_at,
    last_error: row.last_error,
    tweets_collected: row.total_tweets_collected,
    users_count: row.users_count,
  };
}

/**
 * A handle whose collection hit an error of the source lately: waiting for the X credentials,
 * credits or budget whenever it happened (nothing is collected meanwhile), others for 15 minutes.
 */
function hasSourceError(row: HandleRow, now: number): boolean {
  if (row.paused || row.last_error === null) return false;
  if (WAITING_TEXTS.includes(row.last_error)) return true;
  return row.backfill_status !== 'failed' && now - Date.parse(row.updated_at) <= RECENT_ERROR_MS;
}

function sourceHealth(
  rows: HandleRow[],
  context: ProcessContext,
): { health: SourceHealth; health_reason: string | null } {
  if (context.challengePending) {
    return { health: 'paused', health_reason: ADMIN_MESSAGES.collectionPausedByChallenge };
  }
  const troubled = rows
    .filter((row) => hasSourceError(row, context.now))
    .sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  const latest = troubled[0];
  if (!latest) return { health: 'ok', health_reason: null };
  const handles = troubled.length === 1 ? '1 handle' : `${troubled.length} handles`;
  return {
    health: 'degraded',
    health_reason: `Collection errors on ${handles} (latest, @${latest.username}: ${latest.last_error}).`,
  };
}

/**
 * x-web: the account whose sign-in waits longest for a code, as the challenge panel shows it;
 * IDLE when none waits.
 */
async function xWebChallenge(deps: AdminCollectorDeps): Promise<ChallengeStatus> {
  const row = await findAwaitingXWebAccount(deps.db.db);
  if (!row) {
    return {
      status: 'IDLE',
      challenge_type: null,
      challenge_details: null,
      last_challenge_at: null,
    };
  }
  return {
    status: 'AWAITING_INPUT',
    challenge_type: 'email_code',
    challenge_details: awaitingDetails(row),
    last_challenge_at: row.challenge_since,
    account: row.username,
    account_id: row.id,
    step: row.challenge_step,
    collection_paused: !(await listXWebAccounts(deps.db.db)).some(
      (other) => other.status === 'ACTIVE' || other.status === 'NEEDS_LOGIN',
    ),
  };
}

/**
 * x-web: collection waits for a code when an account awaits one and no other account can
 * collect (the others are out); with another usable account it goes on.
 */
function xWebPending(challenge: ChallengeStatus) {
  return challenge.status !== 'IDLE' && challenge.collection_paused === true;
}

async function processContext(deps: AdminCollectorDeps): Promise<ProcessContext> {
  const xWeb = deps.config.TWEET_SOURCE === 'x-web';
  const challenge = xWeb ? await xWebChallenge(deps) : await readChallengeStatus(deps.db.db);
  return {
    challenge,
    challengePending: xWeb ? xWebPending(challenge) : isChallengePending(challenge),
    busy: (await deps.collector?.busyHandleIds()) ?? new Set(),
    now: Date.now(),
  };
}

/** Every followed handle's collection process, and the state of the tweet source. */
export async function listProcesses(deps: AdminCollectorDeps): Promise<AdminProcesses> {
  const rows = await listFollowedHandles(deps.db.db);
  const context = await processContext(deps);
  const source = deps.collector?.source;
  return {
    source: {
      name: source?.name ?? deps.config.TWEET_SOURCE,
      ...sourceHealth(rows, context),
      rate_budget: source?.rateBudget() ?? NO_RATE_BUDGET,
      challenge: context.challenge,
      collector_in_process: deps.collector !== undefined,
    },
    processes: rows.map((row) => toProcess(row, context)),
  };
}

async function requireHandle(deps: AdminCollectorDeps, id: number): Promise<HandleWithUsersRow> {
  const handle = await findHandleWithUsers(deps.db.db, id);
  if (!handle) throw notFound(ADMIN_MESSAGES.handleNotFound, 'HANDLE_NOT_FOUND');
  return handle;
}

/** The process of one handle as it is now. */
async function currentProcess(deps: AdminCollectorDeps, id: number): Promise<AdminProcess> {
  return toProcess(await requireHandle(deps, id), await processContext(deps));
}

/** Runs `work` with this process's jobs of the handle halted (see Collector.halt). */
function withHandleHalted<T>(
  deps: AdminCollectorDeps,
  id: number,
  work: () => Promise<T>,
): Promise<T> {
  return deps.collector ? deps.collector.halt(id, work) : work();
}

/**
 * Stops collecting a handle: marked stopped (every process's jobs check it after each page),
 * and this process's job of it aborted and awaited, so every page saved stays and the answer
 * comes once nothing runs. 409 when it was already stopped.
 */
export async function stopProcess(deps: AdminCollectorDeps, id: number): Promise<AdminProcess> {
  const handle = await requireHandle(deps, id);
  const alreadyStopped = () =>
    conflict(ADMIN_MESSAGES.processAlreadyStopped(handle.username), 'PROCESS_ALREADY_STOPPED');
  if (handle.paused) throw alreadyStopped();
  const now = new Date().toISOString();
  const stopped = await withHandleHalted(deps, id, () => markStopped(deps.db.db, id, now));
  if (!stopped) throw alreadyStopped();
  return currentProcess(deps, id);
}

/**
 * Starts a stopped handle again (it resumes where it stopped) or retries a failed one, due at
 * once and handed to the collector. 409 when it is neither stopped nor failed.
 */
export async function startProcess(deps: AdminCollectorDeps, id: number): Promise<AdminProcess> {
  const handle = await requireHandle(deps, id);
  const now = new Date().toISOString();
  const started = await deps.db.db.transaction().execute((trx) => markStarted(trx, id, now));
  if (!started) {
    throw conflict(
      ADMIN_MESSAGES.processAlreadyRunning(handle.username),
      'PROCESS_ALREADY_RUNNING',
    );
  }
  const resumed = await requireHandle(deps, id);
  if (resumed.backfill_status === 'completed') deps.collector?.requestPoll(id);
  else deps.collector?.requestBackfill(id);
  return toProcess(resumed, await processContext(deps));
}

/**
 * Deletes a handle for every user with all its data, once this process's job of it has
 * stopped. Returns the handle as it was.
 */
export async function deleteHandleEverywhere(
  deps: AdminCollectorDeps,
  id: number,
): Promise<HandleRow> {
  const handle = await requireHandle(deps, id);
  const deleted = await withHandleHalted(deps, id, () => deleteHandle(deps.db.db, id));
  if (!deleted) throw notFound(ADMIN_MESSAGES.handleNotFound, 'HANDLE_NOT_FOUND');
  return handle;
}

/**
 * Deletes what was collected for a handle and starts its backfill over (see resetHandleData),
 * in one transaction while this process's job of it is halted.
 */
export async function clearHandleData(deps: AdminCollectorDeps, id: number): Promise<AdminProcess> {
  await requireHandle(deps, id);
  const now = new Date().toISOString();
  const cleared = await withHandleHalted(deps, id, () =>
    deps.db.db.transaction().execute((trx) => resetHandleData(trx, id, now)),
  );
  if (!cleared) throw notFound(ADMIN_MESSAGES.handleNotFound, 'HANDLE_NOT_FOUND');
  deps.collector?.requestBackfill(id);
  return currentProcess(deps, id);
}

export function challengeStatus(deps: AdminCollectorDeps): Promise<ChallengeStatus> {
  if (deps.config.TWEET_SOURCE === 'x-web') return xWebChallenge(deps);
  return readChallengeStatus(deps.db.db);
}

/**
 * x-web: the code continues the waiting sign-in at once. Accepted: the account collects again
 * (the message names it). Refused: 422 with X's words; the sign-in still waits when X lets the
 * step be tried again, else the account is FAILED until an admin resets it.
 */
async function submitXWebCode(
  deps: AdminCollectorDeps,
  code: string,
  accountId?: number,
): Promise<{ status: ChallengeStatus; message: string }> {
  const result = await submitAccountCode({ config: deps.config, db: deps.db.db }, code, accountId);
  if (!result) throw conflict(X_WEB_MESSAGES.noAccountAwaiting, 'NO_CHALLENGE_PENDING');
  if (result.kind === 'rejected') {
    const message = result.stillWaiting
      ? X_WEB_MESSAGES.codeRejected(result.username, result.reason)
      : X_WEB_MESSAGES.signInFailed(result.username, result.reason);
    throw new AppError(422, result.stillWaiting ? 'CODE_REJECTED' : 'SIGN_IN_FAILED', message);
  }
  return {
    status: await xWebChallenge(deps),
    message: X_WEB_MESSAGES.codeAccepted(result.username),
  };
}

/**
 * Hands a super admin's verification code to the collector, which tries it on its next tick.
 * 409 when no challenge is waiting for a code.
 */
export async function submitCode(
  deps: AdminCollectorDeps,
  code: string,
  accountId?: number,
): Promise<{ status: ChallengeStatus; message: string }> {
  if (deps.config.TWEET_SOURCE === 'x-web') return submitXWebCode(deps, code, accountId);
  const now = new Date().toISOString();
  if (!(await submitChallengeCode(deps.db.db, code, now))) {
    throw conflict(ADMIN_MESSAGES.noChallengePending, 'NO_CHALLENGE_PENDING');
  }
  return { status: await readChallengeStatus(deps.db.db), message: ADMIN_MESSAGES.codeSubmitted };
}
